// The user's login environment, for jobs that ask the node for it (SLURM_GET_USER_ENV=1: sbatch
// --get-user-env, --export=NONE, --export=<list>): what `su - <user>` sets up (HOME, PATH, SHELL,
// and whatever the user's profile exports), as Slurm's slurmd loads it under such a job's own
// variables. Runs the user's login shell, so it needs the agent to be root.
// LoginEnvironmentCache keeps each user's for a minute: launches of one user's jobs on a node
// then wait for one login shell, not one each.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "agent/runtime/child_reaper.h"
#include "common/slurm/job_environment.h"

namespace canopy::agent::runtime {

// Slurm's GetEnvTimeout default: a login shell that takes longer is killed.
inline constexpr absl::Duration kLoginEnvironmentTimeout = absl::Seconds(2);

// Runs a login shell of the node's user `uid` (`su -l --session-command ... -- <name>`, the name
// the node gives that uid, never one a message carries) and returns the environment it ends
// with, less what only that shell's own run means (PWD, OLDPWD, SHLVL, _). Blocks up to
// `timeout`, and reads at most kMaxLoginEnvironmentBytes. FailedPrecondition when the agent is
// not root; NotFound for a uid the node does not know; Unavailable when the shell fails, prints
// no environment, prints too much, or runs past `timeout` (it is then killed).
absl::StatusOr<slurm::Environment> LoadLoginEnvironment(uint32_t uid, ChildReaper& reaper,
                                                        absl::Duration timeout);

// More than this from a login shell is a profile gone wrong, not an environment.
inline constexpr size_t kMaxLoginEnvironmentBytes = 4 << 20;

// The environment in `output`: NUL-separated NAME=value entries (env -0) between the begin and
// end marker lines. Exposed for tests. NotFound when either marker is missing.
absl::StatusOr<slurm::Environment> ParseLoginEnvironment(absl::string_view output);

// Login environments by uid, each kept kLoginEnvironmentLifetime after it was loaded (a failed
// load is not kept: the next launch tries again). Thread-safe.
inline constexpr absl::Duration kLoginEnvironmentLifetime = absl::Minutes(1);
class LoginEnvironmentCache {
 public:
  absl::StatusOr<slurm::Environment> Get(uint32_t uid, ChildReaper& reaper, absl::Duration timeout);

 private:
  absl::Mutex mu_;
  std::map<uint32_t, std::pair<absl::Time, slurm::Environment>> loaded_ ABSL_GUARDED_BY(mu_);
};

}  // namespace canopy::agent::runtime
