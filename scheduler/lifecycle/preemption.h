// Preemption (slurm.conf PreemptType, PreemptMode; QOS Preempt/PreemptMode/GraceTime; partition
// PriorityTier/PreemptMode/GraceTime). After a pass, a pending job that could not start for want
// of capacity may take it from running jobs it outranks:
//   * preempt/qos: jobs whose QOS its own QOS lists in Preempt;
//   * preempt/partition_prio: jobs of partitions with a lower PriorityTier.
// A victim's PreemptMode (its QOS's, or its partition's under partition_prio, else the
// cluster's) must be REQUEUE or CANCEL; OFF keeps it. plan::PlanPreemption chooses the victims
// so the preemptor lands under the fewest switches with the fewest GPU-hours thrown away. Each
// victim is sent its --signal (or SIGTERM) at once; when its GraceTime is up (at once without
// one) it is requeued (REQUEUE, for a batch job that may be requeued) or cancelled (state
// PREEMPTED), and its nodes free up once they have cleaned up. The preemptor, which outranks
// what waits behind it, starts in the pass that follows. While its victims are on their way out
// (at most their GraceTime, two KillWaits and a launch timeout) passes look at waiting
// preemptors only, so no other job takes what the victims free; the preemptor does not preempt
// again, and a victim is not chosen twice.
//
// Owner thread only; no I/O.
#pragma once

#include "absl/types/span.h"
#include "scheduler/core/job.h"
#include "scheduler/lifecycle/effects.h"
#include "scheduler/lifecycle/lifecycle_state.h"

namespace canopy::lifecycle {

// Preemptors tried per pass at most (each costs one victim search over the running jobs).
inline constexpr int kMaxPreemptorsPerPass = 4;

// After the pass that just ran over `order` (pending jobs, best first): lets the first pending
// jobs that wait for capacity (reason Resources, Priority behind a job that cannot start, or
// None before any pass looked at them) and may preempt someone do so. Does nothing under
// preempt/none.
void Preempt(LifecycleState& s, absl::Span<const core::Job* const> order, Effects& effects);

// A victim whose GraceTime is up (Tick), or whose script ended in it: requeues or cancels it.
// `cleaned_node`: the index in its allocation of a node that already cleaned up (the batch host
// whose EXITED said so), sent no KillJob; -1: none.
void FinishPreemption(LifecycleState& s, core::Job& victim, Effects& effects,
                      int cleaned_node = -1);

}  // namespace canopy::lifecycle
