// Ending: how a job that holds nodes stops. RUNNING -> COMPLETING (every node is sent KillJob)
// -> the final state once every node has reported CLEANED_UP or gone down; a job that loses a
// node while running is requeued (or ends NODE_FAIL with --no-requeue), keeping its healthy
// nodes held until they have cleaned up.
//
// Functions of the lifecycle's state; owner thread only; no I/O.
#pragma once

#include <string>

#include "scheduler/core/job.h"
#include "scheduler/lifecycle/effects.h"
#include "scheduler/lifecycle/lifecycle_state.h"

namespace canopy::lifecycle {

// RUNNING -> COMPLETING, ending as `final_state` once every node cleaned up. A job still
// CONFIGURING ends at once (its nodes stay held until they clean up). `cleaned_node`: the index
// in the allocation of a node that has cleaned its part up already (a batch host that reported
// the script's end with JobStatus.cleaned_up): it counts as clean and is sent no KillJob.
void BeginCompleting(LifecycleState& s, core::Job& job, core::JobState final_state,
                     const std::string& why, Effects& effects, int cleaned_node = -1);

// Ends a COMPLETING job whose nodes have all cleaned up.
void FinishIfClean(LifecycleState& s, core::Job& job, Effects& effects);

// Frees everything the job holds and moves it to `final_state` now. Leaves an illegal
// transition undone, with a warning (a bug if it happens).
void EndNow(LifecycleState& s, core::Job& job, core::JobState final_state, Effects& effects);

// A node of the job was lost (down, a GPU of the job broke, the batch host forgot it): a
// CONFIGURING job goes back to the queue, a RUNNING one is requeued or ends NODE_FAIL.
// `cleaned_node`: as LeaveNodesHeld's (a batch host whose EXITED said it cleaned up).
void LoseJob(LifecycleState& s, core::Job& job, const std::string& why, Effects& effects,
             int cleaned_node = -1);

}  // namespace canopy::lifecycle
