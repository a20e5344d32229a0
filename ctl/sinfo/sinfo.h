// `sinfo`: partitions and nodes as Slurm 22.05 prints them (options.h for what is served,
// render.h for the output). This is the thin main: it asks canopyd and prints.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace canopy::ctl::sinfo {

// `args` excludes the program name.
int RunSinfo(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace canopy::ctl::sinfo
