// `squeue`: lists jobs as Slurm 22.05 does (see squeue_format.h for the options served).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace canopy::ctl::squeue {

// `args` excludes the program name.
int RunSqueue(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace canopy::ctl::squeue
