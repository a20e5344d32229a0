// Turning parsed sbatch options into the JobSpec that SubmitJob carries. Pure: everything the
// spec needs from the outside world (working directory, host name, environment, script text)
// comes in a SubmitContext, so the rules are unit-tested. Thread-safe.
#pragma once

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
  // What --begin is relative to ("now+1hour", "16:00"), as sbatch reads it.
  absl::Time now = absl::UnixEpoch();
  absl::TimeZone tz = absl::UTCTimeZone();
};

// Sets spec.environment and spec.export_none from `env` by the --export rules
// (slurm::ExportEnvironment).
void ApplyExport(const std::optional<slurm::SbatchExport>& export_env,
                 const std::map<std::string, std::string>& env, canopy::v1::JobSpec& spec);

// The JobSpec for `options`. InvalidArgument, in sbatch's words after its "sbatch: " prefix,
// for options Canopy cannot honour (non-GPU --gres) and for a --begin or --dependency value that
// is not one (what is wrong, then Slurm's "Batch job submission failed: Job dependency problem"
// for the latter, which real sbatch only learns from slurmctld).
absl::StatusOr<canopy::v1::JobSpec> BuildJobSpec(const slurm::SbatchOptions& options,
                                                 const SubmitContext& context);

// The script sbatch --wrap submits for `command`.
std::string WrapScript(const std::string& command);

}  // namespace canopy::ctl::sbatch
