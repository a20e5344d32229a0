// What the front ends read from their own process: the environment as a map and the current
// directory. Kept apart so the pure option and spec code never touches the process. Thread-safe
// as long as nobody changes the environment concurrently.
#pragma once

#include <map>
#include <string>

namespace canopy::ctl::client {

// Without the SPANK job control variables (common/slurm/job_environment.h), which only the
// plugins may set.
std::map<std::string, std::string> ProcessEnvironment();
// The current directory; "/" if it cannot be read (deleted directory).
std::string CurrentDirectory();

}  // namespace canopy::ctl::client
