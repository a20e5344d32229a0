// Dependencies and begin times: when a pending job may be considered by the pass, and the
// reason it shows until then (docs/design/job_states.md, "Dependencies, holds and begin times").
//
// A job's --dependency items are evaluated when it is queued and again whenever a job they name
// changes (LifecycleState::Touch calls DependeeChanged): the index (dependency_index.h) finds
// the waiting jobs by the job or array task they name, so a change costs O(the jobs waiting on
// it), never a scan of all jobs. Items follow Slurm 22.05 (test_job_dependency): after = the
// job left PENDING (+MINUTES), afterany = it ended, afterok = it ended COMPLETED, afternotok =
// it ended otherwise, aftercorr = the same task of the other array ended COMPLETED, singleton =
// no other job of the user and name runs or pends ahead; a job that no longer exists satisfies
// its items. An item that can never be satisfied makes the whole list fail (with '?': once
// every item failed): the job pends with DependencyNeverSatisfied, or is cancelled when it (or
// the cluster) asked for --kill-on-invalid-dep. Satisfied and failed outcomes are final.
//
// Precedence of reasons for a pending job: a hold (JobHeldUser/JobHeldAdmin), then
// DependencyNeverSatisfied / Dependency, then BeginTime, then a partition limit, then whatever
// the pass says. Owner thread only; no I/O; time from the state's clock.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "scheduler/core/job.h"
#include "scheduler/lifecycle/effects.h"
#include "scheduler/lifecycle/lifecycle_state.h"

namespace canopy::lifecycle {

// JobHeldUser or JobHeldAdmin.
bool IsHold(core::JobReason reason);

// An item as messages name it, in sbatch's words: "afterok:12_3+5", "singleton".
std::string DescribeDependency(const core::Dependency& item);

// The outcome of a spec's dependency list as a whole: kSatisfied when it is empty.
core::DependencyState DependencyOutcome(const core::JobSpec& spec);

// Checks a submitted spec's dependencies against the jobs the controller knows: every job
// named must exist, and a task must be a task of that array. Marks the items that name a whole
// array and starts every item waiting. InvalidArgument, the item and what is wrong on its first
// line and Slurm's "Batch job submission failed: Job dependency problem" on the second.
absl::Status ResolveDependencies(const LifecycleState& s, core::JobSpec& spec);

// scontrol update job ID Dependency=: replaces a pending job's dependency list (`spec` holds the
// new items, unresolved, and dependency_any) after the checks of ResolveDependencies, plus one:
// a job may not depend on itself. Stops watching the old items, starts waiting on the new ones
// and gives the job the reason they give it. FailedPrecondition if it is not pending.
absl::Status ReplaceDependencies(LifecycleState& s, core::Job& job, core::JobSpec spec,
                                 Effects& effects);

// scontrol update job ID Name=: renames `job`, moving it between the (user, name) groups that
// singleton dependencies look at, and re-evaluating the singleton waiter its old name may
// have released and its own singleton item under the new name.
void RenameJob(LifecycleState& s, core::Job& job, std::string name, Effects& effects);

// A job just queued or restored: starts watching what its dependency names, evaluates it, and
// gives the job the reason it waits for (Regate).
void StartWaiting(LifecycleState& s, core::JobId id, Effects& effects);

// The record of `id` changed: re-evaluates the jobs waiting on it (and, if it was waiting
// itself and left PENDING, stops watching for it). Changes this causes are passed on in turn,
// iteratively.
void DependeeChanged(LifecycleState& s, core::JobId id, Effects& effects);

// Keeps the index's per-array counters and per-name sets up to date with `job` (called by
// LifecycleState::Reindex while any are tracked).
void NoteJobState(LifecycleState& s, const core::Job& job);

// A pending job's deadline came: its begin time, or an after:ID+MINUTES item.
void WakePending(LifecycleState& s, core::Job& job, Effects& effects);

// Gives a pending job that is not held the reason its dependency, begin time or partition
// limits give it; when none holds it back, a reason of theirs becomes None (the pass's own
// reasons are kept). Saves the job if the reason changed.
void Regate(LifecycleState& s, core::Job& job, Effects& effects);

}  // namespace canopy::lifecycle
