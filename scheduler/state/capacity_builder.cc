#include "scheduler/state/capacity_builder.h"

#include <algorithm>
#include <string>
#include <vector>

namespace canopy::state {

absl::StatusOr<placement::CapacityView> BuildIdleCapacity(const config::ClusterConfig& config,
                                                          const topology::Topology& topology) {
  if (static_cast<int>(config.nodes.size()) != topology.node_count()) {
    return absl::InvalidArgumentError("config and topology have different node counts");
  }
  std::vector<std::string> partitions;
  for (const config::PartitionConfig& p : config.partitions) {
    partitions.push_back(p.name);
  }
  if (partitions.size() > static_cast<size_t>(placement::kMaxPartitions)) {
    return absl::InvalidArgumentError("more than 64 partitions");
  }
  std::vector<std::string> gpu_types;  // sorted, unique
  for (const config::NodeConfig& n : config.nodes) {
    for (const config::GpuConfig& g : n.gpus) {
      if (!g.type.empty()) {
        gpu_types.push_back(g.type);
      }
    }
  }
  std::sort(gpu_types.begin(), gpu_types.end());
  gpu_types.erase(std::unique(gpu_types.begin(), gpu_types.end()), gpu_types.end());
  std::vector<placement::NodeCapacity> nodes(config.nodes.size());
  for (size_t i = 0; i < config.nodes.size(); ++i) {
    const config::NodeConfig& c = config.nodes[i];
    placement::NodeCapacity& n = nodes[i];
    for (const config::GpuConfig& g : c.gpus) {
      n.total_gpus += g.count;
      if (!g.type.empty()) {
        n.gpu_type = static_cast<int32_t>(
            std::lower_bound(gpu_types.begin(), gpu_types.end(), g.type) - gpu_types.begin());
      }
    }
    n.free_gpus = n.total_gpus;
    n.total_cpus = n.free_cpus = c.cpus;
    n.total_mem_mib = n.free_mem_mib = c.real_memory_mib;
  }
  for (size_t p = 0; p < config.partitions.size(); ++p) {
    for (const std::string& name : config.partitions[p].nodes) {
      const core::NodeId id = topology.FindNode(name);
      if (id.valid()) {
        nodes[id.value()].partitions |= placement::PartitionMask{1} << p;
      }
    }
  }
  return placement::CapacityView::Build(topology, std::move(partitions), std::move(gpu_types),
                                        std::move(nodes));
}

void ApplyAvailability(const NodeRecord& node, placement::NodeCapacity& capacity) {
  capacity.up = node.ever_registered && !node.not_responding && !node.admin_down;
  capacity.healthy = std::all_of(node.registration.gpus.begin(), node.registration.gpus.end(),
                                 [](const GpuStatus& g) { return g.healthy; });
  capacity.drained = node.drain;
}

}  // namespace canopy::state
