// Slurm's spelling of job facts, shared by squeue, scancel, srun and canopyctl: job ids of array
// tasks ("5_1"), state names ("RUNNING"/"R"), exit codes ("1:0"), GPUs per node
// ("gres:gpu:4"). Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "canopy/v1/types.pb.h"

namespace canopy::ctl::output {

// squeue's %i: "ARRAYJOB_TASK" for an array task, else the job id.
std::string JobIdString(const canopy::v1::Job& job);

// squeue's %T ("PENDING") and %t ("PD").
std::string JobStateName(canopy::v1::JobState state);
std::string JobStateCompact(canopy::v1::JobState state);
// The state from its long or compact name, case-insensitive ("pd", "running"); nullopt if none.
std::optional<canopy::v1::JobState> ParseJobState(absl::string_view name);
// PENDING, CONFIGURING, RUNNING or COMPLETING: the job still holds or wants resources.
bool IsJobActive(canopy::v1::JobState state);
// Whether srun and salloc, waiting for the allocation of `job` (asked for `waited` ago), say
// it is "queued and waiting for resources". Slurm says so only when the allocation did not
// start at once. canopyd starts jobs in its next scheduling pass (passes run at most 50 ms
// apart, and take tens of ms on 16,384 nodes), so here: the job is PENDING and either a pass
// has said why (a reason other than "None"; a job behind a full cluster keeps "None", as in
// Slurm) or half a second has gone by.
bool AllocationIsQueued(const canopy::v1::Job& job, absl::Duration waited);

// Slurm's "EXIT:SIGNAL" (scontrol's ExitCode=, sacct's ExitCode).
std::string ExitCodeString(int exit_code, int exit_signal);

// The QOS the job runs under (squeue's %q, scontrol's QOS=). A record without one (saved
// before canopyd kept QOS) shows what Slurm shows for it: "(null)" without an account (no
// accounting), else "normal".
std::string JobQosName(const canopy::v1::Job& job);

// squeue's %b (TRES_PER_NODE): "gres:gpu:4", "gres:gpu:h100:4", or "N/A" without GPUs.
// "gres:gpu:[TYPE:]COUNT" with the spec's GPU type; "N/A" for a count of 0.
std::string GpuTres(const canopy::v1::JobSpec& spec, int64_t count);
// How the job asked for GPUs, as Slurm's tres_per_node, tres_per_job and tres_per_task show it
// ("gres:gpu:[TYPE:]N"), each "N/A" when it was not asked that way: --gpus-per-node or --gres,
// -G/--gpus, --gpus-per-task.
std::string TresPerNode(const canopy::v1::JobSpec& spec);
std::string TresPerJob(const canopy::v1::JobSpec& spec);
std::string TresPerTask(const canopy::v1::JobSpec& spec);

// Nodes a job has (running) or asks for (pending): squeue's %D.
int JobNodeCount(const canopy::v1::Job& job);
// CPUs: squeue's %C. Canopy does not report allocated CPUs, so this is what the job asks for:
// max(tasks, nodes) x cpus per task.
int JobCpuCount(const canopy::v1::Job& job);

// Time a job has run: `now - start` for a started job, zero for one that has not started; up
// to its end time for a finished one.
absl::Duration JobRunTime(const canopy::v1::Job& job, absl::Time now);

// squeue's %l (TIME_LIMIT): "1:00:00", or "UNLIMITED" for a job without a limit.
std::string JobTimeLimitString(const canopy::v1::Job& job);

}  // namespace canopy::ctl::output
