// From the controller's records to what placement sees: the CapacityView of a configured
// cluster, and each node's availability flags from its NodeRecord.
//
// Pure functions; thread-safe.
#pragma once

#include "absl/status/statusor.h"
#include "common/config/cluster_config.h"
#include "scheduler/placement/capacity_view.h"
#include "scheduler/state/node_record.h"
#include "scheduler/topology/topology.h"

namespace canopy::state {

// The capacity of an idle, healthy cluster: every configured node up, its GPUs/CPUs/memory
// free, in the partitions that list it. InvalidArgument if the config and topology disagree or
// there are more than 64 partitions.
absl::StatusOr<placement::CapacityView> BuildIdleCapacity(const config::ClusterConfig& config,
                                                          const topology::Topology& topology);

// Copies a node's availability into `capacity` (up, healthy, drained), leaving its resource
// counts alone: up = registered since start and responding and not DOWN; healthy = every GPU
// the agent reported is healthy (a broken GPU keeps new work off the whole node until it
// recovers or an admin drains it); drained = DRAIN set.
void ApplyAvailability(const NodeRecord& node, placement::NodeCapacity& capacity);

}  // namespace canopy::state
