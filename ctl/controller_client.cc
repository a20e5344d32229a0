#include "ctl/controller_client.h"

#include <pwd.h>
#include <unistd.h>

#include <chrono>

#include "absl/strings/str_cat.h"
#include "common/rpc/controller_target.h"
#include "common/rpc/status_convert.h"
#include "grpcpp/create_channel.h"

namespace canopy::ctl {
namespace {

// Interactive commands should fail in seconds, not hang, when canopyd is away.
constexpr auto kCallTimeout = std::chrono::seconds(10);

std::string UserName() {
  if (const passwd* pw = getpwuid(getuid()); pw != nullptr) {
    return pw->pw_name;
  }
  return std::to_string(getuid());
}

}  // namespace

absl::StatusOr<ControllerClient> ControllerClient::Connect(const std::string& controller_flag) {
  absl::StatusOr<std::string> target = rpc::ResolveControllerTarget(controller_flag, true);
  if (!target.ok()) {
    return target.status();
  }
  auto channel = grpc::CreateChannel(*target, grpc::InsecureChannelCredentials());
  return ControllerClient(*target, canopy::v1::Controller::NewStub(channel));
}

std::unique_ptr<grpc::ClientContext> ControllerClient::NewContext() const {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + kCallTimeout);
  context->AddMetadata("canopy-user", UserName());
  return context;
}

absl::Status ControllerClient::Explain(const grpc::Status& status) const {
  if (status.error_code() == grpc::StatusCode::UNAVAILABLE ||
      status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
    return absl::UnavailableError(absl::StrCat("cannot reach canopyd at ", target_, " (",
                                               status.error_message(),
                                               "); is it running, and is the address right?"));
  }
  return rpc::FromGrpcStatus(status);
}

absl::StatusOr<canopy::v1::ListNodesResponse> ControllerClient::ListNodes(
    const canopy::v1::ListNodesRequest& request) {
  canopy::v1::ListNodesResponse response;
  grpc::Status s = stub_->ListNodes(NewContext().get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::ListPartitionsResponse> ControllerClient::ListPartitions() {
  canopy::v1::ListPartitionsResponse response;
  grpc::Status s =
      stub_->ListPartitions(NewContext().get(), canopy::v1::ListPartitionsRequest(), &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::GetTopologyResponse> ControllerClient::GetTopology(
    const canopy::v1::GetTopologyRequest& request) {
  canopy::v1::GetTopologyResponse response;
  grpc::Status s = stub_->GetTopology(NewContext().get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::UpdateNodeResponse> ControllerClient::UpdateNode(
    const canopy::v1::UpdateNodeRequest& request) {
  canopy::v1::UpdateNodeResponse response;
  grpc::Status s = stub_->UpdateNode(NewContext().get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::PingResponse> ControllerClient::Ping() {
  canopy::v1::PingResponse response;
  grpc::Status s = stub_->Ping(NewContext().get(), canopy::v1::PingRequest(), &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

}  // namespace canopy::ctl
