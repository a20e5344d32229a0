// Agent reports and node loss: what the agents tell the controller about jobs (launched, launch
// failed, exited, cleaned up), what a node's (re)registration means for the jobs on it, and
// what happens to jobs when a node goes down or a GPU they use breaks.
//
// Functions of the lifecycle's state; owner thread only; no I/O.
#pragma once

#include <cstdint>
#include <vector>

#include "scheduler/core/ids.h"
#include "scheduler/lifecycle/commands.h"
#include "scheduler/lifecycle/effects.h"
#include "scheduler/lifecycle/lifecycle_state.h"
#include "scheduler/state/node_record.h"

namespace canopy::lifecycle {

// Slurm's reason for a node drained because a launch failed there for a reason of the node's.
inline constexpr char kLaunchFailureDrainReason[] = "batch job complete failure";
// Slurm's description of a job sent back to the queue, held, after such a failure.
inline constexpr char kLaunchFailedHeld[] = "launch failed requeued held";

// A report about a job from the agent of `node`. A launch that failed for a reason of the node's
// (JobReport::node_fault) drains the node (Effects::drains) and puts the job back in the queue
// (LoseJob); one that failed for the job's own reason fails the job. A run the agent fenced is
// lost as on a failed node. EXITED and CLEANED_UP reports are answered
// with a JobReportAck in `effects` (sent after the commit, so the agent forgets a report only
// once it is saved), even for jobs the controller does not know. Reports from an earlier run of
// the job, or from a node no longer in its allocation, change nothing.
void JobReported(LifecycleState& s, core::NodeId node, const JobReport& report, Effects& effects);

// A node's availability may have changed: placement learns it; a node that went down, or whose
// GPU used by a job broke, fails the jobs on it (requeue, or NODE_FAIL with --no-requeue).
void NodeChanged(LifecycleState& s, const state::NodeRecord& node, Effects& effects);

// A node's agent (re)registered, still running `running`. Returns the jobs it should kill
// (unknown, or no longer allocated to it), each of which keeps what it uses there held (a
// CleanupHold) until the node reports it CLEANED_UP: after a restart, or a node's return, the
// controller remembers no hold, and its GPUs must not go to another job while the old processes
// die. Re-sends what a CONFIGURING or COMPLETING job still needs from the node, and notes a
// RUNNING job the batch host forgot.
std::vector<uint32_t> NodeRegistered(LifecycleState& s, const state::NodeRecord& node,
                                     const std::vector<RunningJob>& running, Effects& effects);

}  // namespace canopy::lifecycle
