// TopologyBuilder: structural validation of switch and block declarations.
#include "scheduler/topology/topology_builder.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace canopy::topology {
namespace {

absl::Status Error(absl::string_view where, absl::string_view message) {
  if (where.empty()) {
    return absl::InvalidArgumentError(message);
  }
  return absl::InvalidArgumentError(absl::StrCat(where, ": ", message));
}

// "topology.conf:3" -> " (topology.conf:3)", used when a message mentions an earlier declaration.
std::string At(absl::string_view where) {
  return where.empty() ? std::string() : absl::StrCat(" (", where, ")");
}

bool IsPowerOfTwo(int v) { return v > 0 && (v & (v - 1)) == 0; }

}  // namespace

TopologyBuilder::TopologyBuilder(std::vector<std::string> node_names)
    : node_names_(std::move(node_names)) {}

void TopologyBuilder::AddSwitch(std::string name, std::vector<std::string> nodes,
                                std::vector<std::string> switches, std::string where) {
  switches_.push_back({std::move(name), std::move(nodes), std::move(switches), std::move(where)});
}

void TopologyBuilder::AddBlock(std::string name, std::vector<std::string> nodes,
                               std::string where) {
  blocks_.push_back({std::move(name), std::move(nodes), std::move(where)});
}

void TopologyBuilder::SetBlockSizes(std::vector<int> sizes, std::string where) {
  block_sizes_ = std::move(sizes);
  block_sizes_where_ = std::move(where);
  block_sizes_set_ = true;
}

absl::StatusOr<Topology> TopologyBuilder::Build() && {
  Topology topo;
  if (absl::Status s = BuildNodes(topo); !s.ok()) {
    return s;
  }
  if (absl::Status s = BuildSwitches(topo); !s.ok()) {
    return s;
  }
  if (absl::Status s = BuildBlocks(topo); !s.ok()) {
    return s;
  }
  return topo;
}

absl::Status TopologyBuilder::BuildNodes(Topology& topo) const {
  topo.node_names_ = node_names_;
  topo.node_index_.reserve(node_names_.size());
  for (size_t i = 0; i < node_names_.size(); ++i) {
    auto [it, inserted] = topo.node_index_.emplace(node_names_[i], NodeId(static_cast<int32_t>(i)));
    if (!inserted) {
      return absl::InvalidArgumentError(
          absl::StrCat("node '", node_names_[i], "' is defined twice in the cluster"));
    }
  }
  topo.node_leaf_.assign(node_names_.size(), SwitchId());
  topo.node_block_.assign(node_names_.size(), BlockId());
  return absl::OkStatus();
}

absl::Status TopologyBuilder::BuildSwitches(Topology& topo) const {
  const int n = static_cast<int>(switches_.size());
  topo.switches_.resize(n);
  for (int i = 0; i < n; ++i) {
    const SwitchDecl& d = switches_[i];
    if (d.name.empty()) {
      return Error(d.where, "switch with an empty name");
    }
    auto [it, inserted] = topo.switch_index_.emplace(d.name, SwitchId(i));
    if (!inserted) {
      return Error(d.where, absl::StrCat("switch '", d.name, "' is defined twice (first",
                                         At(switches_[it->second.value()].where), ")"));
    }
    topo.switches_[i].name = d.name;
    if (!d.nodes.empty() && !d.switches.empty()) {
      return Error(d.where, absl::StrCat("switch '", d.name,
                                         "' has both nodes and child switches; a leaf switch "
                                         "holds nodes, an inner switch holds switches"));
    }
    if (d.nodes.empty() && d.switches.empty()) {
      return Error(d.where,
                   absl::StrCat("switch '", d.name, "' has neither nodes nor child switches"));
    }
  }

  // Leaves: each node under at most one leaf switch.
  std::vector<std::vector<NodeId>> leaf_nodes(n);
  for (int i = 0; i < n; ++i) {
    const SwitchDecl& d = switches_[i];
    for (const std::string& name : d.nodes) {
      NodeId node = topo.FindNode(name);
      if (!node.valid()) {
        return Error(d.where, absl::StrCat("switch '", d.name, "': unknown node '", name,
                                           "' (not defined in the cluster's nodes)"));
      }
      SwitchId& leaf = topo.node_leaf_[node.value()];
      if (leaf.valid()) {
        if (leaf.value() == i) {
          return Error(d.where,
                       absl::StrCat("switch '", d.name, "' lists node '", name, "' twice"));
        }
        return Error(d.where,
                     absl::StrCat("node '", name, "' is under two leaf switches: '",
                                  switches_[leaf.value()].name, "'",
                                  At(switches_[leaf.value()].where), " and '", d.name, "'"));
      }
      leaf = SwitchId(i);
      leaf_nodes[i].push_back(node);
    }
    std::sort(leaf_nodes[i].begin(), leaf_nodes[i].end());
  }

  // Inner switches: resolve children, each switch has at most one parent.
  std::vector<std::vector<SwitchId>> children(n);
  for (int i = 0; i < n; ++i) {
    const SwitchDecl& d = switches_[i];
    for (const std::string& name : d.switches) {
      SwitchId child = topo.FindSwitch(name);
      if (!child.valid()) {
        return Error(d.where,
                     absl::StrCat("switch '", d.name, "': unknown child switch '", name, "'"));
      }
      if (child.value() == i) {
        return Error(d.where, absl::StrCat("switch cycle: '", d.name, "' lists itself"));
      }
      SwitchId& parent = topo.switches_[child.value()].parent;
      if (parent.valid()) {
        if (parent.value() == i) {
          return Error(d.where,
                       absl::StrCat("switch '", d.name, "' lists child '", name, "' twice"));
        }
        return Error(
            d.where,
            absl::StrCat("switch '", name, "' has two parents: '", switches_[parent.value()].name,
                         "'", At(switches_[parent.value()].where), " and '", d.name, "'"));
      }
      parent = SwitchId(i);
      children[i].push_back(child);
    }
  }

  // Roots in id order; depth-first from them. A switch not reached sits on a cycle (every switch
  // has at most one parent, so the only way to have no root above is a loop).
  std::vector<char> visited(n, 0);
  std::vector<int> order;  // pre-order
  order.reserve(n);
  for (int i = 0; i < n; ++i) {
    if (topo.switches_[i].parent.valid()) {
      continue;
    }
    topo.roots_.push_back(SwitchId(i));
    std::vector<int> stack = {i};
    while (!stack.empty()) {
      int s = stack.back();
      stack.pop_back();
      visited[s] = 1;
      order.push_back(s);
      const auto& ch = children[s];
      for (auto it = ch.rbegin(); it != ch.rend(); ++it) {
        topo.switches_[it->value()].depth = topo.switches_[s].depth + 1;
        stack.push_back(it->value());
      }
    }
  }
  for (int i = 0; i < n; ++i) {
    if (visited[i]) {
      continue;
    }
    // Walk parents from i until a switch repeats; that loop is the cycle to report.
    std::vector<int> seen_at(n, -1);
    std::vector<int> walk;
    int s = i;
    while (seen_at[s] < 0) {
      seen_at[s] = static_cast<int>(walk.size());
      walk.push_back(s);
      s = topo.switches_[s].parent.value();
    }
    std::vector<int> cycle(walk.begin() + seen_at[s], walk.end());
    std::reverse(cycle.begin(), cycle.end());  // parent -> child reads naturally
    // Start from the first-declared switch so the message does not depend on the walk.
    std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
    s = cycle.front();
    std::vector<std::string> names;
    for (int k : cycle) {
      names.push_back(switches_[k].name);
    }
    names.push_back(names.front());
    return Error(switches_[s].where, absl::StrCat("switch cycle: ", absl::StrJoin(names, " -> "),
                                                  " (these switches reach no root)"));
  }

  // Levels bottom-up (reverse pre-order visits children before parents).
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    Topology::SwitchRecord& rec = topo.switches_[*it];
    rec.level = 0;
    for (SwitchId c : children[*it]) {
      rec.level = std::max(rec.level, topo.switches_[c.value()].level + 1);
    }
    topo.max_level_ = std::max(topo.max_level_, rec.level);
  }

  // Children ranges, DFS node order and per-switch node ranges.
  for (int i = 0; i < n; ++i) {
    topo.switches_[i].child_begin = static_cast<int>(topo.children_.size());
    topo.children_.insert(topo.children_.end(), children[i].begin(), children[i].end());
    topo.switches_[i].child_end = static_cast<int>(topo.children_.size());
  }
  topo.dfs_nodes_.reserve(node_names_.size());
  // Pre-order gives node_begin; a switch's node_end is known once its last descendant is done.
  // With pre-order `order`, a switch's subtree is the contiguous run of switches after it whose
  // depth is greater, so we can close ranges with a depth stack.
  std::vector<int> open;
  auto close_until = [&](int depth) {
    while (!open.empty() && topo.switches_[open.back()].depth >= depth) {
      topo.switches_[open.back()].node_end = static_cast<int>(topo.dfs_nodes_.size());
      open.pop_back();
    }
  };
  for (int s : order) {
    close_until(topo.switches_[s].depth);
    topo.switches_[s].node_begin = static_cast<int>(topo.dfs_nodes_.size());
    topo.dfs_nodes_.insert(topo.dfs_nodes_.end(), leaf_nodes[s].begin(), leaf_nodes[s].end());
    open.push_back(s);
  }
  close_until(0);
  topo.attached_count_ = static_cast<int>(topo.dfs_nodes_.size());
  for (size_t i = 0; i < node_names_.size(); ++i) {
    if (!topo.node_leaf_[i].valid()) {
      topo.dfs_nodes_.push_back(NodeId(static_cast<int32_t>(i)));
    }
  }

  topo.by_level_.assign(topo.max_level_ + 1, {});
  for (int i = 0; i < n; ++i) {
    topo.by_level_[topo.switches_[i].level].push_back(SwitchId(i));
    if (topo.switches_[i].level == 0) {
      topo.leaves_.push_back(SwitchId(i));
    }
  }
  return absl::OkStatus();
}

absl::Status TopologyBuilder::BuildBlocks(Topology& topo) const {
  if (blocks_.empty()) {
    if (block_sizes_set_) {
      return Error(block_sizes_where_, "BlockSizes given but no blocks are defined");
    }
    return absl::OkStatus();
  }
  int smallest = 0;
  for (size_t i = 0; i < blocks_.size(); ++i) {
    const BlockDecl& d = blocks_[i];
    BlockId id(static_cast<int32_t>(i));
    if (d.name.empty()) {
      return Error(d.where, "block with an empty name");
    }
    auto [it, inserted] = topo.block_index_.emplace(d.name, id);
    if (!inserted) {
      return Error(d.where, absl::StrCat("block '", d.name, "' is defined twice (first",
                                         At(blocks_[it->second.value()].where), ")"));
    }
    if (d.nodes.empty()) {
      return Error(d.where, absl::StrCat("block '", d.name, "' has no nodes"));
    }
    std::vector<NodeId> nodes;
    for (const std::string& name : d.nodes) {
      NodeId node = topo.FindNode(name);
      if (!node.valid()) {
        return Error(d.where, absl::StrCat("block '", d.name, "': unknown node '", name,
                                           "' (not defined in the cluster's nodes)"));
      }
      BlockId& block = topo.node_block_[node.value()];
      if (block.valid()) {
        if (block == id) {
          return Error(d.where, absl::StrCat("block '", d.name, "' lists node '", name, "' twice"));
        }
        return Error(
            d.where,
            absl::StrCat("node '", name, "' is in two blocks: '", blocks_[block.value()].name, "'",
                         At(blocks_[block.value()].where), " and '", d.name, "'"));
      }
      block = id;
      nodes.push_back(node);
    }
    std::sort(nodes.begin(), nodes.end());
    // With a switch tree, a block is a scale-up domain inside one leaf switch, so placement can
    // count leaves first and blocks inside them (docs/design/placement.md).
    if (topo.has_switches()) {
      SwitchId leaf = topo.leaf_of(nodes.front());
      for (NodeId node : nodes) {
        SwitchId l = topo.leaf_of(node);
        if (!l.valid()) {
          return Error(d.where, absl::StrCat("block '", d.name, "': node '", topo.node_name(node),
                                             "' is under no leaf switch; with switches, every "
                                             "block must lie under one leaf switch"));
        }
        if (l != leaf) {
          return Error(d.where, absl::StrCat("block '", d.name, "' spans leaf switches '",
                                             topo.switch_name(leaf), "' and '", topo.switch_name(l),
                                             "'; with switches, every block must lie under one "
                                             "leaf switch"));
        }
      }
    }
    topo.blocks_.push_back({d.name, static_cast<int>(topo.block_nodes_.size()),
                            static_cast<int>(topo.block_nodes_.size() + nodes.size())});
    topo.block_nodes_.insert(topo.block_nodes_.end(), nodes.begin(), nodes.end());
    int size = static_cast<int>(nodes.size());
    smallest = (i == 0) ? size : std::min(smallest, size);
  }

  if (block_sizes_set_) {
    if (block_sizes_.empty()) {
      return Error(block_sizes_where_, "BlockSizes is empty");
    }
    for (size_t i = 0; i < block_sizes_.size(); ++i) {
      int s = block_sizes_[i];
      if (s <= 0) {
        return Error(block_sizes_where_,
                     absl::StrCat("BlockSizes: sizes must be positive, got ", s));
      }
      if (i > 0 && (s <= block_sizes_[i - 1] || s % block_sizes_[i - 1] != 0 ||
                    !IsPowerOfTwo(s / block_sizes_[i - 1]))) {
        return Error(block_sizes_where_,
                     absl::StrCat("BlockSizes: ", s, " is not a power-of-two multiple of ",
                                  block_sizes_[i - 1],
                                  " (each size must be 2, 4, 8, ... times "
                                  "the size before it)"));
      }
    }
    topo.block_sizes_ = block_sizes_;
  } else {
    const int count = static_cast<int>(blocks_.size());
    topo.block_sizes_.push_back(smallest);
    for (int factor = 2; factor <= count; factor *= 2) {
      topo.block_sizes_.push_back(smallest * factor);
    }
  }
  return absl::OkStatus();
}

}  // namespace canopy::topology
