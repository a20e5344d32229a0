// Launch: from PENDING to RUNNING. The scheduling pass starts what fits (in queue order, array
// throttles applied); a started job takes its nodes and GPU indexes and every node is sent a
// LaunchJob; the job runs once every node has confirmed (gang launch). A launch that fails or is
// not confirmed in time goes back to the queue, and the nodes it may have started on stay held
// (cleanup holds) until they report that its processes are gone.
//
// Functions of the lifecycle's state; owner thread only; no I/O.
#pragma once

#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "scheduler/core/job.h"
#include "scheduler/lifecycle/backfill_work.h"
#include "scheduler/lifecycle/effects.h"
#include "scheduler/lifecycle/lifecycle_state.h"

namespace canopy::lifecycle {

// One scheduling pass: starts every pending job that fits now, in queue order.
// With LifecycleState::plan_backfill_elsewhere, a due backfill pass is not planned here but
// handed out as Effects::backfill_work (backfill_work.h); until it comes back no pass runs.
void Schedule(LifecycleState& s, Effects& effects);
// A backfill pass planned elsewhere came back: applies what still holds of its plan.
void BackfillPlanned(LifecycleState& s, BackfillWork& work, Effects& effects);

// The jobs holding capacity now, with when it comes back (for backfill).
std::vector<plan::RunningJob> RunningJobs(const LifecycleState& s, absl::Time now);

// sbatch --test-only: when and where `job` (not queued; its id the next one) would start if it
// were submitted now, behind the jobs queued before it in priority order, judged by backfill's
// look ahead whatever SchedulerType is. FailedPrecondition when it would not start within
// bf_window or can never run. Changes nothing.
absl::StatusOr<WillRunAnswer> WillRun(const LifecycleState& s, const core::Job& job);

// Sends node `node_index` of a starting job its LaunchJob again (its agent re-registered
// without it).
void ResendLaunch(const core::Job& job, int node_index, Effects& effects);

// Node `node_index` of a CONFIGURING job confirmed its launch; the job runs once every node has.
void Confirm(LifecycleState& s, core::Job& job, int node_index, Effects& effects);

// A CONFIGURING job's launch failed or was not confirmed in time: kills what may have started,
// keeps its nodes held until they clean up, and puts the job back to PENDING (reason
// Resources, no restart counted: it never ran). No-op for a job in any other state.
// `cleaned_node`: as LeaveNodesHeld's.
void AbortLaunch(LifecycleState& s, core::Job& job, const std::string& why, Effects& effects,
                 int cleaned_node = -1);

// A job that held nodes stops holding them before they cleaned up: KillJob everywhere with
// `kill_reason`, `release` frees its capacity and moves it on (back to PENDING, or requeued),
// and its share of the nodes that are up stays held until they report CLEANED_UP. The job's
// state_message becomes `why`. When `release` requeued the job (its restart count went up), the
// run that ended is recorded for accounting as `attempt_end` (REQUEUED, NODE_FAIL, PREEMPTED).
// False (with a warning) when `release` failed. `cleaned_node`: the index in the allocation of a
// node that already cleaned up (a batch host whose EXITED said so), sent no KillJob; its hold is
// released by that report's CLEANED_UP part (JobReported); -1: none.
bool LeaveNodesHeld(LifecycleState& s, core::Job& job, const std::string& kill_reason,
                    const std::string& why, core::JobState attempt_end,
                    absl::FunctionRef<absl::Status()> release, Effects& effects,
                    int cleaned_node = -1);

// Cleanup holds for the nodes of `job` that are up (a down node's processes count as gone).
// Taken before the job's allocation is freed, applied after.
std::vector<CleanupHold> HoldsFor(const LifecycleState& s, const core::Job& job);
void TakeHolds(LifecycleState& s, std::vector<CleanupHold> holds, Effects& effects);
// Releases the holds of `job` on `node` for `run_id` (0 = every run); every job's hold on
// `node` when `job` is invalid.
void ReleaseHolds(LifecycleState& s, core::JobId job, core::NodeId node, uint32_t run_id,
                  Effects& effects);

}  // namespace canopy::lifecycle
