// What clients do to their jobs besides submitting them: cancel or signal (scancel), and end an
// allocation-only job (srun or salloc outside a batch job, when its client is done).
//
// Functions of the lifecycle's state; owner thread only; no I/O.
#pragma once

#include <vector>

#include "absl/status/status.h"
#include "scheduler/lifecycle/caller.h"
#include "scheduler/lifecycle/commands.h"
#include "scheduler/lifecycle/effects.h"
#include "scheduler/lifecycle/lifecycle_state.h"

namespace canopy::lifecycle {

// One answer per requested id, in request order. Cancelling an array's job id cancels every
// task of the array (scancel 5 for 5_[0-9]). A pending job ends CANCELLED at once; one that
// holds nodes is killed and ends CANCELLED once its nodes cleaned up. With a signal, the job's
// nodes (or only its batch host) are signalled instead.
std::vector<CancelAnswer> Cancel(LifecycleState& s, const CancelRequest& request,
                                 const Caller& caller, Effects& effects);

// Ends a RUNNING allocation-only job: COMPLETED for exit 0, else FAILED. NotFound,
// PermissionDenied, or FailedPrecondition (a batch job, or one not running).
absl::Status CompleteJob(LifecycleState& s, const CompleteRequest& request, const Caller& caller,
                         Effects& effects);

}  // namespace canopy::lifecycle
