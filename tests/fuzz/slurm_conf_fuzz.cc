// Fuzz target: slurm.conf as canopyd, the agents and the clients read it, and the topology built
// from what parses (a tree or block topology.conf is not read: the text has none beside it).
#include "common/config/cluster_config.h"
#include "scheduler/topology/load_topology.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(canopy::fuzz::AsText(data, size));
  absl::StatusOr<canopy::config::ClusterConfig> config =
      canopy::config::ParseSlurmConf(text, "fuzz/slurm.conf", /*read_topology=*/false);
  if (config.ok()) {
    (void)canopy::topology::LoadTopology(*config);
  }
  return 0;
}
