// Small clusters for unit tests, from inline YAML (docs/formats/config.md): the configuration
// and its topology, as canopyd would load them. A text that does not load fails the test.
#pragma once

#include <memory>

#include "absl/strings/string_view.h"
#include "common/config/cluster_config.h"
#include "scheduler/topology/topology.h"

namespace canopy::testing {

struct TestCluster {
  std::shared_ptr<const config::ClusterConfig> config;
  std::shared_ptr<const topology::Topology> topology;
};

// Empty pointers (and a test failure) when `yaml` does not load.
TestCluster LoadTestCluster(absl::string_view yaml);

// gpu[1-4] with 8 CPUs, 1000 MiB and 4 H100 each; leaf1 = gpu[1-2], leaf2 = gpu[3-4] under
// spine; partition gpu (all nodes, default, MaxTime 1 h) and tiny (gpu1); KillWait 5 s,
// launch timeout 10 s, cluster name "test".
inline constexpr absl::string_view kTwoLeafCluster = R"yaml(
cluster_name: test
kill_wait: 5s
launch_timeout: 10s
nodes:
  - names: gpu[1-4]
    cpus: 8
    memory_mib: 1000
    gpus: {type: h100, count: 4}
partitions:
  - name: gpu
    nodes: ALL
    default: true
    max_time: "1:00:00"
  - name: tiny
    nodes: gpu1
topology_plugin: topology/tree
topology:
  switches:
    - name: leaf1
      nodes: gpu[1-2]
    - name: leaf2
      nodes: gpu[3-4]
    - name: spine
      switches: leaf[1-2]
)yaml";

}  // namespace canopy::testing
