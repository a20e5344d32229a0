// Topology: the read-only model of a cluster's network, built once from the configuration.
//
// A forest of switches in levels (leaf switches hold nodes, level 0; inner switches hold switches,
// level = 1 + the highest level among their children), plus an optional list of blocks (Slurm's
// topology/block: scale-up domains such as a 72-GPU NVLink rack) and the block sizes that group
// adjacent blocks into larger ones. Nodes outside every switch are allowed; they never share a job
// with other nodes (as in Slurm). With no switches and no blocks the cluster is flat.
//
// Ids are dense: NodeId = index in ClusterConfig::nodes, SwitchId = declaration order of the
// switch, BlockId = declaration order of the block. Occupancy is not stored here (it lives in the
// state and in placement's CapacityView). Built by TopologyBuilder (topology_builder.h) or
// LoadTopology (load_topology.h). Immutable after build, so it is safe to share between threads;
// copyable and movable. Accessors taking an id require a valid, in-range id (ABSL_ASSERT, debug
// builds).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "scheduler/core/ids.h"

namespace canopy::topology {

using core::BlockId;
using core::NodeId;
using core::SwitchId;

class Topology {
 public:
  // An empty topology: no nodes, no switches.
  Topology() = default;

  // ---- Nodes ------------------------------------------------------------------------------
  // O(1).
  int node_count() const { return static_cast<int>(node_names_.size()); }
  const std::string& node_name(NodeId node) const;
  // The node with that name, or an invalid id. O(1) expected (hash lookup; never iterated).
  NodeId FindNode(absl::string_view name) const;

  // ---- Switches ---------------------------------------------------------------------------
  // O(1) unless noted.
  int switch_count() const { return static_cast<int>(switches_.size()); }
  bool has_switches() const { return !switches_.empty(); }
  const std::string& switch_name(SwitchId sw) const;
  // The switch with that name, or an invalid id. O(1) expected.
  SwitchId FindSwitch(absl::string_view name) const;
  // 0 for a leaf switch; 1 + the highest child level otherwise.
  int level(SwitchId sw) const;
  // The highest switch level, or -1 without switches.
  int max_level() const { return max_level_; }
  bool is_leaf(SwitchId sw) const { return level(sw) == 0; }
  // The parent switch, or an invalid id for a root.
  SwitchId parent(SwitchId sw) const;
  // Distance from the switch's root (a root has depth 0).
  int depth(SwitchId sw) const;
  // Child switches in declaration order; empty for a leaf.
  absl::Span<const SwitchId> child_switches(SwitchId sw) const;
  // The nodes directly under a leaf switch, in NodeId order; empty for an inner switch.
  absl::Span<const NodeId> leaf_nodes(SwitchId sw) const;
  // Every node under the switch: a contiguous slice of dfs_nodes(), so O(1) and allocation-free.
  absl::Span<const NodeId> nodes_under(SwitchId sw) const;
  // Switches without a parent, in id order. Disjoint roots are separate fabrics: no job spans two.
  absl::Span<const SwitchId> roots() const { return roots_; }
  // All leaf switches, in id order.
  absl::Span<const SwitchId> leaves() const { return leaves_; }
  // All switches at `level`, in id order; empty for a level that does not exist.
  absl::Span<const SwitchId> switches_at_level(int level) const;

  // ---- Node <-> switch queries ------------------------------------------------------------
  // The leaf switch holding the node, or an invalid id if the node is under no switch. O(1).
  SwitchId leaf_of(NodeId node) const;
  // The root switch above the node, or invalid. O(depth).
  SwitchId root_of(NodeId node) const;
  // The node's switches from its root down to its leaf; empty if the node is under no switch.
  // O(depth).
  std::vector<SwitchId> SwitchPath(NodeId node) const;
  // Slurm's SLURM_TOPOLOGY_ADDR: switch names root→leaf then the node, dot-separated
  // ("core001.spine001.leaf001.gpu001"); just the node name for a node under no switch. O(depth).
  std::string TopologyAddress(NodeId node) const;
  // Slurm's SLURM_TOPOLOGY_ADDR_PATTERN for the same node ("switch.switch.switch.node"). O(depth).
  std::string TopologyAddressPattern(NodeId node) const;
  // The lowest switch above both (a switch counts as above itself), or invalid if they are in
  // different fabrics. O(depth).
  SwitchId LowestCommonAncestor(SwitchId a, SwitchId b) const;
  // The lowest switch above both nodes, or invalid (different fabrics, or a node under no
  // switch). For a == b it is the node's leaf. O(depth).
  SwitchId LowestCommonSwitch(NodeId a, NodeId b) const;
  // Links on the path between two nodes: 0 for the same node, 2 under one leaf, 4 via a spine,
  // and so on (2 + the switch-to-switch links). nullopt when no path exists (different fabrics,
  // or a node under no switch). O(depth).
  std::optional<int> HopDistance(NodeId a, NodeId b) const;
  // Every node under some switch, in depth-first order (roots in id order, children in
  // declaration order, a leaf's nodes in NodeId order), followed by the nodes under no switch in
  // NodeId order. Each switch's nodes_under() is a slice of this.
  absl::Span<const NodeId> dfs_nodes() const { return dfs_nodes_; }
  // The nodes under no switch, in NodeId order (all nodes when there are no switches).
  absl::Span<const NodeId> unattached_nodes() const;

  // ---- Blocks (topology/block) ------------------------------------------------------------
  int block_count() const { return static_cast<int>(blocks_.size()); }
  bool has_blocks() const { return !blocks_.empty(); }
  const std::string& block_name(BlockId block) const;
  // The block with that name, or an invalid id. O(1) expected.
  BlockId FindBlock(absl::string_view name) const;
  // The block's nodes in NodeId order. O(1).
  absl::Span<const NodeId> block_nodes(BlockId block) const;
  // The node's block, or an invalid id. O(1).
  BlockId block_of(NodeId node) const;
  // Slurm's BlockSizes: the base block size, then each enforced aggregate size (a power-of-two
  // multiple of the one before). An aggregate of size s groups s / block_sizes()[0] adjacent
  // blocks in BlockId order. Filled with a default when the source gave none (see
  // TopologyBuilder::SetBlockSizes). Empty without blocks.
  absl::Span<const int> block_sizes() const { return block_sizes_; }

 private:
  friend class TopologyBuilder;

  struct SwitchRecord {
    std::string name;
    int level = 0;
    int depth = 0;
    SwitchId parent;
    int child_begin = 0;  // into children_
    int child_end = 0;
    int node_begin = 0;  // into dfs_nodes_
    int node_end = 0;
  };
  struct BlockRecord {
    std::string name;
    int node_begin = 0;  // into block_nodes_
    int node_end = 0;
  };

  std::vector<std::string> node_names_;
  absl::flat_hash_map<std::string, NodeId> node_index_;
  std::vector<SwitchId> node_leaf_;
  std::vector<BlockId> node_block_;

  std::vector<SwitchRecord> switches_;
  absl::flat_hash_map<std::string, SwitchId> switch_index_;
  std::vector<SwitchId> children_;
  std::vector<SwitchId> roots_;
  std::vector<SwitchId> leaves_;
  std::vector<std::vector<SwitchId>> by_level_;
  int max_level_ = -1;
  std::vector<NodeId> dfs_nodes_;
  int attached_count_ = 0;  // dfs_nodes_[attached_count_..] are the unattached nodes

  std::vector<BlockRecord> blocks_;
  absl::flat_hash_map<std::string, BlockId> block_index_;
  std::vector<NodeId> block_nodes_;
  std::vector<int> block_sizes_;
};

}  // namespace canopy::topology
