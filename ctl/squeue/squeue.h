// `squeue`: lists jobs and steps as Slurm 22.05 does (options.h: what is served; render.h:
// the output). The thin main: reads the environment, asks canopyd for the jobs, prints (again
// every -i seconds), sets the exit code.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace canopy::ctl::squeue {

// `args` excludes the program name. Exit codes as squeue's: 0, or 1 for any error.
int RunSqueue(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace canopy::ctl::squeue
