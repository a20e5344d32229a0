// Choosing whom to preempt: a pending job that cannot start (a preemptor) may take capacity
// from running jobs it is allowed to preempt (candidates; the lifecycle decides who may preempt
// whom: preempt/qos, preempt/partition_prio). The victims are chosen so that
//   1. the preemptor lands as well as it could if every candidate were gone: the fewest leaf
//      switches (then the lowest switch level) the placement policy can find, and
//   2. among victim sets that allow that, the work thrown away is small: candidates are tried
//      most expensive first (cost = GPU-hours since their last start, what a requeue loses), and
//      each is spared if the preemptor still lands as well without its capacity. A preemptor
//      that fits under one leaf switch is also tried on each leaf alone (up to 64 leaves), and
//      the cheapest plan wins.
// The result is a local minimum (no single victim can be spared), not the exact optimum, which
// is a knapsack over placements.
//
// Pure: reads the capacity view and calls the placement policy; O(victims x log candidates)
// policy calls per order tried, each on a copy of the view.
#pragma once

#include <optional>
#include <vector>

#include "absl/time/time.h"
#include "absl/types/span.h"
#include "scheduler/core/job.h"
#include "scheduler/placement/capacity_view.h"
#include "scheduler/placement/policy.h"
#include "scheduler/placement/result.h"

namespace canopy::plan {

struct PreemptCandidate {
  core::JobId job;
  absl::Span<const core::NodeShare> nodes;  // what it holds (counted as used in the view)
  bool exclusive = false;
  double cost = 0;  // GPU-hours a preemption would throw away
};

struct PreemptionPlan {
  std::vector<core::JobId> victims;  // by decreasing cost
  double cost = 0;                   // their total
  // Where the preemptor goes once the victims have let go of their nodes.
  placement::PlacementResult placement;
};

// nullopt when the preemptor would not fit even with every candidate gone (or fits now without
// preempting anyone: then it should simply start).
std::optional<PreemptionPlan> PlanPreemption(const placement::CapacityView& view,
                                             const core::Job& preemptor,
                                             absl::Span<const PreemptCandidate> candidates,
                                             absl::Time now,
                                             const placement::PlacementPolicy& policy);

}  // namespace canopy::plan
