#include "scheduler/state/cluster_state.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace canopy::state {
namespace {

constexpr char kNotResponding[] = "Not responding";

}  // namespace

ClusterState::ClusterState(const config::ClusterConfig& config, absl::Time start) : start_(start) {
  nodes_.reserve(config.nodes.size());
  for (size_t i = 0; i < config.nodes.size(); ++i) {
    const config::NodeConfig& nc = config.nodes[i];
    NodeRecord r;
    r.id = core::NodeId(static_cast<int32_t>(i));
    r.name = nc.name;
    r.cpus = nc.cpus;
    r.real_memory_mib = nc.real_memory_mib;
    for (const config::GpuConfig& g : nc.gpus) {
      r.gpus_configured += g.count;
      if (r.gpu_type.empty()) {
        r.gpu_type = g.type;
      }
    }
    by_name_.emplace(r.name, r.id);
    nodes_.push_back(std::move(r));
  }
}

absl::StatusOr<core::NodeId> ClusterState::FindNode(absl::string_view name) const {
  auto it = by_name_.find(name);
  if (it == by_name_.end()) {
    return absl::NotFoundError(absl::StrCat("node '", name, "' is not in the configuration"));
  }
  return it->second;
}

void ClusterState::SetReason(NodeRecord& node, std::string reason, std::string user,
                             absl::Time now) {
  node.reason = std::move(reason);
  node.reason_user = std::move(user);
  node.reason_time = node.reason.empty() ? absl::InfinitePast() : now;
}

absl::StatusOr<core::NodeId> ClusterState::RegisterNode(absl::string_view name,
                                                        NodeRegistration registration,
                                                        absl::Time now) {
  absl::StatusOr<core::NodeId> id = FindNode(name);
  if (!id.ok()) {
    return id.status();
  }
  NodeRecord& node = nodes_[id->value()];
  node.ever_registered = true;
  node.connected = true;
  node.last_heard = now;
  node.registration = std::move(registration);
  if (node.not_responding) {
    node.not_responding = false;
    if (node.reason == kNotResponding) {
      SetReason(node, "", "", now);
    }
  }
  // Slurm drains a node that reports less than its configuration promises; the texts are
  // Slurm's, so admins' existing alerting keeps matching.
  const int reported_gpus = static_cast<int>(node.registration.gpus.size());
  if (reported_gpus < node.gpus_configured && !node.drain) {
    node.drain = true;
    SetReason(node,
              absl::StrCat("gres/gpu count reported lower than configured (", reported_gpus, " < ",
                           node.gpus_configured, ")"),
              kControllerUser, now);
  } else if (node.registration.cpus > 0 && node.registration.cpus < node.cpus && !node.drain) {
    node.drain = true;
    SetReason(node, "Low socket*core*thread count, Low CPUs", kControllerUser, now);
  } else if (node.registration.real_memory_mib > 0 &&
             node.registration.real_memory_mib < node.real_memory_mib && !node.drain) {
    node.drain = true;
    SetReason(node, "Low RealMemory", kControllerUser, now);
  }
  return *id;
}

void ClusterState::NoteHeard(core::NodeId id, absl::Time now) {
  nodes_[id.value()].last_heard = now;
}

void ClusterState::UpdateGpus(core::NodeId id, std::vector<GpuStatus> gpus, absl::Time now) {
  NodeRecord& node = nodes_[id.value()];
  node.registration.gpus = std::move(gpus);
  node.last_heard = now;
}

void ClusterState::StreamClosed(core::NodeId id, absl::Time now) {
  NodeRecord& node = nodes_[id.value()];
  if (!node.connected) {
    return;
  }
  node.connected = false;
  node.disconnected_since = now;
}

std::vector<core::NodeId> ClusterState::CheckTimeouts(absl::Time now, absl::Duration node_timeout) {
  std::vector<core::NodeId> changed;
  for (NodeRecord& node : nodes_) {
    if (node.not_responding) {
      continue;
    }
    absl::Time silent_since;
    if (!node.ever_registered) {
      silent_since = start_;
    } else if (!node.connected) {
      silent_since = node.disconnected_since;
    } else {
      silent_since = node.last_heard;
    }
    if (now - silent_since > node_timeout) {
      node.not_responding = true;
      if (node.reason.empty()) {
        SetReason(node, kNotResponding, kControllerUser, now);
      }
      changed.push_back(node.id);
    }
  }
  return changed;
}

absl::StatusOr<std::vector<core::NodeId>> ClusterState::UpdateNodes(
    const std::vector<std::string>& names, NodeAdminAction action, absl::string_view reason,
    absl::string_view user, absl::Time now) {
  if (action != NodeAdminAction::kResume && reason.empty()) {
    return absl::InvalidArgumentError(
        "a reason is required to drain or down a node (add Reason=\"...\")");
  }
  std::vector<core::NodeId> ids;
  ids.reserve(names.size());
  for (const std::string& name : names) {
    absl::StatusOr<core::NodeId> id = FindNode(name);
    if (!id.ok()) {
      return id.status();
    }
    ids.push_back(*id);
  }
  for (core::NodeId id : ids) {
    NodeRecord& node = nodes_[id.value()];
    switch (action) {
      case NodeAdminAction::kDrain:
        node.drain = true;
        SetReason(node, std::string(reason), std::string(user), now);
        break;
      case NodeAdminAction::kDown:
        node.admin_down = true;
        SetReason(node, std::string(reason), std::string(user), now);
        break;
      case NodeAdminAction::kResume:
        node.drain = false;
        node.admin_down = false;
        // A node that is still silent stays "Not responding"; resuming cannot make it answer.
        SetReason(node, node.not_responding ? kNotResponding : "",
                  node.not_responding ? kControllerUser : "", now);
        break;
    }
  }
  return ids;
}

void ClusterState::RestoreAdminState(core::NodeId id, bool drain, bool admin_down,
                                     std::string reason, absl::Time reason_time,
                                     std::string reason_user) {
  NodeRecord& node = nodes_[id.value()];
  node.drain = drain;
  node.admin_down = admin_down;
  node.reason = std::move(reason);
  node.reason_time = reason_time;
  node.reason_user = std::move(reason_user);
}

}  // namespace canopy::state
