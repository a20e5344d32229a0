// Plan: what one scheduling pass decided, before anything is committed.
//
// Produced by RunPass (pass.h), a pure function of (capacity view, running jobs, ordered pending
// jobs, time, placement policy); committed by PlanApplier (applier.h), which re-checks every start
// against the state at apply time (nomad's plan/plan-apply split). Reservations are not committed:
// they are what the pass promised to keep free, for `squeue --start` and the next pass to see.
// Plain value types.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "scheduler/core/ids.h"
#include "scheduler/core/job.h"
#include "scheduler/placement/result.h"

namespace canopy::plan {

// One job to start, with the nodes and GPUs placement chose.
struct PlannedStart {
  core::JobId job;
  std::vector<core::NodeShare> nodes;  // ascending NodeId
  bool exclusive = false;
  placement::Explanation explanation;  // leaf switches used, domain, ...
  // Fewest units (leaf switches) any placement of this job could have used on the capacity left
  // at that point of the pass, cluster-wide; -1 when not computed (PassOptions).
  int32_t min_units_possible = -1;
};

// Backfill's promise to a pending job that cannot start now: the earliest time at which its
// placement policy found nodes for it on the capacity expected to be free for its whole time
// limit, judged by the time limits of the running jobs and of the reservations made before it in
// the same pass. Later jobs started in that pass do not touch these shares before `end`.
struct PlannedReservation {
  core::JobId job;
  absl::Time start;                    // expected start (a multiple of bf_resolution)
  absl::Time end;                      // start + time limit; InfiniteFuture when unlimited
  std::vector<core::NodeShare> nodes;  // ascending NodeId
  bool exclusive = false;
  placement::Explanation explanation;  // of the placement at `start`
};

// A job that stays pending, and why (squeue's reason).
struct PendingNote {
  core::JobId job;
  core::JobReason reason = core::JobReason::kResources;
  bool infeasible = false;  // can never run on this cluster as configured
  std::string detail;       // placement's sentence, or why the pass skipped it
};

struct PassStats {
  int32_t considered = 0;    // jobs looked at
  int32_t policy_calls = 0;  // placements attempted
  int32_t placed = 0;
  int32_t skipped_identical = 0;  // same shape already failed in this pass
  int32_t skipped_capacity = 0;   // more GPUs than are free anywhere
  int32_t infeasible = 0;
  int32_t beyond_depth = 0;  // not tried: the per-pass cap was reached
  int32_t not_reached = 0;   // GPU jobs passed over because no GPU at all was free
  // Backfill (PassOptions::backfill).
  int32_t backfill_tests = 0;         // jobs searched for a reservation (<= bf_max_job_test)
  int32_t backfill_policy_calls = 0;  // placements on future capacity (not in policy_calls)
  int32_t reserved = 0;               // reservations made
  int32_t held_back = 0;              // fit now, but would delay a reservation (Priority)
  int32_t backfill_gave_up = 0;       // searches stopped after too many refused placements
  // sched/builtin (PassOptions::strict_order): not tried, a job before them in their partition
  // could not start (Priority).
  int32_t blocked = 0;
  int32_t limited = 0;  // passed over: a QOS or association limit (limits/limit_usage.h)
};

struct Plan {
  absl::Time time;
  std::vector<PlannedStart> starts;  // in queue order
  std::vector<PendingNote> pending;  // in queue order
  // Backfill only: in queue order; each job also has a PendingNote (reason Resources or Priority).
  std::vector<PlannedReservation> reservations;
  PassStats stats;
};

}  // namespace canopy::plan
