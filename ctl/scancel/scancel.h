// `scancel`: cancels or signals jobs, array tasks and steps, by id or by filter (-u -n -p -t),
// with Slurm 22.05's messages: errors for unknown or finished jobs are shown only with -v, as
// scancel does (tests/data/slurm-reference/cli-outputs-22.05.txt: `scancel 999999` prints
// nothing and exits 0).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace canopy::ctl::scancel {

// `args` excludes the program name.
int RunScancel(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace canopy::ctl::scancel
