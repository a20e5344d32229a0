// placement/slurm_tree: a baseline that behaves like Slurm 22.05's topology/tree.
//
// As observed and described in SLURM-NOTES.md: the lowest switch whose subtree has enough
// eligible nodes (the fewest such nodes among equals, then the lowest id); then its leaf
// switches are added one at a time: the leaf with the fewest eligible nodes that still covers
// the rest of the request, else the leaf with the most; ties to the lowest-numbered leaf. Inside
// a leaf, the lowest-numbered eligible nodes (first fit, no GPU best fit). One-node jobs follow
// the same rule (the leaf with the fewest usable nodes, then its first node). With --switches=K
// in force and more than K leaves used, the job waits (Reason=Resources, as Slurm shows it).
// Node weights, switch distances and dragonfly are not modelled. Stateless and thread-safe.
#pragma once

#include "absl/strings/string_view.h"
#include "scheduler/placement/policy.h"

namespace canopy::placement {

class SlurmTreePolicy final : public PlacementPolicy {
 public:
  static constexpr absl::string_view kName = "placement/slurm_tree";

  absl::string_view name() const override { return kName; }
  PlacementResult Place(const CapacityView& view, const PlacementRequest& request,
                        absl::Time now) const override;
};

}  // namespace canopy::placement
