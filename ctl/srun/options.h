// srun's command line (the options Canopy serves) and what it turns into: the allocation-only
// JobSpec srun submits when run outside an allocation, and the CreateStep request. Pure;
// thread-safe.
//
// Options: -N/--nodes, -n/--ntasks, --ntasks-per-node, -c/--cpus-per-task, -l/--label,
// -o/--output, -e/--error, -J/--job-name, --jobid, -D/--chdir, --export, -p/--partition,
// -t/--time, -w/--nodelist, -x/--exclude, --exclusive, -A/--account, --gpus-per-node, --gres,
// -v/--verbose. Like srun, parsing stops at the first non-option: it and the rest are the
// command.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "canopy/v1/controller.pb.h"
#include "common/slurm/sbatch_options.h"

namespace canopy::ctl::srun {

struct SrunOptions {
  std::optional<int> nodes;
  std::optional<int> ntasks;
  std::optional<int> ntasks_per_node;
  std::optional<int> cpus_per_task;
  bool label = false;
  std::string output;
  std::string error;
  std::string job_name;
  std::optional<uint32_t> jobid;
  std::string chdir;
  std::optional<slurm::SbatchExport> export_env;
  std::string partition;
  std::optional<absl::Duration> time_limit;  // InfiniteDuration() = no limit
  std::string nodelist;
  std::string exclude;
  bool exclusive = false;
  std::string account;
  std::optional<int> gpus_per_node;
  std::string gpu_type;
  int verbose = 0;
  std::vector<std::string> command;
};

// InvalidArgument with srun's wording (printed after "srun: ") for a bad option or value, or
// no command ("fatal: No command given to execute.").
absl::StatusOr<SrunOptions> ParseSrunArgs(const std::vector<std::string>& args);

// The job srun submits outside an allocation: empty script, resources from the options.
canopy::v1::JobSpec BuildAllocationSpec(const SrunOptions& options, const std::string& cwd,
                                        const std::string& short_hostname);

// The step for `job_id`; `env` is srun's environment (exported per --export; default ALL).
// io_address/io_token are left for the caller.
canopy::v1::CreateStepRequest BuildStepRequest(const SrunOptions& options, uint32_t job_id,
                                               const std::map<std::string, std::string>& env,
                                               const std::string& cwd);

}  // namespace canopy::ctl::srun
