// ControllerServiceImpl's accounting RPC: sacct's ListAccounting, read from the database on the
// caller's gRPC thread (a connection of its own; the owner thread is never involved).
#include <string>
#include <vector>

#include "common/rpc/status_convert.h"
#include "scheduler/persistence/history.h"
#include "scheduler/server/controller_service.h"
#include "scheduler/server/proto_convert_history.h"

namespace canopy::server {
namespace {

// The most job records one answer carries: beyond it the answer would pass gRPC's message
// limit and the reader's memory would follow the history's size. sacct narrows with -S/-E.
constexpr size_t kMaxAccountingJobs = 100000;

}  // namespace

grpc::Status ControllerServiceImpl::ListAccounting(grpc::ServerContext* context,
                                                   const canopy::v1::ListAccountingRequest* request,
                                                   canopy::v1::ListAccountingResponse* response) {
  if (history_ == nullptr) {
    return grpc::Status(grpc::StatusCode::UNAVAILABLE, "Slurm accounting storage is disabled");
  }
  absl::StatusOr<lifecycle::Caller> caller_or = CallerOf(context, *request);
  if (!caller_or.ok()) {
    return rpc::ToGrpcStatus(caller_or.status());
  }
  const lifecycle::Caller& caller = *caller_or;
  persistence::HistoryQuery query = FromProto(*request);
  const bool private_jobs = controller_->config().scheduling.accounting.private_jobs();
  if (!caller.authenticated) {
    if (private_jobs) {
      return grpc::Status(
          grpc::StatusCode::PERMISSION_DENIED,
          "Access/permission denied: PrivateData=jobs shows jobs only to their "
          "owners; connect over canopyd's unix socket, or with AuthType=auth/munge");
    }
  } else if (private_jobs && !caller.is_operator) {
    // Like slurmdbd with PrivateData=jobs: whatever was asked, only the caller's own jobs.
    query.user_ids = {caller.uid};
  } else if (query.user_ids.empty() && !request->all_users()) {
    query.user_ids = {caller.uid};  // sacct without -a or -u: the caller's jobs
  }
  absl::StatusOr<std::vector<persistence::HistoryJob>> jobs =
      history_->Read(query, kMaxAccountingJobs);
  if (!jobs.ok()) {
    return rpc::ToGrpcStatus(jobs.status());
  }
  std::shared_ptr<const ClusterSnapshot> snap = controller_->Snapshot();
  for (const persistence::HistoryJob& job : *jobs) {
    AppendAccounting(job, *snap->topology, *response);
  }
  *response->mutable_server_time() = rpc::ToProtoTime(controller_->Now());
  return grpc::Status::OK;
}

}  // namespace canopy::server
