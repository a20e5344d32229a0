#include "ctl/client/controller_client.h"

#include <pwd.h>
#include <unistd.h>

#include <chrono>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/rpc/controller_target.h"
#include "common/rpc/message_limits.h"
#include "common/rpc/status_convert.h"
#include "grpcpp/create_channel.h"

namespace canopy::ctl::client {
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
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(rpc::kMaxReplyBytes);  // squeue of a long queue
  auto channel = grpc::CreateCustomChannel(*target, grpc::InsecureChannelCredentials(), args);
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
  // gRPC answers a call the server does not implement with an empty message; say what it means.
  if (status.error_code() == grpc::StatusCode::UNIMPLEMENTED) {
    return absl::UnimplementedError(absl::StrCat(
        "canopyd at ", target_, " does not serve this request (is it older than this canopyctl?)",
        status.error_message().empty() ? "" : ": ", status.error_message()));
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

absl::StatusOr<canopy::v1::SubmitJobResponse> ControllerClient::SubmitJob(
    const canopy::v1::SubmitJobRequest& request) {
  canopy::v1::SubmitJobResponse response;
  grpc::Status s = stub_->SubmitJob(NewContext().get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::CancelJobResponse> ControllerClient::CancelJob(
    const canopy::v1::CancelJobRequest& request) {
  canopy::v1::CancelJobResponse response;
  grpc::Status s = stub_->CancelJob(NewContext().get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::Job> ControllerClient::GetJob(uint32_t job_id) {
  canopy::v1::GetJobRequest request;
  request.set_job_id(job_id);
  canopy::v1::Job response;
  grpc::Status s = stub_->GetJob(NewContext().get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::ListJobsResponse> ControllerClient::ListJobs(
    const canopy::v1::ListJobsRequest& request) {
  canopy::v1::ListJobsResponse response;
  grpc::Status s = stub_->ListJobs(NewContext().get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::CreateStepResponse> ControllerClient::CreateStep(
    const canopy::v1::CreateStepRequest& request) {
  canopy::v1::CreateStepResponse response;
  grpc::Status s = stub_->CreateStep(NewContext().get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::Status ControllerClient::CancelStep(const canopy::v1::CancelStepRequest& request) {
  canopy::v1::CancelStepResponse response;
  grpc::Status s = stub_->CancelStep(NewContext().get(), request, &response);
  return s.ok() ? absl::OkStatus() : Explain(s);
}

absl::Status ControllerClient::CompleteJob(const canopy::v1::CompleteJobRequest& request) {
  canopy::v1::CompleteJobResponse response;
  grpc::Status s = stub_->CompleteJob(NewContext().get(), request, &response);
  return s.ok() ? absl::OkStatus() : Explain(s);
}

absl::StatusOr<canopy::v1::WhoAmIResponse> ControllerClient::WhoAmI() {
  canopy::v1::WhoAmIResponse response;
  grpc::Status s = stub_->WhoAmI(NewContext().get(), canopy::v1::WhoAmIRequest(), &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::ListAssociationsResponse> ControllerClient::ListAssociations() {
  canopy::v1::ListAssociationsResponse response;
  grpc::Status s =
      stub_->ListAssociations(NewContext().get(), canopy::v1::ListAssociationsRequest(), &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::UpdateAssociationsResponse> ControllerClient::UpdateAssociations(
    const canopy::v1::UpdateAssociationsRequest& request) {
  canopy::v1::UpdateAssociationsResponse response;
  grpc::Status s = stub_->UpdateAssociations(NewContext().get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::ListQosResponse> ControllerClient::ListQos() {
  canopy::v1::ListQosResponse response;
  grpc::Status s = stub_->ListQos(NewContext().get(), canopy::v1::ListQosRequest(), &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::UpdateQosResponse> ControllerClient::UpdateQos(
    const canopy::v1::UpdateQosRequest& request) {
  canopy::v1::UpdateQosResponse response;
  grpc::Status s = stub_->UpdateQos(NewContext().get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::GetSharesResponse> ControllerClient::GetShares() {
  canopy::v1::GetSharesResponse response;
  grpc::Status s = stub_->GetShares(NewContext().get(), canopy::v1::GetSharesRequest(), &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::ListPrioritiesResponse> ControllerClient::ListPriorities(
    const canopy::v1::ListPrioritiesRequest& request) {
  canopy::v1::ListPrioritiesResponse response;
  grpc::Status s = stub_->ListPriorities(NewContext().get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::ListAccountingResponse> ControllerClient::ListAccounting(
    const canopy::v1::ListAccountingRequest& request) {
  canopy::v1::ListAccountingResponse response;
  grpc::Status s = stub_->ListAccounting(NewContext().get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::GetConfigResponse> ControllerClient::GetConfig() {
  canopy::v1::GetConfigResponse response;
  grpc::Status s = stub_->GetConfig(NewContext().get(), canopy::v1::GetConfigRequest(), &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::ReconfigureResponse> ControllerClient::Reconfigure() {
  canopy::v1::ReconfigureResponse response;
  grpc::Status s =
      stub_->Reconfigure(NewContext().get(), canopy::v1::ReconfigureRequest(), &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::Status ControllerClient::NotifyJob(const canopy::v1::NotifyJobRequest& request) {
  canopy::v1::NotifyJobResponse response;
  grpc::Status s = stub_->NotifyJob(NewContext().get(), request, &response);
  return s.ok() ? absl::OkStatus() : Explain(s);
}

absl::StatusOr<canopy::v1::AttachStepResponse> ControllerClient::AttachStep(
    const canopy::v1::AttachStepRequest& request) {
  canopy::v1::AttachStepResponse response;
  grpc::Status s = stub_->AttachStep(NewContext().get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::Status ControllerClient::UpdateJob(const canopy::v1::UpdateJobRequest& request) {
  canopy::v1::UpdateJobResponse response;
  grpc::Status s = stub_->UpdateJob(NewContext().get(), request, &response);
  return s.ok() ? absl::OkStatus() : Explain(s);
}

absl::StatusOr<canopy::v1::JobActionResponse> ControllerClient::HoldJobs(
    const canopy::v1::HoldJobsRequest& request) {
  canopy::v1::JobActionResponse response;
  grpc::Status s = stub_->HoldJobs(NewContext().get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::JobActionResponse> ControllerClient::ReleaseJobs(
    const canopy::v1::ReleaseJobsRequest& request) {
  canopy::v1::JobActionResponse response;
  grpc::Status s = stub_->ReleaseJobs(NewContext().get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::JobActionResponse> ControllerClient::RequeueJobs(
    const canopy::v1::RequeueJobsRequest& request) {
  canopy::v1::JobActionResponse response;
  grpc::Status s = stub_->RequeueJobs(NewContext().get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

bool ControllerClient::IsLocal() const {
  return absl::StartsWith(target_, "unix:") || absl::StartsWith(target_, "127.") ||
         absl::StartsWith(target_, "[::1]") || absl::StartsWith(target_, "localhost:");
}

}  // namespace canopy::ctl::client
