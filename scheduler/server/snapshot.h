// ClusterSnapshot: an immutable copy of the controller's state, published by the owner thread
// after each batch of commands. Read-only RPCs (list nodes, topology, ...) serve from the latest
// snapshot, so a slow reader never stalls scheduling. Shared as shared_ptr<const>; thread-safe
// to read from any thread.
#pragma once

#include <memory>
#include <vector>

#include "absl/time/time.h"
#include "canopy/v1/types.pb.h"
#include "common/config/cluster_config.h"
#include "scheduler/state/node_record.h"
#include "scheduler/topology/topology.h"

namespace canopy::server {

struct ClusterSnapshot {
  absl::Time taken;
  std::shared_ptr<const config::ClusterConfig> config;
  std::shared_ptr<const topology::Topology> topology;
  std::vector<state::NodeRecord> nodes;  // indexed by NodeId
  // Every job the controller remembers, ascending id. Records are shared between snapshots and
  // never change once published.
  std::vector<std::shared_ptr<const canopy::v1::Job>> jobs;
};

}  // namespace canopy::server
