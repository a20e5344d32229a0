// placement/canopy: Canopy's default, topology- and fragmentation-aware placement policy.
//
// Assumptions: jobs are gangs of identical per-node shares; communication cost grows with the
// switch level a job spans and with the number of leaf switches it uses; future gangs need whole
// nodes under few leaves. Algorithm (details and complexity in docs/design/placement.md):
//   1. Gangs: among domains (switches, blocks) that hold enough eligible nodes and every required
//      node, take the lowest level; within it the fewest units (leaf switches, or blocks), then
//      the tightest fit (fewest eligible nodes), then the lowest id. With --switches=K in force,
//      only domains whose minimum unit count is <= K qualify, going up levels if needed; if none
//      does, the job waits (kSwitchLimit) until its wait runs out, then K is waived.
//   2. Inside the domain: the fewest units; among the sets of that size, keep the units with the
//      most eligible nodes free (largest first) and consume the small, fragmented ones; equal
//      units prefer a parent already used, then the lowest id. The same rule picks blocks
//      inside a leaf.
//      Inside a group: required nodes, then partly used nodes with the tightest GPU fit, then
//      the lowest NodeId.
//   3. One-node shared jobs (smaller than a node): the partly used node in the busiest unit
//      (fewest idle nodes) that fits, tightest GPU fit; else an idle node in the busiest unit.
//      Unit aggregates prune the search, so this does not scan every node.
// Stateless and thread-safe.
#pragma once

#include "absl/strings/string_view.h"
#include "scheduler/placement/policy.h"

namespace canopy::placement {

class CanopyPolicy final : public PlacementPolicy {
 public:
  static constexpr absl::string_view kName = "placement/canopy";

  absl::string_view name() const override { return kName; }
  PlacementResult Place(const CapacityView& view, const PlacementRequest& request,
                        absl::Time now) const override;
};

}  // namespace canopy::placement
