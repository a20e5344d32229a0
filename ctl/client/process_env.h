// What the front ends read from their own process: the environment as a map and the current
// directory. Kept apart so the pure option and spec code never touches the process. Thread-safe
// as long as nobody changes the environment concurrently.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>

namespace canopy::ctl::client {

// Without the SPANK job control variables (common/slurm/job_environment.h), which only the
// plugins may set.
std::map<std::string, std::string> ProcessEnvironment();
// The current directory; "/" if it cannot be read (deleted directory).
std::string CurrentDirectory();
// Adds SLURM_UMASK, the caller's file-creation mask in octal ("0022"), unless `env` has one
// already (a step inside a batch job keeps the submitter's), as Slurm's sbatch and srun do: the
// job's output files and processes then get the mask of the shell that submitted them.
void AddCallerUmask(std::map<std::string, std::string>& env);
// The same with the mask given (for tests).
void AddUmask(std::map<std::string, std::string>& env, mode_t mask);

}  // namespace canopy::ctl::client
