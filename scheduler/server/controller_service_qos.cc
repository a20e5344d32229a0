// ControllerServiceImpl's QOS RPCs (sacctmgr show|add|modify|delete qos). Reads come from the
// snapshot's copy of the accounting state; writes go through the Controller.
#include <string>
#include <utility>
#include <vector>

#include "common/rpc/status_convert.h"
#include "scheduler/server/controller_service.h"
#include "scheduler/server/proto_convert_qos.h"

namespace canopy::server {

grpc::Status ControllerServiceImpl::ListQos(grpc::ServerContext*, const canopy::v1::ListQosRequest*,
                                            canopy::v1::ListQosResponse* response) {
  std::shared_ptr<const ClusterSnapshot> snap = controller_->Snapshot();
  if (snap->accounting == nullptr) {
    return grpc::Status(grpc::StatusCode::UNAVAILABLE, "canopyd is starting; try again");
  }
  for (const limits::QosSpec& spec : snap->accounting->qos().specs()) {
    *response->add_qos() = ToProto(spec);
  }
  return grpc::Status::OK;
}

grpc::Status ControllerServiceImpl::UpdateQos(grpc::ServerContext* context,
                                              const canopy::v1::UpdateQosRequest* request,
                                              canopy::v1::UpdateQosResponse* response) {
  absl::StatusOr<QosEdit> edit = FromProto(request->operation());
  if (!edit.ok()) {
    return rpc::ToGrpcStatus(edit.status());
  }
  std::vector<std::string> names(request->names().begin(), request->names().end());
  absl::StatusOr<lifecycle::Caller> caller_or = CallerOf(context, *request);
  if (!caller_or.ok()) {
    return rpc::ToGrpcStatus(caller_or.status());
  }
  absl::StatusOr<std::vector<std::string>> changed =
      controller_->UpdateQos(*edit, std::move(names), QosOptionsFromProto(*request), *caller_or);
  if (!changed.ok()) {
    return rpc::ToGrpcStatus(changed.status());
  }
  for (std::string& name : *changed) {
    response->add_changed(std::move(name));
  }
  return grpc::Status::OK;
}

}  // namespace canopy::server
