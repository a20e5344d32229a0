// ControllerService: the client-facing gRPC API (proto/canopy/v1/controller.proto), a thin
// adapter: reads are answered from the Controller's latest snapshot, writes go through the
// Controller's command queue. Thread-safe (called on gRPC's sync server threads, and for Ping
// and the submissions on its callback threads and the Controller's owner thread).
//
// Callers are identified by the unix socket's peer credentials (UnixPeerListener); over TCP a
// caller is anonymous and may only read. Job RPCs live in controller_service_jobs.cc.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "canopy/v1/controller.grpc.pb.h"
#include "scheduler/lifecycle/caller.h"
#include "scheduler/persistence/sqlite_history_reader.h"
#include "scheduler/server/account_admins.h"
#include "scheduler/server/audit_log.h"
#include "scheduler/server/caller_authenticator.h"
#include "scheduler/server/controller.h"
#include "scheduler/server/in_flight_limit.h"
#include "scheduler/server/job_read_mask.h"
#include "scheduler/server/unix_peer_listener.h"

namespace canopy::server {

// The jobs a ListJobs or WatchJobs request selects by id, user and partition (not by state or
// by who may see them).
class JobSelection {
 public:
  JobSelection(const google::protobuf::RepeatedField<uint32_t>& ids, std::string user_name,
               std::string partition);
  bool Matches(const core::Job& job) const;

 private:
  absl::flat_hash_set<uint32_t> ids_;
  std::string user_name_;
  std::string partition_;
};

// The nodes a ListNodes or WatchNodes request selects: a hostlist expression and a partition
// (either empty = all).
class NodeSelection {
 public:
  // InvalidArgument for a bad hostlist expression.
  static absl::StatusOr<NodeSelection> Parse(const std::string& nodes, std::string partition);
  // `partitions`: those the node belongs to.
  bool Matches(const std::string& node, const std::vector<std::string>& partitions) const;

 private:
  absl::flat_hash_set<std::string> names_;
  std::string partition_;
};

// Ping and the submissions run on gRPC's callback API: a submission waits for its commit without
// holding a thread, and the owner thread answers it. The other RPCs stay on the sync server's
// threads.
using ControllerServiceBase = canopy::v1::Controller::WithCallbackMethod_Ping<
    canopy::v1::Controller::WithCallbackMethod_SubmitJob<
        canopy::v1::Controller::WithCallbackMethod_SubmitJobs<canopy::v1::Controller::Service>>>;

class ControllerServiceImpl final : public ControllerServiceBase {
 public:
  // `peers` identifies callers on the unix socket; nullptr (tests) makes every caller
  // unauthenticated. Not owned; must outlive the service's calls.
  ControllerServiceImpl(Controller* controller, std::string hostname,
                        const UnixPeerListener* peers);

  grpc::Status ListNodes(grpc::ServerContext* context, const canopy::v1::ListNodesRequest* request,
                         canopy::v1::ListNodesResponse* response) override;
  grpc::Status ListPartitions(grpc::ServerContext* context,
                              const canopy::v1::ListPartitionsRequest* request,
                              canopy::v1::ListPartitionsResponse* response) override;
  grpc::Status UpdateNode(grpc::ServerContext* context,
                          const canopy::v1::UpdateNodeRequest* request,
                          canopy::v1::UpdateNodeResponse* response) override;
  grpc::Status GetTopology(grpc::ServerContext* context,
                           const canopy::v1::GetTopologyRequest* request,
                           canopy::v1::GetTopologyResponse* response) override;
  grpc::ServerUnaryReactor* Ping(grpc::CallbackServerContext* context,
                                 const canopy::v1::PingRequest* request,
                                 canopy::v1::PingResponse* response) override;

  // ListJobs and ListNodes for a caller known otherwise than by a gRPC call (the web view,
  // whose callers are anonymous).
  grpc::Status ListJobsFor(const lifecycle::Caller& caller,
                           const canopy::v1::ListJobsRequest* request,
                           canopy::v1::ListJobsResponse* response) const;
  grpc::Status ListNodesFor(const canopy::v1::ListNodesRequest* request,
                            canopy::v1::ListNodesResponse* response) const;
  Controller* controller() const { return controller_; }

  // Submissions (controller_service_submit.cc).
  grpc::ServerUnaryReactor* SubmitJob(grpc::CallbackServerContext* context,
                                      const canopy::v1::SubmitJobRequest* request,
                                      canopy::v1::SubmitJobResponse* response) override;
  grpc::ServerUnaryReactor* SubmitJobs(grpc::CallbackServerContext* context,
                                       const canopy::v1::SubmitJobsRequest* request,
                                       canopy::v1::SubmitJobsResponse* response) override;
  // Jobs (controller_service_jobs.cc).
  grpc::Status CancelJob(grpc::ServerContext* context, const canopy::v1::CancelJobRequest* request,
                         canopy::v1::CancelJobResponse* response) override;
  grpc::Status GetJob(grpc::ServerContext* context, const canopy::v1::GetJobRequest* request,
                      canopy::v1::Job* response) override;
  grpc::Status ListJobs(grpc::ServerContext* context, const canopy::v1::ListJobsRequest* request,
                        canopy::v1::ListJobsResponse* response) override;
  grpc::Status CreateStep(grpc::ServerContext* context,
                          const canopy::v1::CreateStepRequest* request,
                          canopy::v1::CreateStepResponse* response) override;
  grpc::Status CancelStep(grpc::ServerContext* context,
                          const canopy::v1::CancelStepRequest* request,
                          canopy::v1::CancelStepResponse* response) override;
  grpc::Status CompleteJob(grpc::ServerContext* context,
                           const canopy::v1::CompleteJobRequest* request,
                           canopy::v1::CompleteJobResponse* response) override;
  grpc::Status WhoAmI(grpc::ServerContext* context, const canopy::v1::WhoAmIRequest* request,
                      canopy::v1::WhoAmIResponse* response) override;
  grpc::Status HoldJobs(grpc::ServerContext* context, const canopy::v1::HoldJobsRequest* request,
                        canopy::v1::JobActionResponse* response) override;
  grpc::Status ReleaseJobs(grpc::ServerContext* context,
                           const canopy::v1::ReleaseJobsRequest* request,
                           canopy::v1::JobActionResponse* response) override;
  grpc::Status RequeueJobs(grpc::ServerContext* context,
                           const canopy::v1::RequeueJobsRequest* request,
                           canopy::v1::JobActionResponse* response) override;

  // Accounts, fair share and priorities (controller_service_accounts.cc).
  grpc::Status ListAssociations(grpc::ServerContext* context,
                                const canopy::v1::ListAssociationsRequest* request,
                                canopy::v1::ListAssociationsResponse* response) override;
  grpc::Status UpdateAssociations(grpc::ServerContext* context,
                                  const canopy::v1::UpdateAssociationsRequest* request,
                                  canopy::v1::UpdateAssociationsResponse* response) override;
  grpc::Status GetShares(grpc::ServerContext* context, const canopy::v1::GetSharesRequest* request,
                         canopy::v1::GetSharesResponse* response) override;

  // QOS (controller_service_qos.cc).
  grpc::Status ListQos(grpc::ServerContext* context, const canopy::v1::ListQosRequest* request,
                       canopy::v1::ListQosResponse* response) override;
  grpc::Status UpdateQos(grpc::ServerContext* context, const canopy::v1::UpdateQosRequest* request,
                         canopy::v1::UpdateQosResponse* response) override;
  grpc::Status ListPriorities(grpc::ServerContext* context,
                              const canopy::v1::ListPrioritiesRequest* request,
                              canopy::v1::ListPrioritiesResponse* response) override;
  grpc::Status UpdateJob(grpc::ServerContext* context, const canopy::v1::UpdateJobRequest* request,
                         canopy::v1::UpdateJobResponse* response) override;

  // Accounting (controller_service_history.cc). Without a history reader (tests), sacct is
  // told what Slurm says without accounting storage.
  void SetHistory(persistence::SqliteHistoryReader* history) { history_ = history; }
  // Where submissions on behalf of other users are recorded (audit_log.h); may stay unset in
  // tests (then only canopyd's log has them).
  void SetAuditLog(AuditLog* audit) { audit_ = audit; }
  // At most this many submissions wait for their commit at once (canopyd --max_rpc_threads, as
  // the sync RPCs' threads): each holds its request until answered. Past it a submission is
  // refused RESOURCE_EXHAUSTED "Resource temporarily unavailable", which sbatch retries.
  void SetMaxWaitingSubmissions(int max) { waiting_submissions_.set_max(max); }
  grpc::Status ListAccounting(grpc::ServerContext* context,
                              const canopy::v1::ListAccountingRequest* request,
                              canopy::v1::ListAccountingResponse* response) override;
  grpc::Status GetConfig(grpc::ServerContext* context, const canopy::v1::GetConfigRequest* request,
                         canopy::v1::GetConfigResponse* response) override;

  // scontrol reconfigure (reconfigure.h): `state_dir_override` is canopyd's --state_dir (empty
  // if none); `request_restart` tells the daemon to restart on the checked file. Without it
  // (tests), Reconfigure answers UNIMPLEMENTED.
  void SetReconfigure(std::string state_dir_override, std::function<void()> request_restart) {
    state_dir_override_ = std::move(state_dir_override);
    request_restart_ = std::move(request_restart);
  }
  grpc::Status Reconfigure(grpc::ServerContext* context,
                           const canopy::v1::ReconfigureRequest* request,
                           canopy::v1::ReconfigureResponse* response) override;
  // scontrol notify and sattach (controller_service_steps.cc).
  grpc::Status NotifyJob(grpc::ServerContext* context, const canopy::v1::NotifyJobRequest* request,
                         canopy::v1::NotifyJobResponse* response) override;
  grpc::Status AttachStep(grpc::ServerContext* context,
                          const canopy::v1::AttachStepRequest* request,
                          canopy::v1::AttachStepResponse* response) override;
  // Portals' streams of changes (controller_service_watch.cc). Each holds one of gRPC's sync
  // server threads while it lasts; at most kMaxWatches run at once (RESOURCE_EXHAUSTED after).
  static constexpr int kMaxWatches = 64;

  // Who called (the reflection service shares it).
  const CallerAuthenticator& authenticator() const { return authenticator_; }
  grpc::Status WatchJobs(grpc::ServerContext* context, const canopy::v1::WatchJobsRequest* request,
                         grpc::ServerWriter<canopy::v1::JobEvent>* writer) override;
  grpc::Status WatchNodes(grpc::ServerContext* context,
                          const canopy::v1::WatchNodesRequest* request,
                          grpc::ServerWriter<canopy::v1::NodeEvent>* writer) override;

 private:
  // Who sent `request` (caller_authenticator.h): authenticated, with name, groups and operator
  // rights, over the unix socket or by a MUNGE credential; anonymous otherwise.
  // UNAUTHENTICATED for a credential that does not hold (replayed, expired, for another
  // request): the handler returns it as is.
  absl::StatusOr<lifecycle::Caller> CallerOf(grpc::ServerContextBase* context,
                                             const google::protobuf::Message& request) const {
    return authenticator_.Authenticate(*context, request);
  }
  // PrivateData=jobs (squeue, scontrol show job): an anonymous caller sees no jobs (refused),
  // an ordinary user only their own, an operator every job.
  grpc::Status CheckPrivateJobs(const lifecycle::Caller& caller) const;
  bool MaySee(const lifecycle::Caller& caller, const core::Job& job) const;
  // A job as ListJobs and WatchJobs give it: slim (see ListJobs in the .proto), the script's
  // first line only to those who may read the script, no steps.
  // With a read mask that names no spec field, the record is built without its spec.
  canopy::v1::Job ListRecord(const lifecycle::Caller& caller, const core::Job& job,
                             const ClusterSnapshot& snap,
                             const JobReadMask& mask = JobReadMask()) const;
  // Counts a watch in, or refuses it when kMaxWatches run; WatchSlot's destructor counts it out.
  class WatchSlot;
  // Whom a submission is for: the caller, or with the spec's run_as_uid/run_as_gid (sbatch
  // --uid/--gid) the named user, when the caller is root or a service user named by the
  // config's submit_for_others (PermissionDenied otherwise; NotFound for a uid unknown here).
  // SubmitJob writes every such submission to the audit log.
  absl::StatusOr<lifecycle::Caller> SubmitterOf(const lifecycle::Caller& caller,
                                                const canopy::v1::JobSpec& spec) const;
  // The audit record of a submission `caller` made for another user (`submitter`), without its
  // job id.
  static AuditRecord SubmissionRecord(const grpc::ServerContextBase& context,
                                      const lifecycle::Caller& caller,
                                      const lifecycle::Caller& submitter,
                                      const std::string& job_name);
  // Ends a submission call with OK once `records` (submissions for others) are on the audit
  // log, written on the log's thread: the owner thread that answers never waits on the disk.
  // `slot` (from waiting_submissions_) is released right before the call ends.
  void FinishAudited(grpc::ServerUnaryReactor* reactor, std::vector<AuditRecord> records,
                     std::shared_ptr<const void> slot) const;
  // OK for an operator; otherwise PERMISSION_DENIED starting with Slurm's words for the refusal
  // ("Invalid user id"), then naming the caller, or saying that `what` needs an operator on the
  // unix socket.
  static grpc::Status RequireOperator(const lifecycle::Caller& caller, absl::string_view what,
                                      absl::string_view slurm_words);
  // HoldJobs, ReleaseJobs and RequeueJobs: one job action for a list of jobs.
  grpc::Status ControlJobs(lifecycle::JobActionRequest request, const grpc::ServerContext& context,
                           const lifecycle::Caller& caller,
                           canopy::v1::JobActionResponse* response);

  Controller* const controller_;
  const AccountAdmins account_admins_;
  const CallerAuthenticator authenticator_;
  AuditLog* audit_ = nullptr;
  const std::string hostname_;
  std::vector<std::vector<std::string>> node_partitions_;  // by NodeId
  persistence::SqliteHistoryReader* history_ = nullptr;    // not owned; may be null
  std::string state_dir_override_;
  std::function<void()> request_restart_;  // empty: reconfigure unsupported
  std::atomic<int> watches_{0};
  // RESOURCE_EXHAUSTED for a submission past SetMaxWaitingSubmissions's limit.
  grpc::Status TooManyWaiting() const;
  InFlightLimit waiting_submissions_{128};
};

}  // namespace canopy::server
