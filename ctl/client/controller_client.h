// ControllerClient: canopyctl's connection to canopyd. Resolves the controller (see
// common/rpc/controller_target.h), signs calls with MUNGE and speaks TLS when the cluster's
// config says so (docs/security.md), tags calls with the caller's user name, sets deadlines, and
// turns failures into messages a person can act on ("cannot reach canopyd at X: ... is it
// running?"). Calls over canopyd's unix socket skip gRPC's client runtime (unix_grpc_call.h);
// gRPC's channel is made only for TCP targets, on first use. One per command invocation;
// thread-compatible.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "canopy/v1/controller.grpc.pb.h"
#include "common/config/security_config.h"
#include "ctl/client/unix_grpc_call.h"
#include "grpcpp/security/credentials.h"

namespace canopy::ctl::client {

class ControllerClient {
 public:
  // `controller_flag` is --controller (may be empty).
  static absl::StatusOr<ControllerClient> Connect(const std::string& controller_flag);

  absl::StatusOr<canopy::v1::ListNodesResponse> ListNodes(
      const canopy::v1::ListNodesRequest& request);
  absl::StatusOr<canopy::v1::ListPartitionsResponse> ListPartitions();
  absl::StatusOr<canopy::v1::GetTopologyResponse> GetTopology(
      const canopy::v1::GetTopologyRequest& request);
  absl::StatusOr<canopy::v1::UpdateNodeResponse> UpdateNode(
      const canopy::v1::UpdateNodeRequest& request);
  absl::StatusOr<canopy::v1::PingResponse> Ping();

  // Job calls. Job-changing ones should reach canopyd over its unix socket (Connect prefers it
  // when a config names the state dir) so that it can tell who the caller is.
  absl::StatusOr<canopy::v1::SubmitJobResponse> SubmitJob(
      const canopy::v1::SubmitJobRequest& request);
  absl::StatusOr<canopy::v1::CancelJobResponse> CancelJob(
      const canopy::v1::CancelJobRequest& request);
  absl::StatusOr<canopy::v1::Job> GetJob(uint32_t job_id);
  absl::StatusOr<canopy::v1::ListJobsResponse> ListJobs(const canopy::v1::ListJobsRequest& request);
  // The same into `response`, which may live on an arena: squeue parses its list into one
  // block instead of a malloc per field and string (docs/performance.md, "The command line").
  absl::Status ListJobs(const canopy::v1::ListJobsRequest& request,
                        canopy::v1::ListJobsResponse* response);
  absl::StatusOr<canopy::v1::CreateStepResponse> CreateStep(
      const canopy::v1::CreateStepRequest& request);
  absl::Status CancelStep(const canopy::v1::CancelStepRequest& request);
  absl::Status CompleteJob(const canopy::v1::CompleteJobRequest& request);
  absl::StatusOr<canopy::v1::WhoAmIResponse> WhoAmI();
  // scontrol update job, top, hold, uhold, release, requeue, requeuehold.
  absl::Status UpdateJob(const canopy::v1::UpdateJobRequest& request);
  absl::StatusOr<canopy::v1::JobActionResponse> HoldJobs(
      const canopy::v1::HoldJobsRequest& request);
  absl::StatusOr<canopy::v1::JobActionResponse> ReleaseJobs(
      const canopy::v1::ReleaseJobsRequest& request);
  absl::StatusOr<canopy::v1::JobActionResponse> RequeueJobs(
      const canopy::v1::RequeueJobsRequest& request);

  // Accounts, fair share and priority (sacctmgr, sshare, sprio). UpdateAssociations needs an
  // operator; the others anyone may call.
  absl::StatusOr<canopy::v1::ListAssociationsResponse> ListAssociations();
  absl::StatusOr<canopy::v1::UpdateAssociationsResponse> UpdateAssociations(
      const canopy::v1::UpdateAssociationsRequest& request);
  // QOS (sacctmgr show|add|modify|delete qos). UpdateQos needs an operator.
  absl::StatusOr<canopy::v1::ListQosResponse> ListQos();
  absl::StatusOr<canopy::v1::UpdateQosResponse> UpdateQos(
      const canopy::v1::UpdateQosRequest& request);
  absl::StatusOr<canopy::v1::GetSharesResponse> GetShares();
  absl::StatusOr<canopy::v1::ListPrioritiesResponse> ListPriorities(
      const canopy::v1::ListPrioritiesRequest& request);
  // Accounting records of jobs and their steps (sacct). Without user_ids or all_users canopyd
  // answers with the caller's own jobs.
  absl::StatusOr<canopy::v1::ListAccountingResponse> ListAccounting(
      const canopy::v1::ListAccountingRequest& request);
  absl::StatusOr<canopy::v1::GetConfigResponse> GetConfig();
  // scontrol reconfigure (operators), scontrol notify, sattach.
  absl::StatusOr<canopy::v1::ReconfigureResponse> Reconfigure();
  absl::Status NotifyJob(const canopy::v1::NotifyJobRequest& request);
  absl::StatusOr<canopy::v1::AttachStepResponse> AttachStep(
      const canopy::v1::AttachStepRequest& request);

  // True when the controller is reached over a unix socket or a loopback address, i.e. it runs
  // on this machine (srun then serves its step I/O on 127.0.0.1 only).
  bool IsLocal() const;
  // The address the cluster's nodes reach this host at, for srun's and sattach's step I/O:
  // 127.0.0.1 when IsLocal(), else this host's address on the route to canopyd (the host name
  // when that cannot be found).
  std::string AddressSeenByNodes() const;

  const std::string& target() const { return target_; }
  const config::SecurityConfig& security() const { return security_; }

 private:
  using Stub = canopy::v1::Controller::Stub;
  template <typename Request, typename Response>
  using StubMethod = grpc::Status (Stub::*)(grpc::ClientContext*, const Request&, Response*);

  ControllerClient(std::string target, config::SecurityConfig security)
      : target_(std::move(target)), security_(std::move(security)) {}
  // One call of `method` ("/canopy.v1.Controller/Ping"; `call` is the same method of the stub)
  // with the deadline, the caller's name and, over TCP with MUNGE, its signature.
  template <typename Response, typename Request>
  absl::StatusOr<Response> Unary(const char* method, StubMethod<Request, Response> call,
                                 const Request& request);
  template <typename Response, typename Request>
  absl::Status UnaryInto(const char* method, StubMethod<Request, Response> call,
                         const Request& request, Response* response);
  Stub& stub();  // gRPC's channel, made on first use
  absl::Status Explain(const grpc::Status& status) const;

  std::string target_;
  config::SecurityConfig security_;
  // unix: targets are called directly (unix_grpc_call.h); others through gRPC's channel.
  std::unique_ptr<UnixGrpcConnection> unix_;
  std::shared_ptr<grpc::ChannelCredentials> credentials_;
  std::unique_ptr<Stub> stub_;
};

}  // namespace canopy::ctl::client
