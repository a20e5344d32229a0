// LoadTopology: builds the Topology for a cluster from its configuration.
//
// The entry point the server, the simulator and the CLI use. Dispatches on
// ClusterConfig::topology.kind to a reader (readers/): kNone gives a flat cluster (no switches,
// no blocks), kSlurmTopologyConf reads Slurm's topology.conf, kYaml reads Canopy's YAML section.
// Pure: no file access (the config loader already read the text). Thread-safe.
#pragma once

#include "absl/status/statusor.h"
#include "common/config/cluster_config.h"
#include "scheduler/topology/topology.h"

namespace canopy::topology {

// NodeId i is config.nodes[i]. InvalidArgument (message starting with the topology's origin and
// line) for a malformed or inconsistent topology; see TopologyBuilder::Build for the checks.
absl::StatusOr<Topology> LoadTopology(const config::ClusterConfig& config);

}  // namespace canopy::topology
