// LoadTopology: reader dispatch on the topology source kind.
#include "scheduler/topology/load_topology.h"

#include <memory>
#include <string>
#include <vector>

#include "scheduler/topology/readers/topology_reader.h"
#include "scheduler/topology/topology_builder.h"

namespace canopy::topology {

absl::StatusOr<Topology> LoadTopology(const config::ClusterConfig& config) {
  std::vector<std::string> names;
  names.reserve(config.nodes.size());
  for (const config::NodeConfig& node : config.nodes) {
    names.push_back(node.name);
  }
  TopologyBuilder builder(std::move(names));

  std::unique_ptr<TopologyReader> reader;
  switch (config.topology.kind) {
    case config::TopologySource::Kind::kNone:
      break;
    case config::TopologySource::Kind::kSlurmTopologyConf:
      reader = MakeSlurmTopologyConfReader();
      break;
    case config::TopologySource::Kind::kYaml:
      reader = MakeYamlTopologyReader();
      break;
  }
  if (reader != nullptr) {
    if (absl::Status s = reader->Read(config.topology, builder); !s.ok()) {
      return s;
    }
  }
  return std::move(builder).Build();
}

}  // namespace canopy::topology
