// Steps: srun inside a running job. The controller lays the tasks out over the job's nodes
// (common/slurm/task_layout.h) and sends each node its LaunchStep; the agents stream output and
// exits to srun directly. A step lives as long as its srun: the scheduler does not store it (a
// job that stops holding nodes forgets its steps), but accounting records its start and its end
// (Effects::steps).
//
// Functions of the lifecycle's state; owner thread only; no I/O.
#pragma once

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "scheduler/lifecycle/caller.h"
#include "scheduler/lifecycle/commands.h"
#include "scheduler/lifecycle/effects.h"
#include "scheduler/lifecycle/lifecycle_state.h"

namespace canopy::lifecycle {

// NotFound / PermissionDenied for the job; FailedPrecondition unless it is CONFIGURING or
// RUNNING; InvalidArgument for no program, no way to deliver output, or a layout that does not
// fit the allocation.
absl::StatusOr<StepAnswer> CreateStep(LifecycleState& s, const StepRequest& request,
                                      const Caller& caller, Effects& effects);

// Signals or kills a live step on every node it runs on. NotFound for an unknown step.
absl::Status CancelStep(LifecycleState& s, const CancelStepRequest& request, const Caller& caller,
                        Effects& effects);

// scontrol notify: the message goes to a batch job's script's stderr, or to the srun of each
// running step of a job without script. NotFound / PermissionDenied for the job;
// FailedPrecondition with Slurm's words unless it runs, or when it has neither a batch script
// nor a running step (an salloc allocation between steps).
absl::Status NotifyJob(LifecycleState& s, const NotifyRequest& request, const Caller& caller,
                       Effects& effects);

// sattach: every node running a part of the step opens a stream to the caller's StepIo server
// (none without an address: sattach --layout). NotFound for an unknown or finished step; the
// answer describes the step's layout (step_id is the one asked for).
absl::StatusOr<StepAnswer> AttachStep(LifecycleState& s, const AttachRequest& request,
                                      const Caller& caller, Effects& effects);

// A node's part of a step ended; the step ends (in accounting too) once every part has.
void StepReported(LifecycleState& s, core::NodeId node, const StepReport& report, Effects& effects);

}  // namespace canopy::lifecycle
