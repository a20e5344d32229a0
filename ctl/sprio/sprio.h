// `sprio`: the weighted priority factors of pending jobs, as Slurm 22.05 prints them
// (options.h: what is served; render.h: the output). The thin main: asks canopyd, prints, sets
// the exit code.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace canopy::ctl::sprio {

// `args` excludes the program name.
int RunSprio(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace canopy::ctl::sprio
