// PlanApplier and the other commits of the job lifecycle into the scheduler state.
//
// The state here is the pair (CapacityView, JobTable): what placement sees and the job records.
// Every function keeps them consistent: a job holds capacity exactly while it is CONFIGURING,
// RUNNING or COMPLETING with a non-empty allocation. A job that ends keeps its allocation as the
// record of where it ran; one that goes back to the queue loses it. Pure (no clock: `now` is
// passed), not thread-safe: the owner of the state calls these (canopyd's owner thread, the
// simulator).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "scheduler/core/job.h"
#include "scheduler/core/job_table.h"
#include "scheduler/placement/capacity_view.h"
#include "scheduler/plan/plan.h"

namespace canopy::plan {

struct ApplyReport {
  std::vector<core::JobId> started;  // in plan order
  // Starts the re-check refused (the job is no longer pending, or a node lost capacity since
  // the plan was made), with why. Those jobs stay pending with reason Resources.
  std::vector<std::pair<core::JobId, std::string>> refused;
};

class PlanApplier {
 public:
  // The state a started job enters: RUNNING where starting is instant (the simulator), or
  // CONFIGURING where agents must first confirm the launch (canopyd; then MarkLaunched).
  explicit PlanApplier(core::JobState start_state = core::JobState::kRunning)
      : start_state_(start_state) {}

  // Re-checks and commits `plan` at `now`: each start is taken only if the job is still PENDING
  // and every one of its nodes can still take its share (usable, not held exclusively, idle if
  // exclusive, enough free GPUs/CPUs/memory); then the capacity is taken and the job goes
  // PENDING -> RUNNING with its allocation. A gang is all or nothing: one refused node refuses
  // the whole job and nothing of it is committed. Pending notes set the reason of jobs still
  // pending. Errors: Internal if the state is inconsistent (a transition the table forbids
  // after the re-check passed); the state is then as far as it got.
  absl::StatusOr<ApplyReport> Apply(const Plan& plan, placement::CapacityView& view,
                                    core::JobTable& jobs, absl::Time now) const;

 private:
  core::JobState start_state_;
};

// A CONFIGURING job's launch failed or was not confirmed in time: frees its allocation and
// puts it back to PENDING with `reason` (restart_count unchanged: it never ran).
// FailedPrecondition if the job is not CONFIGURING (nothing changed).
absl::Status AbortLaunch(placement::CapacityView& view, core::Job& job, core::JobReason reason,
                         absl::Time now);

// Takes the capacity of a job recovered from the database with its allocation (after a
// controller restart). FailedPrecondition if the nodes cannot hold it (nothing changed).
absl::Status RestoreAllocation(placement::CapacityView& view, const core::Job& job);

// Ends a job that holds an allocation: frees its capacity (the allocation stays, as where the
// job ran) and moves the job to `final_state` (COMPLETED,
// FAILED, TIMEOUT, CANCELLED, NODE_FAIL, OUT_OF_MEMORY). FailedPrecondition for an illegal
// transition (nothing changed).
absl::Status EndJob(placement::CapacityView& view, core::Job& job, core::JobState final_state,
                    absl::Time now);

// A node under the job failed: frees its capacity and either requeues it (REQUEUED, then
// PENDING with restart_count + 1, no allocation) or, for a --no-requeue job, ends it as
// NODE_FAIL (keeping the allocation as where it ran).
// FailedPrecondition if the job is not running (nothing changed).
absl::Status FailJobOnNodeLoss(placement::CapacityView& view, core::Job& job, absl::Time now);

}  // namespace canopy::plan
