// scancel --help and --usage, as Slurm 22.05.8 printed them (the help lists Slurm's options,
// Canopy's served ones among them: ctl/scancel/options.h; -V is common/slurm/slurm_version.h).
// Thread-safe.
#pragma once

#include <string>

namespace canopy::ctl::scancel {

std::string ScancelHelp();
std::string ScancelUsage();

}  // namespace canopy::ctl::scancel
