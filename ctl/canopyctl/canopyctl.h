// canopyctl's native commands: `canopyctl nodes`, `canopyctl topology`, `canopyctl ping`,
// `canopyctl drain|resume|down`. Each takes its arguments (after the command name), writes to
// `out`/`err`, and returns the process exit code. Thread-compatible.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace canopy::ctl::canopyctl {

// Entry point for `canopyctl ARGS...` (argv without the program name).
int RunCanopyctl(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace canopy::ctl::canopyctl
