// Queries on the read-only topology model; the construction and validation live in
// topology_builder.cc.
#include "scheduler/topology/topology.h"

#include <algorithm>

#include "absl/base/macros.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace canopy::topology {

const std::string& Topology::node_name(NodeId node) const {
  ABSL_ASSERT(node.valid() && node.value() < node_count());
  return node_names_[node.value()];
}

NodeId Topology::FindNode(absl::string_view name) const {
  auto it = node_index_.find(name);
  return it == node_index_.end() ? NodeId() : it->second;
}

const std::string& Topology::switch_name(SwitchId sw) const {
  ABSL_ASSERT(sw.valid() && sw.value() < switch_count());
  return switches_[sw.value()].name;
}

SwitchId Topology::FindSwitch(absl::string_view name) const {
  auto it = switch_index_.find(name);
  return it == switch_index_.end() ? SwitchId() : it->second;
}

int Topology::level(SwitchId sw) const {
  ABSL_ASSERT(sw.valid() && sw.value() < switch_count());
  return switches_[sw.value()].level;
}

SwitchId Topology::parent(SwitchId sw) const {
  ABSL_ASSERT(sw.valid() && sw.value() < switch_count());
  return switches_[sw.value()].parent;
}

int Topology::depth(SwitchId sw) const {
  ABSL_ASSERT(sw.valid() && sw.value() < switch_count());
  return switches_[sw.value()].depth;
}

absl::Span<const SwitchId> Topology::child_switches(SwitchId sw) const {
  ABSL_ASSERT(sw.valid() && sw.value() < switch_count());
  const SwitchRecord& s = switches_[sw.value()];
  return absl::MakeConstSpan(children_).subspan(s.child_begin, s.child_end - s.child_begin);
}

absl::Span<const NodeId> Topology::leaf_nodes(SwitchId sw) const {
  // A leaf holds nodes only, so its direct nodes are exactly its subtree's nodes.
  if (!is_leaf(sw)) {
    return {};
  }
  return nodes_under(sw);
}

absl::Span<const NodeId> Topology::nodes_under(SwitchId sw) const {
  ABSL_ASSERT(sw.valid() && sw.value() < switch_count());
  const SwitchRecord& s = switches_[sw.value()];
  return absl::MakeConstSpan(dfs_nodes_).subspan(s.node_begin, s.node_end - s.node_begin);
}

absl::Span<const SwitchId> Topology::switches_at_level(int level) const {
  if (level < 0 || level >= static_cast<int>(by_level_.size())) {
    return {};
  }
  return by_level_[level];
}

SwitchId Topology::leaf_of(NodeId node) const {
  ABSL_ASSERT(node.valid() && node.value() < node_count());
  return node_leaf_[node.value()];
}

SwitchId Topology::root_of(NodeId node) const {
  SwitchId sw = leaf_of(node);
  if (!sw.valid()) {
    return sw;
  }
  while (parent(sw).valid()) {
    sw = parent(sw);
  }
  return sw;
}

std::vector<SwitchId> Topology::SwitchPath(NodeId node) const {
  std::vector<SwitchId> path;
  for (SwitchId sw = leaf_of(node); sw.valid(); sw = parent(sw)) {
    path.push_back(sw);
  }
  std::reverse(path.begin(), path.end());
  return path;
}

std::string Topology::TopologyAddress(NodeId node) const {
  std::vector<absl::string_view> parts;
  for (SwitchId sw : SwitchPath(node)) {
    parts.push_back(switch_name(sw));
  }
  parts.push_back(node_name(node));
  return absl::StrJoin(parts, ".");
}

std::string Topology::TopologyAddressPattern(NodeId node) const {
  std::string out;
  for (size_t i = 0, n = SwitchPath(node).size(); i < n; ++i) {
    out += "switch.";
  }
  return out + "node";
}

SwitchId Topology::LowestCommonAncestor(SwitchId a, SwitchId b) const {
  if (!a.valid() || !b.valid()) {
    return SwitchId();
  }
  // Climb the deeper one first, then both together: O(depth) with no allocation.
  while (depth(a) > depth(b)) {
    a = parent(a);
  }
  while (depth(b) > depth(a)) {
    b = parent(b);
  }
  while (a != b) {
    a = parent(a);
    b = parent(b);
    if (!a.valid() || !b.valid()) {
      return SwitchId();
    }
  }
  return a;
}

SwitchId Topology::LowestCommonSwitch(NodeId a, NodeId b) const {
  return LowestCommonAncestor(leaf_of(a), leaf_of(b));
}

std::optional<int> Topology::HopDistance(NodeId a, NodeId b) const {
  if (a == b) {
    return 0;
  }
  SwitchId la = leaf_of(a);
  SwitchId lb = leaf_of(b);
  SwitchId lca = LowestCommonAncestor(la, lb);
  if (!lca.valid()) {
    return std::nullopt;
  }
  // node→leaf and leaf→node, plus the switch-to-switch links up to the common switch and down.
  return 2 + (depth(la) - depth(lca)) + (depth(lb) - depth(lca));
}

absl::Span<const NodeId> Topology::unattached_nodes() const {
  return absl::MakeConstSpan(dfs_nodes_).subspan(attached_count_);
}

const std::string& Topology::block_name(BlockId block) const {
  ABSL_ASSERT(block.valid() && block.value() < block_count());
  return blocks_[block.value()].name;
}

BlockId Topology::FindBlock(absl::string_view name) const {
  auto it = block_index_.find(name);
  return it == block_index_.end() ? BlockId() : it->second;
}

absl::Span<const NodeId> Topology::block_nodes(BlockId block) const {
  ABSL_ASSERT(block.valid() && block.value() < block_count());
  const BlockRecord& b = blocks_[block.value()];
  return absl::MakeConstSpan(block_nodes_).subspan(b.node_begin, b.node_end - b.node_begin);
}

BlockId Topology::block_of(NodeId node) const {
  ABSL_ASSERT(node.valid() && node.value() < node_count());
  return node_block_[node.value()];
}

}  // namespace canopy::topology
