// FillTopology: the switch tree with live usage per switch (GPUs free/used/down, nodes idle and
// down, running jobs), computed from one snapshot, for `canopyctl topology` and
// `scontrol show topology`. Pure; thread-safe.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "canopy/v1/controller.pb.h"
#include "scheduler/server/snapshot.h"

namespace canopy::server {

// A node's share of the counts: its GPUs in use, unusable (the node is down or drained, or the
// GPU reported unhealthy) and the rest free. The metrics count the same way.
struct NodeUsage {
  int total_gpus = 0;
  int used_gpus = 0;
  int down_gpus = 0;
  bool idle = false;
  bool down = false;  // not usable: down, drained or not responding
};
NodeUsage UsageOf(const state::NodeRecord& node, const state::NodeUse& use);

// `node` (optional) restricts the answer to the switches above that node, as
// `scontrol show topology NODE` does; NotFound for an unknown node.
absl::Status FillTopology(const ClusterSnapshot& snapshot, const std::string& node,
                          canopy::v1::GetTopologyResponse* response);

}  // namespace canopy::server
