// Fuzz target: Canopy's YAML configuration, inline topology section included, and the topology
// built from what parses.
#include "common/config/cluster_config.h"
#include "scheduler/topology/load_topology.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(canopy::fuzz::AsText(data, size));
  absl::StatusOr<canopy::config::ClusterConfig> config =
      canopy::config::ParseCanopyYaml(text, "fuzz/canopy.yaml", /*read_topology=*/false);
  if (config.ok()) {
    (void)canopy::topology::LoadTopology(*config);
  }
  return 0;
}
