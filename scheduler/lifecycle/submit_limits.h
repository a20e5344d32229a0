// Submit limits: what a submission must stay within before anything is queued, so that one
// user's mistake or malice cannot grow the controller without bound. Slurm's own limits, with
// its defaults and words (docs/reliability.md):
//   * the batch script: SchedulerParameters max_script_size (4 MiB);
//   * text fields: 1024 bytes for names (job name, account, partition, QOS, comment, ...),
//     4096 for paths and the array spec, 128 KiB for the dependency and node lists;
//   * arguments and environment: each string under execve's 128 KiB, 4 MiB in all;
//   * MaxArraySize (1001): array task ids must be below it;
//   * MaxJobCount (10000): jobs the controller holds, finished ones included until MinJobAge;
//   * MaxSubmitJobs of the user's association (with AccountingStorageEnforce=limits): pending
//     and running jobs, each array task counting.
// Pure functions of the lifecycle's state; owner thread only.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "common/config/cluster_config.h"
#include "scheduler/core/job.h"
#include "scheduler/lifecycle/caller.h"
#include "scheduler/lifecycle/lifecycle_state.h"

namespace canopy::lifecycle {

// Script, text fields, arguments and environment. InvalidArgument with Slurm's line ("Batch job
// submission failed: Pathname of a file, directory or other parameter too long") after the field,
// its size and the limit.
absl::Status CheckRequestSizes(const core::JobSpec& spec, const config::ClusterConfig& config);

// MaxJobCount: ResourceExhausted with Slurm's "Resource temporarily unavailable" (sbatch waits
// and retries, as Slurm's does) when `new_jobs` more would reach it.
absl::Status CheckJobCount(const LifecycleState& s, size_t new_jobs);

// The scripts and environments canopyd holds (core::SharedTextBytes(), the submission's own
// already counted: it holds them while it is checked) over scheduler.max_script_memory_mib:
// ResourceExhausted with Slurm's "Resource temporarily unavailable" (sbatch waits and retries).
absl::Status CheckScriptMemory(const LifecycleState& s);

// MaxSubmitJobs of the association of `caller` in `account`, counting `new_jobs` more.
// InvalidArgument with Slurm's two lines ("AssocMaxSubmitJobLimit" with the counts after it, then
// "Batch job submission failed: Job violates accounting/QOS policy ...").
absl::Status CheckSubmitJobsLimit(const LifecycleState& s, const Caller& caller,
                                  const std::string& account, size_t new_jobs);

// A job name or comment set by scontrol update: the 1024 bytes of CheckRequestSizes.
absl::Status CheckEditedText(absl::string_view field, const std::string& value);

// A step's name, arguments and environment (srun, inside an allocation): the sizes of
// CheckRequestSizes, so that what execve could never pass is refused when asked.
absl::Status CheckStepSizes(const std::string& name, const std::vector<std::string>& argv,
                            const std::map<std::string, std::string>& environment);

}  // namespace canopy::lifecycle
