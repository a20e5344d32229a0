// TopologyBuilder: collects switch and block declarations and validates them into a Topology.
//
// Readers (readers/) parse a source and declare what they find here; the builder does every
// structural check, so the YAML and topology.conf readers reject the same mistakes with the same
// words. Each declaration carries `where` ("topology.conf:12"), which prefixes the error message
// about it. Errors are InvalidArgument. Single-use, not thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "scheduler/topology/topology.h"

namespace canopy::topology {

class TopologyBuilder {
 public:
  // `node_names` are the cluster's nodes; NodeId i is node_names[i].
  explicit TopologyBuilder(std::vector<std::string> node_names);

  // Declares a switch. A leaf lists node names, an inner switch lists child switch names
  // (children may be declared later); exactly one of the two lists must be non-empty.
  void AddSwitch(std::string name, std::vector<std::string> nodes,
                 std::vector<std::string> switches, std::string where);
  // Declares a block (a scale-up domain) with its nodes.
  void AddBlock(std::string name, std::vector<std::string> nodes, std::string where);
  // Slurm's BlockSizes. Without it, Build() uses the smallest block's node count as the base and
  // doubles it while the aggregate still fits in the number of blocks (Canopy's default).
  void SetBlockSizes(std::vector<int> sizes, std::string where);

  // Validates and builds. InvalidArgument (prefixed with the offending declaration's `where`)
  // for: a duplicate node, switch or block name; an unknown node or child switch; a switch with
  // both or neither of nodes and child switches; a node under two leaf switches or in two blocks;
  // a switch with two parents; a switch cycle (naming it); block sizes that are not increasing
  // power-of-two multiples; block sizes without blocks; and, when switches and blocks are both
  // present, a block whose nodes are not all under one leaf switch.
  absl::StatusOr<Topology> Build() &&;

 private:
  struct SwitchDecl {
    std::string name;
    std::vector<std::string> nodes;
    std::vector<std::string> switches;
    std::string where;
  };
  struct BlockDecl {
    std::string name;
    std::vector<std::string> nodes;
    std::string where;
  };

  absl::Status BuildNodes(Topology& topo) const;
  absl::Status BuildSwitches(Topology& topo) const;
  absl::Status BuildBlocks(Topology& topo) const;

  std::vector<std::string> node_names_;
  std::vector<SwitchDecl> switches_;
  std::vector<BlockDecl> blocks_;
  std::vector<int> block_sizes_;
  std::string block_sizes_where_;
  bool block_sizes_set_ = false;
};

}  // namespace canopy::topology
