// Job edits: what `scontrol update job` changes besides priority and time limit (those are
// priorities.h and job_control.h). As in Slurm 22.05:
//   Name=, Comment=   of a job that has not ended;
//   Partition=, NumNodes=, ExcNodeList=, ReqNodeList=, Dependency=   of a pending job only
//     ("Job is no longer pending execution" otherwise), checked as a submission would be (the
//     partition exists and allows the job's account, some node of it can hold the job, the
//     named nodes exist, the dependencies name existing jobs). The job's priority, time limit
//     (when it asked for none, the new partition's default) and reason follow.
// The owner or an operator may edit. All of an edit applies, or none of it.
//
// Owner thread only; no I/O.
#pragma once

#include "absl/status/status.h"
#include "scheduler/core/ids.h"
#include "scheduler/lifecycle/caller.h"
#include "scheduler/lifecycle/commands.h"
#include "scheduler/lifecycle/effects.h"
#include "scheduler/lifecycle/lifecycle_state.h"

namespace canopy::lifecycle {

// NotFound ("Invalid job id specified"), PermissionDenied, FailedPrecondition (ended, or not
// pending for a pending-only field), InvalidArgument with Slurm's words ("Invalid partition
// name specified", "Requested node configuration is not available", "Invalid node name
// specified", "Job dependency problem") after what is wrong.
absl::Status EditJob(LifecycleState& s, core::JobId id, const JobEdit& edit, const Caller& caller,
                     Effects& effects);

}  // namespace canopy::lifecycle
