// Cross-entry checks shared by the config parsers; see config_assembler.h.
#include "common/config/config_assembler.h"

#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "common/config/parse_util.h"

namespace canopy::config::internal {

absl::Status ConfigAssembler::AddNodes(std::vector<NodeConfig> nodes, int line,
                                       absl::string_view names_where) {
  // One NodeName line can hold 16,384 nodes: grow once, not by doubling (every CLI call reads
  // the config).
  node_line_.reserve(node_line_.size() + nodes.size());
  nodes_.reserve(nodes_.size() + nodes.size());
  for (NodeConfig& node : nodes) {
    auto [it, inserted] = node_line_.emplace(node.name, line);
    if (!inserted) {
      return absl::InvalidArgumentError(absl::StrCat(names_where, ": node ",
                                                     Quote(node.name, quote_),
                                                     " is already defined on line ", it->second));
    }
    nodes_.push_back(std::move(node));
  }
  return absl::OkStatus();
}

absl::Status ConfigAssembler::AddPartition(ParsedPartition partition) {
  const std::string& name = partition.config.name;
  auto [it, inserted] = partition_line_.emplace(name, partition.line);
  if (!inserted) {
    return absl::InvalidArgumentError(absl::StrCat(partition.name_where, ": partition ",
                                                   Quote(name, quote_),
                                                   " is already defined on line ", it->second));
  }
  if (partition.config.is_default) {
    if (default_partition_index_ >= 0) {
      const ParsedPartition& first = partitions_[default_partition_index_];
      return absl::InvalidArgumentError(absl::StrCat(
          partition.default_where, ": only one partition can be the default, and partition ",
          Quote(first.config.name, quote_), " (line ", first.line, ") already is"));
    }
    default_partition_index_ = static_cast<int>(partitions_.size());
  }
  partitions_.push_back(std::move(partition));
  return absl::OkStatus();
}

absl::Status ConfigAssembler::Finish(ClusterConfig& config) {
  std::vector<std::string> all_names;
  all_names.reserve(nodes_.size());
  for (const NodeConfig& node : nodes_) {
    all_names.push_back(node.name);
  }
  config.partitions.clear();
  config.partitions.reserve(partitions_.size());
  for (ParsedPartition& parsed : partitions_) {
    PartitionConfig& partition = parsed.config;
    if (parsed.all_nodes) {
      partition.nodes = all_names;
    } else {
      // A hostlist may name a node twice ("gpu[1-4],gpu2"); a partition is a set, so keep the
      // first mention and drop repeats rather than failing.
      absl::flat_hash_set<std::string> seen;
      std::vector<std::string> unique;
      unique.reserve(partition.nodes.size());
      for (std::string& name : partition.nodes) {
        if (!node_line_.contains(name)) {
          return absl::InvalidArgumentError(absl::StrCat(parsed.nodes_where, ": unknown node ",
                                                         Quote(name, quote_),
                                                         " (no node entry defines it)"));
        }
        if (seen.insert(name).second) {
          unique.push_back(std::move(name));
        }
      }
      partition.nodes = std::move(unique);
    }
    config.partitions.push_back(std::move(partition));
  }
  config.nodes = std::move(nodes_);
  nodes_.clear();
  partitions_.clear();
  return absl::OkStatus();
}

}  // namespace canopy::config::internal
