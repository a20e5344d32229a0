// Shared fixtures for the scheduling benchmarks: a fat tree built in code (no files) and its
// ClusterConfig, so the benches need nothing from disk. Benchmark-only.
#pragma once

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "common/config/cluster_config.h"
#include "scheduler/topology/topology_builder.h"

namespace canopy::bench {

struct BenchCluster {
  config::ClusterConfig config;
  std::unique_ptr<topology::Topology> topo;
};

// `nodes` nodes × 8 H100 in one partition "gpu"; leaves of `leaf_size`, spines of
// `leaves_per_spine` leaves, one core switch.
inline BenchCluster FatTreeCluster(int nodes, int leaf_size, int leaves_per_spine) {
  BenchCluster c;
  std::vector<std::string> names;
  config::PartitionConfig part;
  part.name = "gpu";
  part.is_default = true;
  for (int i = 1; i <= nodes; ++i) {
    names.push_back(absl::StrFormat("gpu%05d", i));
    config::NodeConfig n;
    n.name = names.back();
    n.cpus = 128;
    n.real_memory_mib = 2 * 1024 * 1024;
    n.gpus = {{"h100", 8}};
    c.config.nodes.push_back(n);
    part.nodes.push_back(n.name);
  }
  c.config.partitions.push_back(part);
  topology::TopologyBuilder b(names);
  const int leaves = nodes / leaf_size;
  std::vector<std::string> spines;
  for (int l = 0; l < leaves; ++l) {
    b.AddSwitch(absl::StrFormat("leaf%03d", l + 1),
                std::vector<std::string>(names.begin() + l * leaf_size,
                                         names.begin() + (l + 1) * leaf_size),
                {}, "");
  }
  for (int s = 0; s < leaves / leaves_per_spine; ++s) {
    std::vector<std::string> children;
    for (int l = s * leaves_per_spine; l < (s + 1) * leaves_per_spine; ++l) {
      children.push_back(absl::StrFormat("leaf%03d", l + 1));
    }
    spines.push_back(absl::StrFormat("spine%02d", s + 1));
    b.AddSwitch(spines.back(), {}, std::move(children), "");
  }
  b.AddSwitch("core", {}, spines, "");
  absl::StatusOr<topology::Topology> topo = std::move(b).Build();
  if (!topo.ok()) {
    std::abort();
  }
  c.topo = std::make_unique<topology::Topology>(*std::move(topo));
  return c;
}

}  // namespace canopy::bench
