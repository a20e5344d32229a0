// DomainTree construction: folds switches, blocks and lone nodes into one pre-ordered tree.
#include "scheduler/placement/domain_tree.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace canopy::placement {

using core::BlockId;
using core::NodeId;
using core::SwitchId;

DomainTree::DomainTree(const topology::Topology& topology) : topology_(&topology) {
  const topology::Topology& topo = topology;
  group_of_.assign(topo.node_count(), -1);
  node_order_.reserve(topo.node_count());

  // Each builder call adds a domain in pre-order, recurses, then closes its ranges; `unit` is the
  // unit domain the recursion is inside (-1 above the unit level).
  if (topo.has_switches()) {
    units_have_children_ = topo.has_blocks();
    for (SwitchId root : topo.roots()) {
      BuildSwitch(root, -1);
    }
  } else if (topo.has_blocks()) {
    absl::Span<const int> sizes = topo.block_sizes();
    const int top = static_cast<int>(sizes.size()) - 1;
    const int per_top = sizes[top] / sizes[0];
    for (int first = 0; first < topo.block_count(); first += per_top) {
      BuildBlockLevel(top, first, std::min(per_top, topo.block_count() - first), -1);
    }
  } else if (topo.node_count() > 0) {
    int d = Add(DomainKind::kCluster, 0, -1);
    units_.push_back(d);
    domains_[d].unit = d;
    std::vector<NodeId> all;
    for (int i = 0; i < topo.node_count(); ++i) {
      all.push_back(NodeId(i));
    }
    AddNodes(d, all);
    domains_[d].unit_end = static_cast<int>(units_.size());
  }
  // Nodes outside the structure: each is its own root and unit. With no structure at all the
  // cluster domain above already holds them.
  if (topo.has_switches() || topo.has_blocks()) {
    for (int i = 0; i < topo.node_count(); ++i) {
      NodeId node(i);
      bool placed = topo.has_switches() ? topo.leaf_of(node).valid() : topo.block_of(node).valid();
      if (placed) {
        continue;
      }
      int d = Add(DomainKind::kLoneNode, i, -1);
      units_.push_back(d);
      domains_[d].unit = d;
      AddNodes(d, {&node, 1});
      domains_[d].unit_end = static_cast<int>(units_.size());
    }
  }
  Finish();
}

int DomainTree::Add(DomainKind kind, int32_t ref, int parent) {
  int d = static_cast<int>(domains_.size());
  Domain dom;
  dom.kind = kind;
  dom.ref = ref;
  dom.parent = parent;
  dom.node_begin = dom.node_end = static_cast<int>(node_order_.size());
  dom.unit_begin = dom.unit_end = static_cast<int>(units_.size());
  dom.unit = parent >= 0 ? domains_[parent].unit : -1;
  domains_.push_back(dom);
  child_lists_.emplace_back();
  if (parent >= 0) {
    child_lists_[parent].push_back(d);
  } else {
    roots_.push_back(d);
  }
  return d;
}

void DomainTree::AddNodes(int d, absl::Span<const NodeId> nodes) {
  for (NodeId n : nodes) {
    group_of_[n.value()] = d;
    node_order_.push_back(n);
  }
  domains_[d].node_end = static_cast<int>(node_order_.size());
}

void DomainTree::BuildSwitch(SwitchId sw, int parent) {
  const topology::Topology& topo = *topology_;
  int d = Add(DomainKind::kSwitch, sw.value(), parent);
  if (topo.is_leaf(sw)) {
    units_.push_back(d);
    domains_[d].unit = d;
    if (units_have_children_) {
      // Blocks inside this leaf (BlockId order), then its nodes in no block as one group.
      std::vector<BlockId> blocks;
      std::vector<NodeId> loose;
      for (NodeId n : topo.leaf_nodes(sw)) {
        BlockId b = topo.block_of(n);
        if (!b.valid()) {
          loose.push_back(n);
        } else if (std::find(blocks.begin(), blocks.end(), b) == blocks.end()) {
          blocks.push_back(b);
        }
      }
      std::sort(blocks.begin(), blocks.end());
      for (BlockId b : blocks) {
        int child = Add(DomainKind::kBlock, b.value(), d);
        AddNodes(child, topo.block_nodes(b));
      }
      if (!loose.empty()) {
        int child = Add(DomainKind::kLooseNodes, sw.value(), d);
        AddNodes(child, loose);
      }
    } else {
      AddNodes(d, topo.leaf_nodes(sw));
    }
  } else {
    for (SwitchId child : topo.child_switches(sw)) {
      BuildSwitch(child, d);
    }
  }
  domains_[d].node_end = static_cast<int>(node_order_.size());
  domains_[d].unit_end = static_cast<int>(units_.size());
}

void DomainTree::BuildBlockLevel(int level, int first_block, int block_count, int parent) {
  const topology::Topology& topo = *topology_;
  if (level == 0) {
    int d = Add(DomainKind::kBlock, first_block, parent);
    units_.push_back(d);
    domains_[d].unit = d;
    domains_[d].block_count = 1;
    AddNodes(d, topo.block_nodes(BlockId(first_block)));
    domains_[d].unit_end = static_cast<int>(units_.size());
    return;
  }
  int d = Add(DomainKind::kBlockGroup, first_block, parent);
  domains_[d].block_count = block_count;
  absl::Span<const int> sizes = topo.block_sizes();
  const int per_child = sizes[level - 1] / sizes[0];
  for (int b = first_block; b < first_block + block_count; b += per_child) {
    BuildBlockLevel(level - 1, b, std::min(per_child, first_block + block_count - b), d);
  }
  domains_[d].node_end = static_cast<int>(node_order_.size());
  domains_[d].unit_end = static_cast<int>(units_.size());
}

void DomainTree::Finish() {
  // Children in one array; levels bottom-up (reverse pre-order sees children first).
  for (size_t d = 0; d < domains_.size(); ++d) {
    domains_[d].child_begin = static_cast<int>(children_.size());
    children_.insert(children_.end(), child_lists_[d].begin(), child_lists_[d].end());
    domains_[d].child_end = static_cast<int>(children_.size());
  }
  child_lists_.clear();
  child_lists_.shrink_to_fit();
  for (int d = static_cast<int>(domains_.size()) - 1; d >= 0; --d) {
    int level = 0;
    for (int c : children(d)) {
      level = std::max(level, domains_[c].level + 1);
    }
    domains_[d].level = level;
    max_level_ = std::max(max_level_, level);
  }
  by_level_.assign(max_level_ + 1, {});
  for (int d = 0; d < static_cast<int>(domains_.size()); ++d) {
    by_level_[domains_[d].level].push_back(d);
  }
}

std::string DomainTree::Name(int d) const {
  const Domain& dom = domains_[d];
  const topology::Topology& topo = *topology_;
  switch (dom.kind) {
    case DomainKind::kSwitch:
      return topo.switch_name(SwitchId(dom.ref));
    case DomainKind::kBlock:
      return topo.block_name(BlockId(dom.ref));
    case DomainKind::kBlockGroup:
      return absl::StrCat(topo.block_name(BlockId(dom.ref)), "..",
                          topo.block_name(BlockId(dom.ref + dom.block_count - 1)));
    case DomainKind::kLooseNodes:
      return absl::StrCat(topo.switch_name(SwitchId(dom.ref)), "(no block)");
    case DomainKind::kLoneNode:
      return topo.node_name(NodeId(dom.ref));
    case DomainKind::kCluster:
      return "cluster";
  }
  return "";
}

}  // namespace canopy::placement
