// YamlConfigParser: reads Canopy's own YAML config (schema and example in
// docs/formats/config.md) into ClusterConfig. Internal to canopy_config: ParseCanopyYaml
// (cluster_config.h) is the entry point. The top level, the controller and the topology are
// read in canopy_yaml_parser.cc, node and partition entries in canopy_yaml_nodes.cc.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "common/config/cluster_config.h"
#include "common/config/config_assembler.h"
#include "common/config/parse_util.h"
#include "common/config/yaml_values.h"
#include "yaml-cpp/yaml.h"

namespace canopy::config::internal {

// Stores `*result` in `out` or returns its error; keeps the field-by-field code short.
template <typename T, typename U>
absl::Status Assign(absl::StatusOr<T> result, U& out) {
  if (!result.ok()) {
    return result.status();
  }
  out = static_cast<U>(*std::move(result));
  return absl::OkStatus();
}

class YamlConfigParser {
 public:
  YamlConfigParser(const std::string& origin, bool read_topology)
      : origin_(origin), read_topology_(read_topology), reader_(origin) {}

  // May throw YAML::Exception from yaml-cpp; ParseCanopyYaml catches it.
  absl::StatusOr<ClusterConfig> Parse(const std::string& text);

 private:
  absl::Status TopLevelEntry(const std::string& key, const YamlValue& value);
  absl::Status ControllerEntry(const std::string& key, const YamlValue& value);
  absl::Status TopologyPlugin(const YamlValue& value);
  absl::Status NodeEntry(const YamlValue& entry);
  absl::StatusOr<std::vector<std::string>> NodeNames(const YamlValue& value);
  absl::Status Gpus(const YamlValue& value, NodeConfig& node);
  absl::Status Gpu(const YamlValue& value, GpuConfig& gpu);
  absl::Status PartitionEntry(const YamlValue& entry);
  absl::Status PartitionNodes(const YamlValue& value, ParsedPartition& parsed);
  absl::Status FinishTopology();

  const std::string origin_;
  const bool read_topology_;
  const YamlReader reader_;
  ClusterConfig config_;
  UnusedKeys unused_;
  ConfigAssembler assembler_{'"'};
  bool have_unix_socket_ = false;
  bool have_heartbeat_ = false;
  bool have_topology_plugin_ = false;
  std::optional<YamlValue> topology_;                        // `topology:`, if given
  std::optional<YamlValue> topology_file_;                   // `topology_file:`, if given
  YamlValue node_timeout_{YAML::Node(), "node_timeout", 0};  // for the line in messages
};

}  // namespace canopy::config::internal
