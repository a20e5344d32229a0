// ConfigAssembler: the cross-entry checks both config formats share. The parsers turn each
// NodeName line / `nodes:` entry and each partition into values, then hand them here; the
// assembler rejects duplicate node and partition names and a second default partition, and at
// the end resolves partition node lists (Slurm's `Nodes=ALL` means every node in the file, even
// nodes defined after the partition) and rejects partitions naming unknown nodes.
//
// Internal to canopy_config. Messages are prefixed with the `where` strings the parser passes
// (e.g. "slurm.conf:15: PartitionName=gpu: Nodes"), so the same checks read naturally in both
// formats. Thread-compatible.
#pragma once

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "common/config/cluster_config.h"

namespace canopy::config::internal {

// A partition as parsed, before its node list is checked against the nodes.
struct ParsedPartition {
  PartitionConfig config;     // `config.nodes` holds the expanded names unless `all_nodes`
  bool all_nodes = false;     // Nodes=ALL
  int line = 0;               // line of the entry, for "already defined on line N"
  std::string name_where;     // prefix for errors about the name ("slurm.conf:15: PartitionName")
  std::string nodes_where;    // prefix for errors about nodes ("...: PartitionName=gpu: Nodes")
  std::string default_where;  // prefix for errors about Default
};

class ConfigAssembler {
 public:
  // `quote` is how values are quoted in messages: '\'' for slurm.conf, '"' for YAML.
  explicit ConfigAssembler(char quote) : quote_(quote) {}

  // Adds the nodes of one entry. InvalidArgument "<names_where>: node 'x' is already defined on
  // line N" if a name was seen before (in this entry or an earlier one).
  absl::Status AddNodes(std::vector<NodeConfig> nodes, int line, absl::string_view names_where);

  // Adds a partition. InvalidArgument for a repeated partition name or a second default.
  absl::Status AddPartition(ParsedPartition partition);

  int node_count() const { return static_cast<int>(nodes_.size()); }

  // Resolves partition node lists and moves nodes and partitions into `config`. InvalidArgument
  // naming the partition's Nodes field for a node that no entry defines.
  absl::Status Finish(ClusterConfig& config);

 private:
  char quote_;
  std::vector<NodeConfig> nodes_;
  absl::flat_hash_map<std::string, int> node_line_;  // lookup only; never iterated
  std::vector<ParsedPartition> partitions_;
  absl::flat_hash_map<std::string, int> partition_line_;  // lookup only; never iterated
  int default_partition_index_ = -1;
};

}  // namespace canopy::config::internal
