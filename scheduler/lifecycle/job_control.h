// Job control: what scontrol changes about a job besides its priority (priorities.h). Holds
// (hold, uhold, release), requeues (requeue, requeuehold) and time limits (update TimeLimit=).
//
// Holds, as in Slurm 22.05: a held pending job stays PENDING, out of the pass, with priority 0
// and reason JobHeldUser (its owner's hold, sbatch -H, uhold, requeuehold) or JobHeldAdmin (an
// operator's hold, or Priority=0); its owner may release a user hold, only an operator an admin
// hold. Releasing gives the job back its priority and the reason its dependency, begin time or
// partition limits give it. Only pending jobs can be held (Slurm also marks running ones).
//
// Requeue kills a CONFIGURING or RUNNING batch job on its nodes (they stay held until clean, as
// for a node failure), and queues it again: REQUEUED, then PENDING with its restart count + 1.
// A job submitted with --no-requeue, an allocation-only job and a job that is not running are
// refused. Canopy does not requeue finished jobs (Slurm does).
//
// Owner thread only; no I/O.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "scheduler/lifecycle/caller.h"
#include "scheduler/lifecycle/commands.h"
#include "scheduler/lifecycle/effects.h"
#include "scheduler/lifecycle/lifecycle_state.h"

namespace canopy::lifecycle {

// Kills a CONFIGURING or RUNNING batch job on its nodes and queues it again (held with
// JobHeldUser when `hold`); `why` goes to its agents and the log. The caller has checked that
// the job may be requeued. Accounting records the run that ended as `attempt_end` (REQUEUED, or
// PREEMPTED). `cleaned_node`: as LeaveNodesHeld's. Internal only if the capacity view refuses (a
// bug).
absl::Status RequeueRunning(LifecycleState& s, core::Job& job, const std::string& why, bool hold,
                            core::JobState attempt_end, Effects& effects, int cleaned_node = -1);

// Applies `request.action` to every job it names; one answer per requested id.
std::vector<JobActionAnswer> ControlJobs(LifecycleState& s, const JobActionRequest& request,
                                         const Caller& caller, Effects& effects);

// scontrol update job ID TimeLimit=: of a pending or running job. Its owner may only shorten
// it; an operator may also lengthen it, up to UNLIMITED. A running job's limit counts from its
// start (a limit already passed ends it at the next tick). NotFound, PermissionDenied,
// InvalidArgument (not positive; += on UNLIMITED), FailedPrecondition (the job has ended).
absl::Status SetTimeLimit(LifecycleState& s, core::JobId id, const TimeLimitChange& change,
                          const Caller& caller, Effects& effects);

}  // namespace canopy::lifecycle
