// ControllerService: scontrol notify and sattach (controller_service.h).
#include "absl/strings/str_cat.h"
#include "common/rpc/status_convert.h"
#include "scheduler/server/controller_service.h"

namespace canopy::server {

grpc::Status ControllerServiceImpl::NotifyJob(grpc::ServerContext* context,
                                              const canopy::v1::NotifyJobRequest* request,
                                              canopy::v1::NotifyJobResponse*) {
  // A notice is a line for a person; the agent passes it to a child process on its command line.
  constexpr size_t kMaxMessage = 64 << 10;
  if (request->message().size() > kMaxMessage) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        absl::StrCat("message: ", request->message().size(), " bytes; at most ",
                                     kMaxMessage, " are sent"));
  }
  lifecycle::NotifyRequest notify{core::JobId(request->job_id()), request->message()};
  absl::StatusOr<lifecycle::Caller> caller_or = CallerOf(context, *request);
  if (!caller_or.ok()) {
    return rpc::ToGrpcStatus(caller_or.status());
  }
  return rpc::ToGrpcStatus(controller_->NotifyJob(std::move(notify), *caller_or));
}

grpc::Status ControllerServiceImpl::AttachStep(grpc::ServerContext* context,
                                               const canopy::v1::AttachStepRequest* request,
                                               canopy::v1::AttachStepResponse* response) {
  lifecycle::AttachRequest attach{core::JobId(request->job_id()), request->step_id(),
                                  request->io_address(), request->io_token()};
  absl::StatusOr<lifecycle::Caller> caller_or = CallerOf(context, *request);
  if (!caller_or.ok()) {
    return rpc::ToGrpcStatus(caller_or.status());
  }
  absl::StatusOr<lifecycle::StepAnswer> answer =
      controller_->AttachStep(std::move(attach), *caller_or);
  if (!answer.ok()) {
    return rpc::ToGrpcStatus(answer.status());
  }
  for (std::string& node : answer->nodes) {
    response->add_nodes(std::move(node));
  }
  response->mutable_tasks_per_node()->Add(answer->tasks_per_node.begin(),
                                          answer->tasks_per_node.end());
  response->set_ntasks(answer->ntasks);
  return grpc::Status::OK;
}

}  // namespace canopy::server
