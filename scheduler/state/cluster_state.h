// ClusterState: the controller's authoritative view of nodes (and, as they arrive, jobs).
//
// Pure: no I/O, no clock reads (callers pass `now`), no threads. Exactly one owner mutates it
// (the controller's scheduler thread, or the simulator); everybody else reads immutable
// ClusterSnapshot copies. Not thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/config/cluster_config.h"
#include "scheduler/state/node_record.h"

namespace canopy::state {

// An admin's change to nodes (scontrol update NodeName=... State=...).
enum class NodeAdminAction { kDrain, kResume, kDown };

// Who the controller names as the author of the reasons it sets itself (sinfo -R's USER).
inline constexpr char kControllerUser[] = "canopyd";

class ClusterState {
 public:
  // Builds one NodeRecord per configured node; NodeId = index in config.nodes. `start` is when
  // the controller started: a node never heard from by start + node_timeout becomes DOWN.
  ClusterState(const config::ClusterConfig& config, absl::Time start);

  const std::vector<NodeRecord>& nodes() const { return nodes_; }
  const NodeRecord& node(core::NodeId id) const { return nodes_[id.value()]; }
  // NotFound if no node has that name.
  absl::StatusOr<core::NodeId> FindNode(absl::string_view name) const;

  // An agent (re)registered `name`. A node that was DOWN only for not responding comes back
  // (Slurm's ReturnToService=1). A node reporting fewer CPUs or GPUs than configured is drained
  // with Slurm's reason text. NotFound for an unknown node.
  absl::StatusOr<core::NodeId> RegisterNode(absl::string_view name, NodeRegistration registration,
                                            absl::Time now);
  // Any message from the node's agent.
  void NoteHeard(core::NodeId id, absl::Time now);
  // New GPU health from the agent.
  void UpdateGpus(core::NodeId id, std::vector<GpuStatus> gpus, absl::Time now);
  // The node's stream ended (agent died, network gone, agent shut down).
  void StreamClosed(core::NodeId id, absl::Time now);

  // Marks DOWN ("Not responding") every node whose agent has been silent for longer than
  // `node_timeout`: stream gone, no heartbeat, or never registered since start. Returns the
  // nodes that changed, in id order.
  std::vector<core::NodeId> CheckTimeouts(absl::Time now, absl::Duration node_timeout);

  // Applies an admin action to the named nodes (all-or-nothing). InvalidArgument when drain or
  // down comes without a reason (Slurm refuses those too); NotFound naming the unknown node.
  absl::StatusOr<std::vector<core::NodeId>> UpdateNodes(const std::vector<std::string>& names,
                                                        NodeAdminAction action,
                                                        absl::string_view reason,
                                                        absl::string_view user, absl::Time now);

  // Restores admin state loaded from the store at start-up.
  void RestoreAdminState(core::NodeId id, bool drain, bool admin_down, std::string reason,
                         absl::Time reason_time, std::string reason_user);

 private:
  void SetReason(NodeRecord& node, std::string reason, std::string user, absl::Time now);

  absl::Time start_;
  std::vector<NodeRecord> nodes_;
  absl::flat_hash_map<std::string, core::NodeId> by_name_;
};

}  // namespace canopy::state
