// Turning parsed sbatch options into the JobSpec that SubmitJob carries. Pure: everything the
// spec needs from the outside world (working directory, host name, environment, script text)
// comes in a SubmitContext, so the rules are unit-tested. Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "canopy/v1/types.pb.h"
#include "common/slurm/sbatch_options.h"

namespace canopy::ctl::sbatch {

struct SubmitContext {
  std::string cwd;                         // sbatch's working directory (absolute)
  std::string short_hostname;              // submit_host
  std::map<std::string, std::string> env;  // sbatch's environment
  std::string script;                      // the batch script text
  // The default job name: the script file's base name, "wrap" for --wrap, "sbatch" for a
  // script read from stdin (as sbatch names them).
  std::string default_name;
  // What --begin and --deadline are relative to ("now+1hour", "16:00"), as sbatch reads them.
  absl::Time now = absl::UnixEpoch();
  absl::TimeZone tz = absl::UTCTimeZone();
  // The variables of --export-file (read by the caller), which replace `env` as the environment
  // the --export rules pick from: sbatch unsets its own environment when it reads such a file.
  std::optional<std::map<std::string, std::string>> export_file_env;
  uint32_t caller_uid = 0;  // sbatch's real uid: --uid and --gid are for root only
  int prio_process = 0;     // sbatch's nice value (SLURM_PRIO_PROCESS)
  // User and group names for --uid/--gid (numbers need no lookup); nullopt = no such name.
  std::function<std::optional<uint32_t>(const std::string&)> lookup_user;
  std::function<std::optional<uint32_t>(const std::string&)> lookup_group;
};

// Sets spec.environment and spec.export_none from `env` by the --export rules
// (slurm::ExportEnvironment).
void ApplyExport(const std::optional<slurm::SbatchExport>& export_env,
                 const std::map<std::string, std::string>& env, canopy::v1::JobSpec& spec);

// The JobSpec for `options`. InvalidArgument, in sbatch's words after its "sbatch: " prefix,
// for options Canopy cannot honour (non-GPU --gres) and for a --begin or --dependency value that
// is not one (what is wrong, then Slurm's "Batch job submission failed: Job dependency problem"
// for the latter, which real sbatch only learns from slurmctld); and as sbatch for a bad
// --deadline ("error: Invalid --deadline specification", after parse_time's line), a deadline
// before --begin ("error: Incompatible begin and deadline time specification"), --uid/--gid
// from a user other than root ("error: --uid only permitted by root user") or naming no one
// ("error: Invalid --uid specification"), and a bad --propagate (CheckPropagate; sbatch only
// checks it without --get-user-env). Errors carry sbatch's exit status (slurm::ExitCodeOf).
//
// What the spec gets beyond the obvious fields: --gpus-per-task becomes gpus_per_node (times
// --ntasks-per-node, or the tasks per node -n spreads over -N) when no per-node GPU count is
// given; --mem-per-gpu becomes mem_per_node_mib (times gpus_per_node) when the GPU count per
// node is known; --get-user-env, --export=NONE and --export=<list> set SLURM_GET_USER_ENV=1 in
// the environment (the node then loads the user's login environment underneath), the latter two
// SLURM_EXPORT_ENV too, as sbatch does.
// Options Canopy only checks (--hint, --distribution, --propagate) leave no trace.
absl::StatusOr<canopy::v1::JobSpec> BuildJobSpec(const slurm::SbatchOptions& options,
                                                 const SubmitContext& context);

// The variables of an --export-file's content, as Slurm's env_array_from_file: NAME=value
// entries separated by NUL characters, or by newlines when there is no NUL; entries without '='
// are skipped.
std::map<std::string, std::string> ParseExportFile(const std::string& content);

// The script sbatch --wrap submits for `command`.
std::string WrapScript(const std::string& command);

}  // namespace canopy::ctl::sbatch
