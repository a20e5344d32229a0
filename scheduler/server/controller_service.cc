#include "scheduler/server/controller_service.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "common/log/absl_format.h"
#include "common/rpc/status_convert.h"
#include "common/slurm/hostlist.h"
#include "common/slurm/limit_values.h"
#include "common/slurm/scheduling_values.h"
#include "scheduler/server/config_view.h"
#include "scheduler/server/proto_convert.h"
#include "scheduler/server/reconfigure.h"
#include "scheduler/server/topology_view.h"
#include "spdlog/spdlog.h"

namespace canopy::server {

ControllerServiceImpl::ControllerServiceImpl(Controller* controller, std::string hostname,
                                             const UnixPeerListener* peers)
    : controller_(controller),
      account_admins_(controller),
      authenticator_(controller->config(), peers,
                     [this](absl::string_view user) { return account_admins_.IsAdmin(user); }),
      hostname_(std::move(hostname)) {
  const config::ClusterConfig& config = controller_->config();
  absl::flat_hash_map<std::string, size_t> index;
  for (size_t i = 0; i < config.nodes.size(); ++i) {
    index[config.nodes[i].name] = i;
  }
  node_partitions_.resize(config.nodes.size());
  for (const config::PartitionConfig& p : config.partitions) {
    for (const std::string& n : p.nodes) {
      if (auto it = index.find(n); it != index.end()) {
        node_partitions_[it->second].push_back(p.name);
      }
    }
  }
}

grpc::Status ControllerServiceImpl::RequireOperator(const lifecycle::Caller& caller,
                                                    absl::string_view what,
                                                    absl::string_view slurm_words) {
  if (caller.is_operator) {
    return grpc::Status::OK;
  }
  return grpc::Status(
      grpc::StatusCode::PERMISSION_DENIED,
      caller.authenticated
          ? absl::StrCat(slurm_words, ": ", caller.user_name,
                         " is not an operator (root, canopyd's user, or the config's operators)")
          : absl::StrCat(slurm_words, ": ", what,
                         " needs an operator identified by canopyd's unix socket (run this on "
                         "the controller host) or by a MUNGE credential (AuthType=auth/munge)"));
}

absl::StatusOr<NodeSelection> NodeSelection::Parse(const std::string& nodes,
                                                   std::string partition) {
  NodeSelection selection;
  if (!nodes.empty()) {
    absl::StatusOr<std::vector<std::string>> names = slurm::ExpandHostlist(nodes);
    if (!names.ok()) {
      return names.status();
    }
    selection.names_.insert(names->begin(), names->end());
  }
  selection.partition_ = std::move(partition);
  return selection;
}

bool NodeSelection::Matches(const std::string& node,
                            const std::vector<std::string>& partitions) const {
  return (names_.empty() || names_.contains(node)) &&
         (partition_.empty() ||
          std::find(partitions.begin(), partitions.end(), partition_) != partitions.end());
}

grpc::Status ControllerServiceImpl::ListNodes(grpc::ServerContext*,
                                              const canopy::v1::ListNodesRequest* request,
                                              canopy::v1::ListNodesResponse* response) {
  return ListNodesFor(request, response);
}

grpc::Status ControllerServiceImpl::ListNodesFor(const canopy::v1::ListNodesRequest* request,
                                                 canopy::v1::ListNodesResponse* response) const {
  absl::StatusOr<NodeSelection> selection =
      NodeSelection::Parse(request->nodes(), request->partition());
  if (!selection.ok()) {
    return rpc::ToGrpcStatus(selection.status());
  }
  std::shared_ptr<const ClusterSnapshot> snap = controller_->Snapshot();
  for (const state::NodeRecord& node : *snap->nodes) {
    const std::vector<std::string>& parts = node_partitions_[node.id.value()];
    if (!selection->Matches(node.name, parts)) {
      continue;
    }
    *response->add_nodes() =
        NodeToProto(node, snap->UseOf(node.id), snap->config->nodes[node.id.value()], parts,
                    *snap->topology, snap->LastHeard(node.id));
  }
  return grpc::Status::OK;
}

grpc::Status ControllerServiceImpl::ListPartitions(grpc::ServerContext*,
                                                   const canopy::v1::ListPartitionsRequest*,
                                                   canopy::v1::ListPartitionsResponse* response) {
  for (const config::PartitionConfig& p : controller_->config().partitions) {
    canopy::v1::Partition* out = response->add_partitions();
    out->set_name(p.name);
    out->set_is_default(p.is_default);
    out->set_up(p.up);
    if (p.max_time != absl::InfiniteDuration()) {
      *out->mutable_max_time() = rpc::ToProtoDuration(p.max_time);
    }
    if (p.default_time != absl::InfiniteDuration()) {
      *out->mutable_default_time() = rpc::ToProtoDuration(p.default_time);
    }
    out->set_max_nodes(p.max_nodes);
    for (const std::string& n : p.nodes) {
      out->add_nodes(n);
    }
    out->set_priority_job_factor(p.policy.priority_job_factor);
    out->set_priority_tier(p.policy.priority_tier);
    for (const std::string& a : p.policy.allow_accounts) {
      out->add_allow_accounts(a);
    }
    out->set_preempt_mode(std::string(slurm::PreemptModeName(p.policy.preempt_mode)));
    *out->mutable_grace_time() = rpc::ToProtoDuration(p.policy.grace_time);
    out->set_billing_weights(slurm::FormatTresBillingWeights(p.policy.billing));
  }
  return grpc::Status::OK;
}

grpc::Status ControllerServiceImpl::UpdateNode(grpc::ServerContext* context,
                                               const canopy::v1::UpdateNodeRequest* request,
                                               canopy::v1::UpdateNodeResponse* response) {
  // Who asks comes first: an ordinary or anonymous caller must not make canopyd expand a
  // hostlist of millions of names only to be refused.
  absl::StatusOr<lifecycle::Caller> caller_or = CallerOf(context, *request);
  if (!caller_or.ok()) {
    return rpc::ToGrpcStatus(caller_or.status());
  }
  const lifecycle::Caller& caller = *caller_or;
  if (grpc::Status denied = RequireOperator(caller, "changing nodes", "Access/permission denied");
      !denied.ok()) {
    return denied;
  }
  absl::StatusOr<std::vector<std::string>> names = slurm::ExpandHostlist(request->nodes());
  if (!names.ok()) {
    return rpc::ToGrpcStatus(names.status());
  }
  if (names->empty()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "nodes: no node named");
  }
  state::NodeAdminAction action;
  switch (request->action()) {
    case canopy::v1::UpdateNodeRequest::ACTION_DRAIN:
      action = state::NodeAdminAction::kDrain;
      break;
    case canopy::v1::UpdateNodeRequest::ACTION_RESUME:
      action = state::NodeAdminAction::kResume;
      break;
    case canopy::v1::UpdateNodeRequest::ACTION_DOWN:
      action = state::NodeAdminAction::kDown;
      break;
    default:
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                          "action: expected ACTION_DRAIN, ACTION_RESUME or ACTION_DOWN");
  }
  absl::StatusOr<std::vector<std::string>> changed =
      controller_->UpdateNodes(*std::move(names), action, request->reason(), caller.user_name);
  if (!changed.ok()) {
    return rpc::ToGrpcStatus(changed.status());
  }
  for (std::string& n : *changed) {
    response->add_updated_nodes(std::move(n));
  }
  return grpc::Status::OK;
}

grpc::Status ControllerServiceImpl::GetTopology(grpc::ServerContext*,
                                                const canopy::v1::GetTopologyRequest* request,
                                                canopy::v1::GetTopologyResponse* response) {
  std::shared_ptr<const ClusterSnapshot> snap = controller_->Snapshot();
  absl::Status s = FillTopology(*snap, request->node(), response);
  return rpc::ToGrpcStatus(s);
}

grpc::ServerUnaryReactor* ControllerServiceImpl::Ping(grpc::CallbackServerContext* context,
                                                      const canopy::v1::PingRequest*,
                                                      canopy::v1::PingResponse* response) {
  std::shared_ptr<const ClusterSnapshot> snap = controller_->Snapshot();
  response->set_cluster_name(controller_->config().cluster_name);
  response->set_version(CANOPY_VERSION);
  response->set_hostname(hostname_);
  response->set_uptime_seconds(absl::ToInt64Seconds(snap->taken - controller_->start_time()));
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

grpc::Status ControllerServiceImpl::GetConfig(grpc::ServerContext*,
                                              const canopy::v1::GetConfigRequest*,
                                              canopy::v1::GetConfigResponse* response) {
  std::shared_ptr<const ClusterSnapshot> snap = controller_->Snapshot();
  const ConfigFacts facts{.boot_time = controller_->start_time(),
                          .next_job_id = snap->next_job_id,
                          .version = CANOPY_VERSION};
  for (auto& [key, value] : ConfigEntries(*snap->config, facts)) {
    canopy::v1::ConfigEntry* entry = response->add_entries();
    entry->set_key(std::move(key));
    entry->set_value(std::move(value));
  }
  *response->mutable_as_of() = rpc::ToProtoTime(snap->taken);
  response->set_hostname(hostname_);
  return grpc::Status::OK;
}

grpc::Status ControllerServiceImpl::Reconfigure(grpc::ServerContext* context,
                                                const canopy::v1::ReconfigureRequest* request,
                                                canopy::v1::ReconfigureResponse* response) {
  absl::StatusOr<lifecycle::Caller> caller_or = CallerOf(context, *request);
  if (!caller_or.ok()) {
    return rpc::ToGrpcStatus(caller_or.status());
  }
  const lifecycle::Caller& caller = *caller_or;
  if (grpc::Status denied = RequireOperator(caller, "reconfigure", "Invalid user id");
      !denied.ok()) {
    return denied;
  }
  if (!request_restart_) {
    return grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                        "this controller cannot restart itself (embedded in a test)");
  }
  // Checked here so that scontrol hears what is wrong; the main thread checks again when it
  // restarts (the file may change in between) and logs the changes.
  absl::StatusOr<ReconfigurePlan> plan =
      PrepareReconfigure(controller_->config(), state_dir_override_, *controller_->Snapshot());
  if (!plan.ok()) {
    spdlog::warn("reconfigure asked by {} refused: {}", caller.user_name, plan.status().message());
    return rpc::ToGrpcStatus(plan.status());
  }
  spdlog::info("reconfigure asked by {}", caller.user_name);
  for (std::string& change : plan->changes) {
    response->add_changes(std::move(change));
  }
  request_restart_();
  return grpc::Status::OK;
}

}  // namespace canopy::server
