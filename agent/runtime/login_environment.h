// The user's login environment, for jobs that ask the node for it (SLURM_GET_USER_ENV=1: sbatch
// --get-user-env, --export=NONE, --export=<list>): what `su - <user>` sets up (HOME, PATH, SHELL,
// and whatever the user's profile exports), as Slurm's slurmd loads it under such a job's own
// variables. Runs the user's login shell, so it needs the agent to be root.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "agent/runtime/child_reaper.h"
#include "common/slurm/job_environment.h"

namespace canopy::agent::runtime {

// Slurm's GetEnvTimeout default: a login shell that takes longer is killed.
inline constexpr absl::Duration kLoginEnvironmentTimeout = absl::Seconds(2);

// Runs `su - <user> -c ...` (a login shell of the user's) and returns the environment it ends
// with, less what only that shell's own run means (PWD, OLDPWD, SHLVL, _). Blocks up to
// `timeout`. FailedPrecondition when the agent is not root; Unavailable when the shell fails,
// prints no environment, or runs past `timeout` (it is then killed).
absl::StatusOr<slurm::Environment> LoadLoginEnvironment(const std::string& user,
                                                        ChildReaper& reaper,
                                                        absl::Duration timeout);

// The environment in `output`: what follows the marker line, NUL-separated NAME=value entries
// (env -0). Exposed for tests. NotFound when the marker is missing.
absl::StatusOr<slurm::Environment> ParseLoginEnvironment(absl::string_view output);

}  // namespace canopy::agent::runtime
