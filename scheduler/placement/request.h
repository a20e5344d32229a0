// PlacementRequest: what one job asks of the nodes it runs on, in placement's terms.
//
// Translated from a JobSpec by the caller (Slurm options in brackets). Plain value type.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "scheduler/core/ids.h"

namespace canopy::placement {

struct PlacementRequest {
  // Node count: exactly min_nodes, or a range [min_nodes, max_nodes] (-N min-max). With a range
  // the job gets as many nodes as one placement can give, up to max_nodes. 0 = same as min.
  int32_t min_nodes = 1;
  int32_t max_nodes = 0;

  // Per node (--gpus-per-node=[type:]n, --cpus-per-task × tasks, --mem).
  int32_t gpus_per_node = 0;
  std::string gpu_type;  // "" = any type
  int32_t cpus_per_node = 1;
  int64_t mem_per_node_mib = 0;

  // --exclusive: only nodes with no allocation, and nobody else may join them.
  bool exclusive = false;

  // -p: "" = any partition.
  std::string partition;

  // -w / -x. Required nodes count toward the node count.
  std::vector<core::NodeId> required_nodes;
  std::vector<core::NodeId> excluded_nodes;

  // --switches=K[@max_wait]: at most K leaf switches (base blocks on a block topology); 0 = no
  // limit. Until `switch_wait_start + max_switch_wait` the job waits for such a placement; after
  // that it takes what it can get. Slurm's default max wait is 300 s (max_switch_wait).
  int32_t max_switches = 0;
  absl::Duration max_switch_wait = absl::Seconds(300);
  absl::Time switch_wait_start = absl::InfinitePast();  // when the job became eligible

  int32_t max_nodes_or_min() const { return max_nodes > 0 ? max_nodes : min_nodes; }
};

}  // namespace canopy::placement
