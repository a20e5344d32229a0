// canopyctl's native commands: `canopyctl nodes`, `topology`, `ping`, `drain|resume|down`,
// `jobs`, `job ID`, `cancel ID...`, `whoami`, and `run` (srun). The thin main: arguments are
// parsed by options.h and printed by render.h; this talks to canopyd, writes to `out`/`err` and
// returns the exit code (2 for a usage error). Thread-compatible.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace canopy::ctl::canopyctl {

// Entry point for `canopyctl ARGS...` (argv without the program name).
int RunCanopyctl(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace canopy::ctl::canopyctl
