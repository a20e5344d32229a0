// ControllerService: scontrol notify and sattach (controller_service.h).
#include "common/rpc/status_convert.h"
#include "scheduler/server/controller_service.h"

namespace canopy::server {

grpc::Status ControllerServiceImpl::NotifyJob(grpc::ServerContext* context,
                                              const canopy::v1::NotifyJobRequest* request,
                                              canopy::v1::NotifyJobResponse*) {
  lifecycle::NotifyRequest notify{core::JobId(request->job_id()), request->message()};
  return rpc::ToGrpcStatus(controller_->NotifyJob(std::move(notify), CallerOf(context)));
}

grpc::Status ControllerServiceImpl::AttachStep(grpc::ServerContext* context,
                                               const canopy::v1::AttachStepRequest* request,
                                               canopy::v1::AttachStepResponse* response) {
  lifecycle::AttachRequest attach{core::JobId(request->job_id()), request->step_id(),
                                  request->io_address(), request->io_token()};
  absl::StatusOr<lifecycle::StepAnswer> answer =
      controller_->AttachStep(std::move(attach), CallerOf(context));
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
