// CommCostModel: how much longer a multi-node job runs when it is placed badly.
//
//   stretch = 1 + alpha × (leaf switches used − ideal leaf switches)
//               + beta  × (level of the lowest common switch − ideal level)
// "Ideal" is for the job's node count on an empty cluster: the fewest leaves that can hold it
// and the lowest switch level whose subtree can. Each extra leaf adds traffic over leaf uplinks
// and each level crossed adds hops and oversubscription. Defaults (alpha 0.10, beta 0.05) and
// their reasoning: docs/design/simulator.md. A job that spans disjoint fabrics (first_fit can do
// that) counts as crossing one level above the top. One-node jobs always get 1.0.
// Immutable after construction; thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "scheduler/core/ids.h"
#include "scheduler/topology/topology.h"

namespace canopy::sim {

struct CommCostOptions {
  bool enabled = true;
  double alpha = 0.10;  // per leaf switch beyond the ideal
  double beta = 0.05;   // per switch level above the ideal
};

struct PlacementShape {
  int32_t leaves = 0;        // leaf switches used
  int32_t ideal_leaves = 0;  // fewest leaves that could hold the job on an empty cluster
  int32_t level = 0;         // level of the lowest common switch (max_level + 1 across fabrics)
  int32_t ideal_level = 0;
};

class CommCostModel {
 public:
  CommCostModel(const topology::Topology& topology, CommCostOptions options);

  // The shape of a placement on `nodes` (ascending NodeIds, at least one).
  PlacementShape Shape(absl::Span<const core::NodeId> nodes) const;
  // The stretch factor (>= 1) for that shape; 1.0 when disabled or for one node.
  double Stretch(const PlacementShape& shape, int32_t node_count) const;
  const CommCostOptions& options() const { return options_; }

 private:
  const topology::Topology* topology_;
  CommCostOptions options_;
  std::vector<int32_t> leaf_sizes_desc_;  // leaf sizes, largest first
  std::vector<int32_t> max_under_level_;  // per level: most nodes under one switch
};

}  // namespace canopy::sim
