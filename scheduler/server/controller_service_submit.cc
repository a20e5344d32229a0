// ControllerServiceImpl's submissions: SubmitJob (sbatch, one job or one array) and SubmitJobs
// (portals and workflow engines, thousands in one call and one commit). Both check the wire
// spec, decide whom each job is for (SubmitterOf) and put submissions made for someone else on
// the audit log before answering.
#include <utility>
#include <vector>

#include "common/log/absl_format.h"
#include "common/rpc/status_convert.h"
#include "scheduler/server/controller_service.h"
#include "scheduler/server/proto_convert.h"
#include "spdlog/spdlog.h"

namespace canopy::server {
namespace {

// SubmitJobs takes at most this many jobs: a batch is one command on the owner thread and one
// transaction, which every other caller waits behind.
constexpr int kMaxJobsPerSubmitJobs = 10'000;

}  // namespace

void ControllerServiceImpl::AuditSubmission(const grpc::ServerContext& context,
                                            const lifecycle::Caller& caller,
                                            const lifecycle::Caller& submitter, uint32_t job_id,
                                            const std::string& job_name) const {
  if (submitter.uid == caller.uid) {
    return;
  }
  // On the record before the portal hears back: who submitted which job for whom.
  AuditRecord record;
  record.action = "submit";
  record.by_user = caller.user_name;
  record.by_uid = caller.uid;
  record.via = caller.via;
  record.peer = context.peer();
  record.for_user = submitter.user_name;
  record.for_uid = submitter.uid;
  record.job_id = job_id;
  record.job_name = job_name;
  if (absl::Status s = audit_ != nullptr ? audit_->Record(record) : absl::OkStatus(); !s.ok()) {
    spdlog::error("audit log: {}; job {} by {} for {} is recorded here only", s.message(),
                  record.job_id, record.by_user, record.for_user);
  }
}

grpc::Status ControllerServiceImpl::SubmitJob(grpc::ServerContext* context,
                                              const canopy::v1::SubmitJobRequest* request,
                                              canopy::v1::SubmitJobResponse* response) {
  if (absl::Status wire = CheckWireSpec(request->spec()); !wire.ok()) {
    return rpc::ToGrpcStatus(wire);
  }
  absl::StatusOr<lifecycle::Caller> caller = CallerOf(context, *request);
  if (!caller.ok()) {
    return rpc::ToGrpcStatus(caller.status());
  }
  absl::StatusOr<lifecycle::Caller> submitter = SubmitterOf(*caller, request->spec());
  if (!submitter.ok()) {
    return rpc::ToGrpcStatus(submitter.status());
  }
  if (request->test_only()) {
    absl::StatusOr<lifecycle::WillRunAnswer> w =
        controller_->TestSubmit(FromProto(*request), *submitter);
    if (!w.ok()) {
      return rpc::ToGrpcStatus(w.status());
    }
    std::shared_ptr<const ClusterSnapshot> snap = controller_->Snapshot();
    response->set_job_id(w->job.value());
    *response->mutable_expected_start() = rpc::ToProtoTime(w->start);
    for (core::NodeId node : w->nodes) {
      response->add_expected_nodes(snap->topology->node_name(node));
    }
    response->set_expected_cpus(w->cpus);
    response->set_partition(w->partition);
    return grpc::Status::OK;
  }
  absl::StatusOr<lifecycle::SubmitAnswer> r =
      controller_->SubmitJob(FromProto(*request), *submitter);
  if (!r.ok()) {
    return rpc::ToGrpcStatus(r.status());
  }
  AuditSubmission(*context, *caller, *submitter, r->job_id.value(), request->spec().name());
  *response = ToProto(*r);
  return grpc::Status::OK;
}

grpc::Status ControllerServiceImpl::SubmitJobs(grpc::ServerContext* context,
                                               const canopy::v1::SubmitJobsRequest* request,
                                               canopy::v1::SubmitJobsResponse* response) {
  if (request->jobs_size() > kMaxJobsPerSubmitJobs) {
    return grpc::Status(
        grpc::StatusCode::INVALID_ARGUMENT,
        absl::StrCat("jobs: ", request->jobs_size(), " jobs in one SubmitJobs; at most ",
                     kMaxJobsPerSubmitJobs, " are taken at once: split the batch"));
  }
  absl::StatusOr<lifecycle::Caller> caller = CallerOf(context, *request);
  if (!caller.ok()) {
    return rpc::ToGrpcStatus(caller.status());
  }
  // Jobs refused before the controller sees them keep their place in the answer.
  std::vector<absl::Status> refused(request->jobs_size());
  std::vector<std::pair<lifecycle::SubmitRequest, lifecycle::Caller>> accepted;
  std::vector<int> accepted_index;
  accepted.reserve(request->jobs_size());
  for (int i = 0; i < request->jobs_size(); ++i) {
    const canopy::v1::SubmitJobRequest& job = request->jobs(i);
    if (job.test_only()) {
      refused[i] = absl::InvalidArgumentError(
          "test_only: not taken by SubmitJobs; ask SubmitJob for a --test-only answer");
      continue;
    }
    if (absl::Status wire = CheckWireSpec(job.spec()); !wire.ok()) {
      refused[i] = wire;
      continue;
    }
    absl::StatusOr<lifecycle::Caller> submitter = SubmitterOf(*caller, job.spec());
    if (!submitter.ok()) {
      refused[i] = submitter.status();
      continue;
    }
    accepted.emplace_back(FromProto(job), *std::move(submitter));
    accepted_index.push_back(i);
  }
  std::vector<lifecycle::Caller> submitters;
  submitters.reserve(accepted.size());
  for (const auto& [req, submitter] : accepted) {
    submitters.push_back(submitter);
  }
  absl::StatusOr<std::vector<absl::StatusOr<lifecycle::SubmitAnswer>>> answers =
      accepted.empty() ? std::vector<absl::StatusOr<lifecycle::SubmitAnswer>>()
                       : controller_->SubmitJobs(std::move(accepted));
  if (!answers.ok()) {
    return rpc::ToGrpcStatus(answers.status());
  }
  for (int i = 0; i < request->jobs_size(); ++i) {
    response->add_results();
  }
  for (int i = 0; i < request->jobs_size(); ++i) {
    if (!refused[i].ok()) {
      canopy::v1::SubmitJobsResponse::Result* result = response->mutable_results(i);
      const grpc::Status status = rpc::ToGrpcStatus(refused[i]);
      result->set_code(status.error_code());
      result->set_error_message(status.error_message());
    }
  }
  for (size_t k = 0; k < answers->size(); ++k) {
    const int i = accepted_index[k];
    canopy::v1::SubmitJobsResponse::Result* result = response->mutable_results(i);
    const absl::StatusOr<lifecycle::SubmitAnswer>& answer = (*answers)[k];
    if (!answer.ok()) {
      const grpc::Status status = rpc::ToGrpcStatus(answer.status());
      result->set_code(status.error_code());
      result->set_error_message(status.error_message());
      continue;
    }
    AuditSubmission(*context, *caller, submitters[k], answer->job_id.value(),
                    request->jobs(i).spec().name());
    canopy::v1::SubmitJobResponse one = ToProto(*answer);
    result->set_job_id(one.job_id());
    *result->mutable_array_task_job_ids() = std::move(*one.mutable_array_task_job_ids());
  }
  return grpc::Status::OK;
}

}  // namespace canopy::server
