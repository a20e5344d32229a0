// scancel --help, --usage and -V/--version, as Slurm 22.05 prints them (the help lists
// Slurm's options, Canopy's served ones among them: ctl/scancel/options.h). Thread-safe.
#pragma once

#include <string>

namespace canopy::ctl::scancel {

std::string ScancelHelp();
std::string ScancelUsage();

}  // namespace canopy::ctl::scancel
