#include "tests/testing/test_cluster.h"

#include <utility>

#include "gtest/gtest.h"
#include "scheduler/topology/load_topology.h"

namespace canopy::testing {

TestCluster LoadTestCluster(absl::string_view yaml) {
  absl::StatusOr<config::ClusterConfig> config =
      config::ParseCanopyYaml(std::string(yaml), "test.yaml");
  if (!config.ok()) {
    ADD_FAILURE() << config.status();
    return {};
  }
  absl::StatusOr<topology::Topology> topology = topology::LoadTopology(*config);
  if (!topology.ok()) {
    ADD_FAILURE() << topology.status();
    return {};
  }
  return {std::make_shared<const config::ClusterConfig>(*std::move(config)),
          std::make_shared<const topology::Topology>(*std::move(topology))};
}

}  // namespace canopy::testing
