// `sbatch`: submits a batch script (a file, stdin, or --wrap) with Slurm 22.05's options and
// messages ("Submitted batch job N", --parsable, "sbatch: error: ..."). Parsing is
// common/slurm/sbatch_options.h, the spec is job_spec.h; this file does the I/O and the RPC.
#pragma once

#include <istream>
#include <ostream>
#include <string>
#include <vector>

namespace canopy::ctl::sbatch {

// `args` excludes the program name; `in` is read when no script file is named.
int RunSbatch(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
              std::ostream& err);

}  // namespace canopy::ctl::sbatch
