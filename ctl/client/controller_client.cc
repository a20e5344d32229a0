#include "ctl/client/controller_client.h"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
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
constexpr absl::Duration kCallTimeout = absl::Seconds(10);

// The socket file of a "unix:PATH" or "unix://PATH" target; empty for other targets.
std::string UnixSocketPath(const std::string& target) {
  if (absl::StartsWith(target, "unix://")) {
    return target.substr(7);
  }
  return absl::StartsWith(target, "unix:") ? target.substr(5) : std::string();
}

// CANOPY_CLI_TRANSPORT=grpc sends unix-socket calls through gRPC's own client as well: a way to
// compare the two (tests/bench/cli_bench.sh) and a fallback should the direct path misbehave.
bool UseGrpcForUnixSockets() {
  const char* transport = std::getenv("CANOPY_CLI_TRANSPORT");
  return transport != nullptr && absl::string_view(transport) == "grpc";
}

}  // namespace

// The method's name and the stub's member come from one token, so they cannot disagree.
#define CANOPY_UNARY(Response, Method, request) \
  Unary<Response>("/canopy.v1.Controller/" #Method, &Stub::Method, request)

absl::StatusOr<ControllerClient> ControllerClient::Connect(const std::string& controller_flag) {
  absl::StatusOr<rpc::ControllerEndpoint> endpoint =
      rpc::ResolveControllerEndpoint(controller_flag, true);
  if (!endpoint.ok()) {
    return endpoint.status();
  }
  ControllerClient client(endpoint->target, endpoint->security);
  const std::string socket = UnixSocketPath(endpoint->target);
  if (!socket.empty() && !UseGrpcForUnixSockets()) {
    client.unix_ = std::make_unique<UnixGrpcConnection>(socket, rpc::kMaxReplyBytes);
    return client;
  }
  // TLS files are read now, so that a wrong path is reported before anything is sent.
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      auth::ChannelCredentials(endpoint->security, endpoint->target);
  if (!credentials.ok()) {
    return credentials.status();
  }
  client.credentials_ = *std::move(credentials);
  return client;
}

canopy::v1::Controller::Stub& ControllerClient::stub() {
  if (stub_ == nullptr) {
    // Made on the first call: creating a channel starts gRPC's client threads.
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(rpc::kMaxReplyBytes);  // squeue of a long queue
    stub_ = canopy::v1::Controller::NewStub(grpc::CreateCustomChannel(target_, credentials_, args));
  }
  return *stub_;
}

template <typename Response, typename Request>
absl::Status ControllerClient::UnaryInto(const char* method, StubMethod<Request, Response> call,
                                         const Request& request, Response* response) {
  const absl::Time deadline = absl::Now() + kCallTimeout;
  grpc::Status status;
  if (unix_ != nullptr) {
    // Over the unix socket the kernel tells canopyd who calls (SO_PEERCRED).
    status = unix_->Call(method, request, {}, deadline, response);
  } else {
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(deadline));
    // Over TCP with AuthType=auth/munge the credential is who we are; over the unix socket
    // the kernel says so and canopyd ignores it, so local commands work while munged is down.
    if (!absl::StartsWith(target_, "unix:")) {
      if (absl::Status s = auth::SignCall(security_, request, context); !s.ok()) {
        return s;
      }
    }
    status = (stub().*call)(&context, request, response);
  }
  return status.ok() ? absl::OkStatus() : Explain(status);
}

template <typename Response, typename Request>
absl::StatusOr<Response> ControllerClient::Unary(const char* method,
                                                 StubMethod<Request, Response> call,
                                                 const Request& request) {
  Response response;
  if (absl::Status s = UnaryInto(method, call, request, &response); !s.ok()) {
    return s;
  }
  return response;
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
  return CANOPY_UNARY(canopy::v1::ListNodesResponse, ListNodes, request);
}

absl::StatusOr<canopy::v1::ListPartitionsResponse> ControllerClient::ListPartitions() {
  return CANOPY_UNARY(canopy::v1::ListPartitionsResponse, ListPartitions,
                      canopy::v1::ListPartitionsRequest());
}

absl::StatusOr<canopy::v1::GetTopologyResponse> ControllerClient::GetTopology(
    const canopy::v1::GetTopologyRequest& request) {
  return CANOPY_UNARY(canopy::v1::GetTopologyResponse, GetTopology, request);
}

absl::StatusOr<canopy::v1::UpdateNodeResponse> ControllerClient::UpdateNode(
    const canopy::v1::UpdateNodeRequest& request) {
  return CANOPY_UNARY(canopy::v1::UpdateNodeResponse, UpdateNode, request);
}

absl::StatusOr<canopy::v1::PingResponse> ControllerClient::Ping() {
  return CANOPY_UNARY(canopy::v1::PingResponse, Ping, canopy::v1::PingRequest());
}

absl::StatusOr<canopy::v1::SubmitJobResponse> ControllerClient::SubmitJob(
    const canopy::v1::SubmitJobRequest& request) {
  return CANOPY_UNARY(canopy::v1::SubmitJobResponse, SubmitJob, request);
}

absl::StatusOr<canopy::v1::CancelJobResponse> ControllerClient::CancelJob(
    const canopy::v1::CancelJobRequest& request) {
  return CANOPY_UNARY(canopy::v1::CancelJobResponse, CancelJob, request);
}

absl::StatusOr<canopy::v1::Job> ControllerClient::GetJob(uint32_t job_id) {
  canopy::v1::GetJobRequest request;
  request.set_job_id(job_id);
  return CANOPY_UNARY(canopy::v1::Job, GetJob, request);
}

absl::StatusOr<canopy::v1::ListJobsResponse> ControllerClient::ListJobs(
    const canopy::v1::ListJobsRequest& request) {
  return CANOPY_UNARY(canopy::v1::ListJobsResponse, ListJobs, request);
}

absl::Status ControllerClient::ListJobs(const canopy::v1::ListJobsRequest& request,
                                        canopy::v1::ListJobsResponse* response) {
  return UnaryInto("/canopy.v1.Controller/ListJobs", &Stub::ListJobs, request, response);
}

absl::StatusOr<canopy::v1::CreateStepResponse> ControllerClient::CreateStep(
    const canopy::v1::CreateStepRequest& request) {
  return CANOPY_UNARY(canopy::v1::CreateStepResponse, CreateStep, request);
}

absl::Status ControllerClient::CancelStep(const canopy::v1::CancelStepRequest& request) {
  return CANOPY_UNARY(canopy::v1::CancelStepResponse, CancelStep, request).status();
}

absl::Status ControllerClient::CompleteJob(const canopy::v1::CompleteJobRequest& request) {
  return CANOPY_UNARY(canopy::v1::CompleteJobResponse, CompleteJob, request).status();
}

absl::StatusOr<canopy::v1::WhoAmIResponse> ControllerClient::WhoAmI() {
  return CANOPY_UNARY(canopy::v1::WhoAmIResponse, WhoAmI, canopy::v1::WhoAmIRequest());
}

absl::StatusOr<canopy::v1::ListAssociationsResponse> ControllerClient::ListAssociations() {
  return CANOPY_UNARY(canopy::v1::ListAssociationsResponse, ListAssociations,
                      canopy::v1::ListAssociationsRequest());
}

absl::StatusOr<canopy::v1::UpdateAssociationsResponse> ControllerClient::UpdateAssociations(
    const canopy::v1::UpdateAssociationsRequest& request) {
  return CANOPY_UNARY(canopy::v1::UpdateAssociationsResponse, UpdateAssociations, request);
}

absl::StatusOr<canopy::v1::ListQosResponse> ControllerClient::ListQos() {
  return CANOPY_UNARY(canopy::v1::ListQosResponse, ListQos, canopy::v1::ListQosRequest());
}

absl::StatusOr<canopy::v1::UpdateQosResponse> ControllerClient::UpdateQos(
    const canopy::v1::UpdateQosRequest& request) {
  return CANOPY_UNARY(canopy::v1::UpdateQosResponse, UpdateQos, request);
}

absl::StatusOr<canopy::v1::GetSharesResponse> ControllerClient::GetShares() {
  return CANOPY_UNARY(canopy::v1::GetSharesResponse, GetShares, canopy::v1::GetSharesRequest());
}

absl::StatusOr<canopy::v1::ListPrioritiesResponse> ControllerClient::ListPriorities(
    const canopy::v1::ListPrioritiesRequest& request) {
  return CANOPY_UNARY(canopy::v1::ListPrioritiesResponse, ListPriorities, request);
}

absl::StatusOr<canopy::v1::ListAccountingResponse> ControllerClient::ListAccounting(
    const canopy::v1::ListAccountingRequest& request) {
  return CANOPY_UNARY(canopy::v1::ListAccountingResponse, ListAccounting, request);
}

absl::StatusOr<canopy::v1::GetConfigResponse> ControllerClient::GetConfig() {
  return CANOPY_UNARY(canopy::v1::GetConfigResponse, GetConfig, canopy::v1::GetConfigRequest());
}

absl::StatusOr<canopy::v1::ReconfigureResponse> ControllerClient::Reconfigure() {
  return CANOPY_UNARY(canopy::v1::ReconfigureResponse, Reconfigure,
                      canopy::v1::ReconfigureRequest());
}

absl::Status ControllerClient::NotifyJob(const canopy::v1::NotifyJobRequest& request) {
  return CANOPY_UNARY(canopy::v1::NotifyJobResponse, NotifyJob, request).status();
}

absl::StatusOr<canopy::v1::AttachStepResponse> ControllerClient::AttachStep(
    const canopy::v1::AttachStepRequest& request) {
  return CANOPY_UNARY(canopy::v1::AttachStepResponse, AttachStep, request);
}

absl::Status ControllerClient::UpdateJob(const canopy::v1::UpdateJobRequest& request) {
  return CANOPY_UNARY(canopy::v1::UpdateJobResponse, UpdateJob, request).status();
}

absl::StatusOr<canopy::v1::JobActionResponse> ControllerClient::HoldJobs(
    const canopy::v1::HoldJobsRequest& request) {
  return CANOPY_UNARY(canopy::v1::JobActionResponse, HoldJobs, request);
}

absl::StatusOr<canopy::v1::JobActionResponse> ControllerClient::ReleaseJobs(
    const canopy::v1::ReleaseJobsRequest& request) {
  return CANOPY_UNARY(canopy::v1::JobActionResponse, ReleaseJobs, request);
}

absl::StatusOr<canopy::v1::JobActionResponse> ControllerClient::RequeueJobs(
    const canopy::v1::RequeueJobsRequest& request) {
  return CANOPY_UNARY(canopy::v1::JobActionResponse, RequeueJobs, request);
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
