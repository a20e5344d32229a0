// `sacct`: accounting records of jobs and their steps, as Slurm 22.05 prints them (options.h:
// what is served; render.h: the output). The thin main: reads the environment (clock, time zone,
// uid, SACCT_FORMAT, user and group names), asks canopyd, prints, sets the exit code.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace canopy::ctl::sacct {

// `args` excludes the program name. Exit codes as sacct's: 0, or 1 for any error.
int RunSacct(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace canopy::ctl::sacct
