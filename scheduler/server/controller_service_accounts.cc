// ControllerServiceImpl's accounting RPCs: associations (sacctmgr), fair share (sshare),
// priority factors (sprio) and changes to a job's priority and time limit (scontrol update,
// top). Reads come
// from the snapshot's copy of the fair-share state; writes go through the Controller.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "common/rpc/status_convert.h"
#include "scheduler/server/controller_service.h"
#include "scheduler/server/proto_convert.h"
#include "scheduler/server/proto_convert_accounts.h"

namespace canopy::server {

grpc::Status ControllerServiceImpl::ListAssociations(
    grpc::ServerContext*, const canopy::v1::ListAssociationsRequest*,
    canopy::v1::ListAssociationsResponse* response) {
  std::shared_ptr<const ClusterSnapshot> snap = controller_->Snapshot();
  response->set_cluster_name(snap->config->cluster_name);
  if (snap->accounting == nullptr) {
    return grpc::Status::OK;
  }
  for (const fairshare::AssociationSpec& spec : snap->accounting->tree().Specs()) {
    *response->add_associations() = ToProto(spec);
  }
  return grpc::Status::OK;
}

grpc::Status ControllerServiceImpl::UpdateAssociations(
    grpc::ServerContext* context, const canopy::v1::UpdateAssociationsRequest* request,
    canopy::v1::UpdateAssociationsResponse* response) {
  absl::StatusOr<fairshare::AssociationEdit> edit = FromProto(request->operation());
  if (!edit.ok()) {
    return rpc::ToGrpcStatus(edit.status());
  }
  std::vector<fairshare::AssociationSpec> specs;
  specs.reserve(request->associations_size());
  for (const canopy::v1::Association& a : request->associations()) {
    specs.push_back(FromProto(a));
  }
  absl::StatusOr<lifecycle::Caller> caller_or = CallerOf(context, *request);
  if (!caller_or.ok()) {
    return rpc::ToGrpcStatus(caller_or.status());
  }
  absl::StatusOr<std::vector<std::string>> changed =
      controller_->UpdateAssociations(*edit, std::move(specs), request->set_shares(), *caller_or);
  if (!changed.ok()) {
    return rpc::ToGrpcStatus(changed.status());
  }
  for (std::string& line : *changed) {
    response->add_changed(std::move(line));
  }
  return grpc::Status::OK;
}

grpc::Status ControllerServiceImpl::GetShares(grpc::ServerContext*,
                                              const canopy::v1::GetSharesRequest*,
                                              canopy::v1::GetSharesResponse* response) {
  std::shared_ptr<const ClusterSnapshot> snap = controller_->Snapshot();
  if (snap->accounting != nullptr) {
    *response = SharesToProto(*snap->accounting);
  }
  return grpc::Status::OK;
}

grpc::Status ControllerServiceImpl::ListPriorities(grpc::ServerContext*,
                                                   const canopy::v1::ListPrioritiesRequest* request,
                                                   canopy::v1::ListPrioritiesResponse* response) {
  std::shared_ptr<const ClusterSnapshot> snap = controller_->Snapshot();
  const lifecycle::Accounting* accounting = snap->accounting.get();
  if (accounting == nullptr) {
    return grpc::Status(grpc::StatusCode::UNAVAILABLE, "canopyd is starting; try again");
  }
  response->set_multifactor(accounting->multifactor());
  canopy::v1::PriorityWeights& w = *response->mutable_weights();
  w.set_age(accounting->weights().age);
  w.set_fairshare(accounting->weights().fairshare);
  w.set_job_size(accounting->weights().job_size);
  w.set_partition(accounting->weights().partition);
  w.set_qos(accounting->weights().qos);
  const absl::flat_hash_set<uint32_t> ids(request->job_ids().begin(), request->job_ids().end());
  const absl::flat_hash_set<std::string> users(request->users().begin(), request->users().end());
  const absl::flat_hash_set<std::string> partitions(request->partitions().begin(),
                                                    request->partitions().end());
  const absl::Time now = controller_->Now();
  snap->ForEachJob([&](const core::Job& job) {
    // As slurmctld's priority/multifactor lists them: pending jobs only, not held ones
    // (priority 0) and not those whose begin time is still to come.
    if (job.state != core::JobState::kPending || job.priority == 0 || job.spec->begin_time > now ||
        (!ids.empty() && !ids.contains(job.id.value()) && !ids.contains(job.array_job_id)) ||
        (!users.empty() && !users.contains(job.user_name)) ||
        (!partitions.empty() && !partitions.contains(job.partition))) {
      return;
    }
    *response->add_jobs() = PriorityToProto(job, *accounting, now);
  });
  return grpc::Status::OK;
}

grpc::Status ControllerServiceImpl::UpdateJob(grpc::ServerContext* context,
                                              const canopy::v1::UpdateJobRequest* request,
                                              canopy::v1::UpdateJobResponse*) {
  const std::optional<lifecycle::TimeLimitChange> time_limit = TimeLimitFromProto(*request);
  absl::StatusOr<lifecycle::JobEdit> edit = JobEditFromProto(*request);
  if (!edit.ok()) {
    return rpc::ToGrpcStatus(edit.status());
  }
  if (!request->has_priority() && !request->has_nice() && !request->top() &&
      !time_limit.has_value() && edit->empty()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "nothing to change: give priority, nice, time_limit, top, name, comment, "
                        "partition, node counts or lists, or dependencies");
  }
  std::optional<uint32_t> priority;
  if (request->has_priority()) {
    priority = request->priority();
  }
  std::optional<int32_t> nice;
  if (request->has_nice()) {
    nice = request->nice();
  }
  absl::StatusOr<lifecycle::Caller> caller_or = CallerOf(context, *request);
  if (!caller_or.ok()) {
    return rpc::ToGrpcStatus(caller_or.status());
  }
  return rpc::ToGrpcStatus(controller_->UpdateJob(core::JobId(request->job_id()), priority, nice,
                                                  time_limit, request->top(), *std::move(edit),
                                                  *caller_or));
}

}  // namespace canopy::server
