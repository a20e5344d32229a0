// Fuzz target: topology.conf (tree and block forms) for a fixed 64-node cluster.
#include <cstdlib>

#include "common/config/cluster_config.h"
#include "scheduler/topology/load_topology.h"
#include "tests/fuzz/fuzz_input.h"

namespace {

const canopy::config::ClusterConfig& BaseConfig(const char* plugin) {
  static const auto* const tree = [] {
    absl::StatusOr<canopy::config::ClusterConfig> c = canopy::config::ParseSlurmConf(
        "ClusterName=fuzz\nNodeName=gpu[001-064] CPUs=8 Gres=gpu:8\n"
        "PartitionName=all Nodes=ALL Default=YES\n",
        "fuzz/slurm.conf", /*read_topology=*/false);
    if (!c.ok()) {
      std::abort();
    }
    return new canopy::config::ClusterConfig(*std::move(c));
  }();
  static const auto* const block = [] {
    auto* c = new canopy::config::ClusterConfig(*tree);
    c->topology_plugin = "topology/block";
    return c;
  }();
  return std::string_view(plugin) == "topology/block" ? *block : *tree;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  absl::string_view text = canopy::fuzz::AsText(data, size);
  size_t which = 0;
  if (!canopy::fuzz::TakeSelector(text, 2, which)) {
    return 0;
  }
  canopy::config::ClusterConfig config =
      BaseConfig(which == 0 ? "topology/tree" : "topology/block");
  if (which == 0) {
    config.topology_plugin = "topology/tree";
  }
  config.topology.kind = canopy::config::TopologySource::Kind::kSlurmTopologyConf;
  config.topology.origin = "fuzz/topology.conf";
  config.topology.text = std::string(text);
  (void)canopy::topology::LoadTopology(config);
  return 0;
}
