// DomainTree: the hierarchy placement walks, derived once from a Topology.
//
// Placement needs one tree whatever the topology looks like, so this folds switches, blocks and
// loose nodes into "domains":
//   * switch tree only: one domain per switch; a leaf switch holds its nodes;
//   * switch tree + blocks (each block inside one leaf): a leaf switch's children are its blocks
//     plus one "loose" group for its nodes in no block;
//   * blocks only (Slurm topology/block): base blocks hold nodes; BlockSizes aggregates of
//     adjacent blocks sit above them; the largest aggregates are roots;
//   * nothing: one domain holding the whole cluster;
//   * and in every case each node outside the structure is a root domain of its own, so it can
//     never share a job with another node (Slurm's rule).
// Level 0 domains ("groups") hold nodes; a domain's level is 1 + its highest child level. The
// "units" are the domains that --switches=K counts: leaf switches when there are switches, else
// base blocks, else the whole cluster (and every lone node).
//
// Domains are numbered in depth-first pre-order, so a domain's nodes are a contiguous slice of
// node_order() and its units a contiguous slice of units(). Immutable; thread-safe to share.
#pragma once

#include <string>
#include <vector>

#include "absl/types/span.h"
#include "scheduler/core/ids.h"
#include "scheduler/topology/topology.h"

namespace canopy::placement {

enum class DomainKind {
  kSwitch,      // ref = SwitchId
  kBlock,       // ref = BlockId
  kBlockGroup,  // adjacent blocks grouped by BlockSizes; ref = first BlockId
  kLooseNodes,  // a leaf switch's nodes that are in no block; ref = the leaf's SwitchId
  kLoneNode,    // a node outside every switch/block; ref = NodeId
  kCluster,     // a flat cluster: every node; ref unused
};

struct Domain {
  DomainKind kind = DomainKind::kCluster;
  int32_t ref = 0;
  int level = 0;        // 0 = holds nodes directly
  int parent = -1;      // domain index; -1 for a root
  int child_begin = 0;  // into DomainTree::children()
  int child_end = 0;
  int node_begin = 0;  // into DomainTree::node_order()
  int node_end = 0;
  int unit_begin = 0;  // into DomainTree::units()
  int unit_end = 0;
  int unit = -1;        // the unit this domain is in or is; -1 if it is above the unit level
  int block_count = 0;  // base blocks inside (for kBlockGroup)
  int node_count() const { return node_end - node_begin; }
};

class DomainTree {
 public:
  explicit DomainTree(const topology::Topology& topology);

  const topology::Topology& topology() const { return *topology_; }
  int size() const { return static_cast<int>(domains_.size()); }
  const Domain& domain(int d) const { return domains_[d]; }
  absl::Span<const Domain> domains() const { return domains_; }
  absl::Span<const int> children(int d) const {
    return absl::MakeConstSpan(children_).subspan(domains_[d].child_begin,
                                                  domains_[d].child_end - domains_[d].child_begin);
  }
  absl::Span<const int> roots() const { return roots_; }
  int max_level() const { return max_level_; }
  // Domains of one level, in index order.
  absl::Span<const int> at_level(int level) const { return by_level_[level]; }

  // Every node, grouped so that each domain's nodes are node_order()[node_begin, node_end); inside
  // a group, NodeId order.
  absl::Span<const core::NodeId> node_order() const { return node_order_; }
  absl::Span<const core::NodeId> nodes(int d) const {
    return absl::MakeConstSpan(node_order_)
        .subspan(domains_[d].node_begin, domains_[d].node_count());
  }
  // The level-0 domain holding the node. O(1).
  int group_of(core::NodeId node) const { return group_of_[node.value()]; }
  // Units in pre-order; a domain's units are units()[unit_begin, unit_end).
  absl::Span<const int> units() const { return units_; }
  absl::Span<const int> units_of(int d) const {
    return absl::MakeConstSpan(units_).subspan(domains_[d].unit_begin,
                                               domains_[d].unit_end - domains_[d].unit_begin);
  }
  // True when units are leaf switches whose children are blocks (switch tree + blocks).
  bool units_have_children() const { return units_have_children_; }

  // A readable name: the switch or block name, "rack1..rack4" for a block group, the node name
  // for a lone node, "cluster" for a flat cluster.
  std::string Name(int d) const;

 private:
  int Add(DomainKind kind, int32_t ref, int parent);
  void AddNodes(int d, absl::Span<const core::NodeId> nodes);
  void BuildSwitch(core::SwitchId sw, int parent);
  void BuildBlockLevel(int level, int first_block, int block_count, int parent);
  void Finish();

  const topology::Topology* topology_;
  std::vector<Domain> domains_;
  std::vector<std::vector<int>> child_lists_;  // used while building
  std::vector<int> children_;
  std::vector<int> roots_;
  std::vector<std::vector<int>> by_level_;
  int max_level_ = 0;
  std::vector<core::NodeId> node_order_;
  std::vector<int> group_of_;
  std::vector<int> units_;
  bool units_have_children_ = false;
};

}  // namespace canopy::placement
