// Communication cost model (comm_model.h).
#include "scheduler/sim/comm_model.h"

#include <algorithm>
#include <functional>

namespace canopy::sim {

CommCostModel::CommCostModel(const topology::Topology& topology, CommCostOptions options)
    : topology_(&topology), options_(options) {
  for (core::SwitchId leaf : topology.leaves()) {
    leaf_sizes_desc_.push_back(static_cast<int32_t>(topology.leaf_nodes(leaf).size()));
  }
  std::sort(leaf_sizes_desc_.begin(), leaf_sizes_desc_.end(), std::greater<>());
  max_under_level_.assign(std::max(0, topology.max_level() + 1), 0);
  for (int level = 0; level <= topology.max_level(); ++level) {
    for (core::SwitchId sw : topology.switches_at_level(level)) {
      max_under_level_[level] = std::max<int32_t>(
          max_under_level_[level], static_cast<int32_t>(topology.nodes_under(sw).size()));
    }
  }
}

PlacementShape CommCostModel::Shape(absl::Span<const core::NodeId> nodes) const {
  PlacementShape s;
  const int32_t n = static_cast<int32_t>(nodes.size());
  if (n == 0 || !topology_->has_switches()) {
    s.leaves = s.ideal_leaves = n > 0 ? 1 : 0;
    return s;
  }
  std::vector<core::SwitchId> leaves;
  leaves.reserve(nodes.size());
  for (core::NodeId node : nodes) {
    leaves.push_back(topology_->leaf_of(node));
  }
  std::sort(leaves.begin(), leaves.end());
  leaves.erase(std::unique(leaves.begin(), leaves.end()), leaves.end());
  s.leaves = static_cast<int32_t>(leaves.size());
  int32_t covered = 0;
  for (int32_t size : leaf_sizes_desc_) {
    if (covered >= n) {
      break;
    }
    covered += size;
    ++s.ideal_leaves;
  }
  s.ideal_level = topology_->max_level();
  for (int level = 0; level < static_cast<int>(max_under_level_.size()); ++level) {
    if (max_under_level_[level] >= n) {
      s.ideal_level = level;
      break;
    }
  }
  core::SwitchId lca = leaves[0];
  bool split = !lca.valid();
  for (size_t i = 1; i < leaves.size() && !split; ++i) {
    lca = leaves[i].valid() ? topology_->LowestCommonAncestor(lca, leaves[i]) : core::SwitchId();
    split = !lca.valid();
  }
  s.level = split ? topology_->max_level() + 1 : topology_->level(lca);
  return s;
}

double CommCostModel::Stretch(const PlacementShape& shape, int32_t node_count) const {
  if (!options_.enabled || node_count <= 1) {
    return 1.0;
  }
  return 1.0 + options_.alpha * std::max(0, shape.leaves - shape.ideal_leaves) +
         options_.beta * std::max(0, shape.level - shape.ideal_level);
}

}  // namespace canopy::sim
