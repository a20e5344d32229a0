#include "ctl/client/controller_client.h"

#include <netdb.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/auth/call_signing.h"
#include "common/auth/tls_credentials.h"
#include "common/os/hostname.h"
#include "common/os/unique_fd.h"
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
  absl::StatusOr<rpc::ControllerEndpoint> endpoint =
      rpc::ResolveControllerEndpoint(controller_flag, true);
  if (!endpoint.ok()) {
    return endpoint.status();
  }
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      auth::ChannelCredentials(endpoint->security, endpoint->target);
  if (!credentials.ok()) {
    return credentials.status();
  }
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(rpc::kMaxReplyBytes);  // squeue of a long queue
  auto channel = grpc::CreateCustomChannel(endpoint->target, *credentials, args);
  return ControllerClient(endpoint->target, endpoint->security,
                          canopy::v1::Controller::NewStub(channel));
}

absl::StatusOr<std::unique_ptr<grpc::ClientContext>> ControllerClient::NewContext(
    const google::protobuf::Message& request) const {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + kCallTimeout);
  context->AddMetadata("canopy-user", UserName());
  // Over TCP with AuthType=auth/munge the credential is who we are; over the unix socket the
  // kernel says so and canopyd ignores it, so local commands work while munged is down.
  if (!absl::StartsWith(target_, "unix:")) {
    if (absl::Status s = auth::SignCall(security_, request, *context); !s.ok()) {
      return s;
    }
  }
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
  absl::StatusOr<std::unique_ptr<grpc::ClientContext>> context = NewContext(request);
  if (!context.ok()) {
    return context.status();
  }
  grpc::Status s = stub_->ListNodes(context->get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::ListPartitionsResponse> ControllerClient::ListPartitions() {
  canopy::v1::ListPartitionsResponse response;
  const canopy::v1::ListPartitionsRequest request;
  absl::StatusOr<std::unique_ptr<grpc::ClientContext>> context = NewContext(request);
  if (!context.ok()) {
    return context.status();
  }
  grpc::Status s = stub_->ListPartitions(context->get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::GetTopologyResponse> ControllerClient::GetTopology(
    const canopy::v1::GetTopologyRequest& request) {
  canopy::v1::GetTopologyResponse response;
  absl::StatusOr<std::unique_ptr<grpc::ClientContext>> context = NewContext(request);
  if (!context.ok()) {
    return context.status();
  }
  grpc::Status s = stub_->GetTopology(context->get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::UpdateNodeResponse> ControllerClient::UpdateNode(
    const canopy::v1::UpdateNodeRequest& request) {
  canopy::v1::UpdateNodeResponse response;
  absl::StatusOr<std::unique_ptr<grpc::ClientContext>> context = NewContext(request);
  if (!context.ok()) {
    return context.status();
  }
  grpc::Status s = stub_->UpdateNode(context->get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::PingResponse> ControllerClient::Ping() {
  canopy::v1::PingResponse response;
  const canopy::v1::PingRequest request;
  absl::StatusOr<std::unique_ptr<grpc::ClientContext>> context = NewContext(request);
  if (!context.ok()) {
    return context.status();
  }
  grpc::Status s = stub_->Ping(context->get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::SubmitJobResponse> ControllerClient::SubmitJob(
    const canopy::v1::SubmitJobRequest& request) {
  canopy::v1::SubmitJobResponse response;
  absl::StatusOr<std::unique_ptr<grpc::ClientContext>> context = NewContext(request);
  if (!context.ok()) {
    return context.status();
  }
  grpc::Status s = stub_->SubmitJob(context->get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::CancelJobResponse> ControllerClient::CancelJob(
    const canopy::v1::CancelJobRequest& request) {
  canopy::v1::CancelJobResponse response;
  absl::StatusOr<std::unique_ptr<grpc::ClientContext>> context = NewContext(request);
  if (!context.ok()) {
    return context.status();
  }
  grpc::Status s = stub_->CancelJob(context->get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::Job> ControllerClient::GetJob(uint32_t job_id) {
  canopy::v1::GetJobRequest request;
  request.set_job_id(job_id);
  canopy::v1::Job response;
  absl::StatusOr<std::unique_ptr<grpc::ClientContext>> context = NewContext(request);
  if (!context.ok()) {
    return context.status();
  }
  grpc::Status s = stub_->GetJob(context->get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::ListJobsResponse> ControllerClient::ListJobs(
    const canopy::v1::ListJobsRequest& request) {
  canopy::v1::ListJobsResponse response;
  absl::StatusOr<std::unique_ptr<grpc::ClientContext>> context = NewContext(request);
  if (!context.ok()) {
    return context.status();
  }
  grpc::Status s = stub_->ListJobs(context->get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::CreateStepResponse> ControllerClient::CreateStep(
    const canopy::v1::CreateStepRequest& request) {
  canopy::v1::CreateStepResponse response;
  absl::StatusOr<std::unique_ptr<grpc::ClientContext>> context = NewContext(request);
  if (!context.ok()) {
    return context.status();
  }
  grpc::Status s = stub_->CreateStep(context->get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::Status ControllerClient::CancelStep(const canopy::v1::CancelStepRequest& request) {
  canopy::v1::CancelStepResponse response;
  absl::StatusOr<std::unique_ptr<grpc::ClientContext>> context = NewContext(request);
  if (!context.ok()) {
    return context.status();
  }
  grpc::Status s = stub_->CancelStep(context->get(), request, &response);
  return s.ok() ? absl::OkStatus() : Explain(s);
}

absl::Status ControllerClient::CompleteJob(const canopy::v1::CompleteJobRequest& request) {
  canopy::v1::CompleteJobResponse response;
  absl::StatusOr<std::unique_ptr<grpc::ClientContext>> context = NewContext(request);
  if (!context.ok()) {
    return context.status();
  }
  grpc::Status s = stub_->CompleteJob(context->get(), request, &response);
  return s.ok() ? absl::OkStatus() : Explain(s);
}

absl::StatusOr<canopy::v1::WhoAmIResponse> ControllerClient::WhoAmI() {
  canopy::v1::WhoAmIResponse response;
  const canopy::v1::WhoAmIRequest request;
  absl::StatusOr<std::unique_ptr<grpc::ClientContext>> context = NewContext(request);
  if (!context.ok()) {
    return context.status();
  }
  grpc::Status s = stub_->WhoAmI(context->get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::ListAssociationsResponse> ControllerClient::ListAssociations() {
  canopy::v1::ListAssociationsResponse response;
  const canopy::v1::ListAssociationsRequest request;
  absl::StatusOr<std::unique_ptr<grpc::ClientContext>> context = NewContext(request);
  if (!context.ok()) {
    return context.status();
  }
  grpc::Status s = stub_->ListAssociations(context->get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::UpdateAssociationsResponse> ControllerClient::UpdateAssociations(
    const canopy::v1::UpdateAssociationsRequest& request) {
  canopy::v1::UpdateAssociationsResponse response;
  absl::StatusOr<std::unique_ptr<grpc::ClientContext>> context = NewContext(request);
  if (!context.ok()) {
    return context.status();
  }
  grpc::Status s = stub_->UpdateAssociations(context->get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::ListQosResponse> ControllerClient::ListQos() {
  canopy::v1::ListQosResponse response;
  const canopy::v1::ListQosRequest request;
  absl::StatusOr<std::unique_ptr<grpc::ClientContext>> context = NewContext(request);
  if (!context.ok()) {
    return context.status();
  }
  grpc::Status s = stub_->ListQos(context->get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::UpdateQosResponse> ControllerClient::UpdateQos(
    const canopy::v1::UpdateQosRequest& request) {
  canopy::v1::UpdateQosResponse response;
  absl::StatusOr<std::unique_ptr<grpc::ClientContext>> context = NewContext(request);
  if (!context.ok()) {
    return context.status();
  }
  grpc::Status s = stub_->UpdateQos(context->get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::GetSharesResponse> ControllerClient::GetShares() {
  canopy::v1::GetSharesResponse response;
  const canopy::v1::GetSharesRequest request;
  absl::StatusOr<std::unique_ptr<grpc::ClientContext>> context = NewContext(request);
  if (!context.ok()) {
    return context.status();
  }
  grpc::Status s = stub_->GetShares(context->get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::ListPrioritiesResponse> ControllerClient::ListPriorities(
    const canopy::v1::ListPrioritiesRequest& request) {
  canopy::v1::ListPrioritiesResponse response;
  absl::StatusOr<std::unique_ptr<grpc::ClientContext>> context = NewContext(request);
  if (!context.ok()) {
    return context.status();
  }
  grpc::Status s = stub_->ListPriorities(context->get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::ListAccountingResponse> ControllerClient::ListAccounting(
    const canopy::v1::ListAccountingRequest& request) {
  canopy::v1::ListAccountingResponse response;
  absl::StatusOr<std::unique_ptr<grpc::ClientContext>> context = NewContext(request);
  if (!context.ok()) {
    return context.status();
  }
  grpc::Status s = stub_->ListAccounting(context->get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::GetConfigResponse> ControllerClient::GetConfig() {
  canopy::v1::GetConfigResponse response;
  const canopy::v1::GetConfigRequest request;
  absl::StatusOr<std::unique_ptr<grpc::ClientContext>> context = NewContext(request);
  if (!context.ok()) {
    return context.status();
  }
  grpc::Status s = stub_->GetConfig(context->get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::ReconfigureResponse> ControllerClient::Reconfigure() {
  canopy::v1::ReconfigureResponse response;
  const canopy::v1::ReconfigureRequest request;
  absl::StatusOr<std::unique_ptr<grpc::ClientContext>> context = NewContext(request);
  if (!context.ok()) {
    return context.status();
  }
  grpc::Status s = stub_->Reconfigure(context->get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::Status ControllerClient::NotifyJob(const canopy::v1::NotifyJobRequest& request) {
  canopy::v1::NotifyJobResponse response;
  absl::StatusOr<std::unique_ptr<grpc::ClientContext>> context = NewContext(request);
  if (!context.ok()) {
    return context.status();
  }
  grpc::Status s = stub_->NotifyJob(context->get(), request, &response);
  return s.ok() ? absl::OkStatus() : Explain(s);
}

absl::StatusOr<canopy::v1::AttachStepResponse> ControllerClient::AttachStep(
    const canopy::v1::AttachStepRequest& request) {
  canopy::v1::AttachStepResponse response;
  absl::StatusOr<std::unique_ptr<grpc::ClientContext>> context = NewContext(request);
  if (!context.ok()) {
    return context.status();
  }
  grpc::Status s = stub_->AttachStep(context->get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::Status ControllerClient::UpdateJob(const canopy::v1::UpdateJobRequest& request) {
  canopy::v1::UpdateJobResponse response;
  absl::StatusOr<std::unique_ptr<grpc::ClientContext>> context = NewContext(request);
  if (!context.ok()) {
    return context.status();
  }
  grpc::Status s = stub_->UpdateJob(context->get(), request, &response);
  return s.ok() ? absl::OkStatus() : Explain(s);
}

absl::StatusOr<canopy::v1::JobActionResponse> ControllerClient::HoldJobs(
    const canopy::v1::HoldJobsRequest& request) {
  canopy::v1::JobActionResponse response;
  absl::StatusOr<std::unique_ptr<grpc::ClientContext>> context = NewContext(request);
  if (!context.ok()) {
    return context.status();
  }
  grpc::Status s = stub_->HoldJobs(context->get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::JobActionResponse> ControllerClient::ReleaseJobs(
    const canopy::v1::ReleaseJobsRequest& request) {
  canopy::v1::JobActionResponse response;
  absl::StatusOr<std::unique_ptr<grpc::ClientContext>> context = NewContext(request);
  if (!context.ok()) {
    return context.status();
  }
  grpc::Status s = stub_->ReleaseJobs(context->get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

absl::StatusOr<canopy::v1::JobActionResponse> ControllerClient::RequeueJobs(
    const canopy::v1::RequeueJobsRequest& request) {
  canopy::v1::JobActionResponse response;
  absl::StatusOr<std::unique_ptr<grpc::ClientContext>> context = NewContext(request);
  if (!context.ok()) {
    return context.status();
  }
  grpc::Status s = stub_->RequeueJobs(context->get(), request, &response);
  if (!s.ok()) {
    return Explain(s);
  }
  return response;
}

std::string ControllerClient::AddressSeenByNodes() const {
  if (IsLocal()) {
    return "127.0.0.1";
  }
  // The address this host sends from toward canopyd: on a login or compute node with several
  // networks that is the one the cluster's nodes share, where the host name may resolve to a
  // public or loopback address. connect() on a UDP socket sends nothing; it only picks a route.
  const size_t colon = target_.rfind(':');
  std::string host = target_.substr(0, colon);
  if (!host.empty() && host.front() == '[') {
    host = host.substr(1, host.size() - 2);
  }
  addrinfo hints{};
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), target_.substr(colon + 1).c_str(), &hints, &found) == 0) {
    std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> list(found, &freeaddrinfo);
    os::UniqueFd fd(::socket(found->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    sockaddr_storage local{};
    socklen_t length = sizeof(local);
    char text[NI_MAXHOST];
    if (fd.valid() && ::connect(fd.get(), found->ai_addr, found->ai_addrlen) == 0 &&
        ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&local), &length) == 0 &&
        getnameinfo(reinterpret_cast<sockaddr*>(&local), length, text, sizeof(text), nullptr, 0,
                    NI_NUMERICHOST) == 0) {
      return local.ss_family == AF_INET6 ? absl::StrCat("[", text, "]") : std::string(text);
    }
  }
  return os::Hostname(true);
}

bool ControllerClient::IsLocal() const {
  return absl::StartsWith(target_, "unix:") || absl::StartsWith(target_, "127.") ||
         absl::StartsWith(target_, "[::1]") || absl::StartsWith(target_, "localhost:");
}

}  // namespace canopy::ctl::client
