// Priorities: the lifecycle's fair-share cycle and what operators change about it. Every
// PriorityCalcPeriod (and after a restart or a change of associations) Recalculate charges the
// running jobs up to now, recomputes every association's fair share, and gives each pending job
// its new priority; the queue sort (queue/priority) then orders the next pass by it. Setting an
// association tree (sacctmgr), a job's priority or nice (scontrol) goes through here too.
//
// Owner thread only; no I/O.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "scheduler/core/ids.h"
#include "scheduler/fairshare/association_tree.h"
#include "scheduler/lifecycle/caller.h"
#include "scheduler/lifecycle/effects.h"
#include "scheduler/lifecycle/lifecycle_state.h"

namespace canopy::lifecycle {

// Charges, recomputes fair share, re-prioritises pending jobs; schedules the next run.
void Recalculate(LifecycleState& s, Effects& effects);

// Replaces the association tree (operators only: PermissionDenied otherwise). Jobs already
// submitted keep their accounts.
absl::Status SetAssociations(LifecycleState& s, fairshare::AssociationTree tree,
                             const Caller& caller, Effects& effects);

// scontrol update job ID Priority=N: operators only; fixes the priority (0 holds the job, as
// Slurm's JobHeldAdmin). NotFound for an unknown job, FailedPrecondition for a job that is not
// pending.
absl::Status SetJobPriority(LifecycleState& s, core::JobId id, uint32_t priority,
                            const Caller& caller, Effects& effects);
// scontrol update job ID Nice=N: the owner may only raise it (lower the priority); a negative
// nice needs an operator, as in Slurm. The priority is recomputed at once.
absl::Status SetJobNice(LifecycleState& s, core::JobId id, int32_t nice, const Caller& caller,
                        Effects& effects);
// scontrol top ID: the job goes before the owner's other pending jobs in the same partition,
// by taking the highest priority among them (and giving its own to the one it passes).
absl::Status TopJob(LifecycleState& s, core::JobId id, const Caller& caller, Effects& effects);

}  // namespace canopy::lifecycle
