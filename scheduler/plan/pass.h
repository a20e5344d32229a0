// RunPass: one scheduling pass as a pure function.
//
// Inputs: the capacity view (not modified: the pass works on a private copy so later jobs see
// the capacity earlier starts in the same pass take), the pending jobs best-first (a QueueSort's
// output), the pass time, and a placement policy. Output: a Plan. Same inputs give the same plan.
//
// The pass tries jobs in order and starts every job that fits now (gang, all or nothing: a job
// gets all its nodes from one placement or none). A job that does not fit does not block the
// ones after it; EASY backfill reservations are not implemented yet
// (docs/design/scheduling_pass.md). Cost control, so a pass stays far from O(pending × nodes):
//   * skip identical: once a job of a shape (nodes, GPUs/CPUs/memory per node, GPU type,
//     exclusive, partition; no -w/-x/--switches) failed, later jobs of that shape are not
//     placed again in this pass (Slurm does the same); capacity only shrinks during a pass, so
//     they could not fit either;
//   * a job asking for more GPUs than are free on open nodes cluster-wide is skipped without
//     calling the policy (O(roots));
//   * while no GPU is free anywhere, GPU jobs are passed over without a note (they keep their
//     previous reason), so a long queue on a full cluster costs O(pending) comparisons;
//   * optionally, at most `max_policy_calls` placements per pass; later jobs keep reason Priority.
// Thread-safe (no shared state).
#pragma once

#include <cstdint>

#include "absl/time/time.h"
#include "absl/types/span.h"
#include "scheduler/core/job.h"
#include "scheduler/placement/capacity_view.h"
#include "scheduler/placement/policy.h"
#include "scheduler/placement/request.h"
#include "scheduler/plan/plan.h"

namespace canopy::plan {

struct PassOptions {
  int32_t max_policy_calls = 0;  // 0 = no cap
  bool skip_identical = true;
  // Fill PlannedStart::min_units_possible for multi-node jobs (costs one eligibility scan per
  // multi-node start; the simulator's min_switch_frac metric needs it).
  bool compute_min_units = false;
};

// Fewest units (leaf switches) that any placement of `request` could use on `view` now, over
// every fabric; -1 if it cannot be placed at all. O(nodes visited + units log units).
int32_t MinUnitsPossible(const placement::CapacityView& view,
                         const placement::PlacementRequest& request, absl::Time now);

// `pending` must hold PENDING jobs, best first. Jobs in other states are ignored.
Plan RunPass(const placement::CapacityView& view, absl::Span<const core::Job* const> pending,
             absl::Time now, const placement::PlacementPolicy& policy,
             const PassOptions& options = {});

}  // namespace canopy::plan
