// `squeue`: lists jobs as Slurm 22.05 does (options.h: what is served;
// render.h: the output). The thin main: asks canopyd for the jobs, prints, sets the exit code.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace canopy::ctl::squeue {

// `args` excludes the program name.
int RunSqueue(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace canopy::ctl::squeue
