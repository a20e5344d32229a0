// ControllerServiceImpl's submissions: SubmitJob (sbatch, one job or one array) and SubmitJobs
// (portals and workflow engines, thousands in one call and one commit). Both check the wire
// spec, decide whom each job is for (SubmitterOf) and put submissions made for someone else on
// the audit log before answering. Both are callback handlers: the check runs on gRPC's callback
// thread, the answer is written by the Controller's owner thread once the jobs are committed
// (or by the audit log's thread once they are on record), and no thread waits in between.
#include <optional>
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

AuditRecord ControllerServiceImpl::SubmissionRecord(const grpc::ServerContextBase& context,
                                                    const lifecycle::Caller& caller,
                                                    const lifecycle::Caller& submitter,
                                                    const std::string& job_name) {
  AuditRecord record;
  record.action = "submit";
  record.by_user = caller.user_name;
  record.by_uid = caller.uid;
  record.via = caller.via;
  record.peer = context.peer();
  record.for_user = submitter.user_name;
  record.for_uid = submitter.uid;
  record.job_name = job_name;
  return record;
}

grpc::Status ControllerServiceImpl::TooManyWaiting() const {
  // sbatch retries this answer as it does a full queue (MaxJobCount).
  return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                      absl::StrCat("Resource temporarily unavailable: ", waiting_submissions_.max(),
                                   " submissions are waiting to be saved (canopyd "
                                   "--max_rpc_threads); try again"));
}

void ControllerServiceImpl::FinishAudited(grpc::ServerUnaryReactor* reactor,
                                          std::vector<AuditRecord> records,
                                          std::shared_ptr<const void> slot) const {
  if (records.empty() || audit_ == nullptr) {
    slot.reset();  // counted out before the caller can send its next
    reactor->Finish(grpc::Status::OK);
    return;
  }
  // On the record before the portal hears back: who submitted which job for whom.
  std::vector<std::string> who;
  who.reserve(records.size());
  for (const AuditRecord& r : records) {
    who.push_back(absl::StrCat("job ", r.job_id, " by ", r.by_user, " for ", r.for_user));
  }
  audit_->RecordThen(std::move(records), [reactor, who = std::move(who),
                                          slot = std::move(slot)](absl::Status written) mutable {
    if (!written.ok()) {
      for (const std::string& w : who) {
        spdlog::error("audit log: {}; {} is recorded here only", written.message(), w);
      }
    }
    slot.reset();
    reactor->Finish(grpc::Status::OK);
  });
}

grpc::ServerUnaryReactor* ControllerServiceImpl::SubmitJob(
    grpc::CallbackServerContext* context, const canopy::v1::SubmitJobRequest* request,
    canopy::v1::SubmitJobResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  if (absl::Status wire = CheckWireSpec(request->spec()); !wire.ok()) {
    reactor->Finish(rpc::ToGrpcStatus(wire));
    return reactor;
  }
  absl::StatusOr<lifecycle::Caller> caller = CallerOf(context, *request);
  if (!caller.ok()) {
    reactor->Finish(rpc::ToGrpcStatus(caller.status()));
    return reactor;
  }
  absl::StatusOr<lifecycle::Caller> submitter = SubmitterOf(*caller, request->spec());
  if (!submitter.ok()) {
    reactor->Finish(rpc::ToGrpcStatus(submitter.status()));
    return reactor;
  }
  std::shared_ptr<const void> slot = waiting_submissions_.TryTake();
  if (slot == nullptr) {
    reactor->Finish(TooManyWaiting());
    return reactor;
  }
  if (request->test_only()) {
    controller_->TestSubmit(
        FromProto(*request), *submitter,
        [this, reactor, response, slot](absl::StatusOr<lifecycle::WillRunAnswer> w) mutable {
          if (!w.ok()) {
            slot.reset();
            reactor->Finish(rpc::ToGrpcStatus(w.status()));
            return;
          }
          std::shared_ptr<const ClusterSnapshot> snap = controller_->Snapshot();
          response->set_job_id(w->job.value());
          *response->mutable_expected_start() = rpc::ToProtoTime(w->start);
          for (core::NodeId node : w->nodes) {
            response->add_expected_nodes(snap->topology->node_name(node));
          }
          response->set_expected_cpus(w->cpus);
          response->set_partition(w->partition);
          slot.reset();
          reactor->Finish(grpc::Status::OK);
        });
    return reactor;
  }
  std::optional<AuditRecord> audit;
  if (submitter->uid != caller->uid) {
    audit = SubmissionRecord(*context, *caller, *submitter, request->spec().name());
  }
  controller_->SubmitJob(
      FromProto(*request), *std::move(submitter),
      [this, reactor, response, audit = std::move(audit),
       slot = std::move(slot)](absl::StatusOr<lifecycle::SubmitAnswer> r) mutable {
        if (!r.ok()) {
          slot.reset();
          reactor->Finish(rpc::ToGrpcStatus(r.status()));
          return;
        }
        *response = ToProto(*r);
        std::vector<AuditRecord> records;
        if (audit.has_value()) {
          audit->job_id = r->job_id.value();
          records.push_back(*std::move(audit));
        }
        FinishAudited(reactor, std::move(records), std::move(slot));
      });
  return reactor;
}

grpc::ServerUnaryReactor* ControllerServiceImpl::SubmitJobs(
    grpc::CallbackServerContext* context, const canopy::v1::SubmitJobsRequest* request,
    canopy::v1::SubmitJobsResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  if (request->jobs_size() > kMaxJobsPerSubmitJobs) {
    reactor->Finish(grpc::Status(
        grpc::StatusCode::INVALID_ARGUMENT,
        absl::StrCat("jobs: ", request->jobs_size(), " jobs in one SubmitJobs; at most ",
                     kMaxJobsPerSubmitJobs, " are taken at once: split the batch")));
    return reactor;
  }
  absl::StatusOr<lifecycle::Caller> caller = CallerOf(context, *request);
  if (!caller.ok()) {
    reactor->Finish(rpc::ToGrpcStatus(caller.status()));
    return reactor;
  }
  // Jobs refused before the controller sees them keep their place in the answer.
  for (int i = 0; i < request->jobs_size(); ++i) {
    response->add_results();
  }
  std::vector<std::pair<lifecycle::SubmitRequest, lifecycle::Caller>> accepted;
  // For each accepted job: its place in the request, and its audit record when it is
  // submitted for someone else.
  struct Accepted {
    int index;
    std::optional<AuditRecord> audit;
  };
  std::vector<Accepted> places;
  accepted.reserve(request->jobs_size());
  places.reserve(request->jobs_size());
  for (int i = 0; i < request->jobs_size(); ++i) {
    const canopy::v1::SubmitJobRequest& job = request->jobs(i);
    absl::Status refused;
    absl::StatusOr<lifecycle::Caller> submitter = *caller;
    if (job.test_only()) {
      refused = absl::InvalidArgumentError(
          "test_only: not taken by SubmitJobs; ask SubmitJob for a --test-only answer");
    } else if (absl::Status wire = CheckWireSpec(job.spec()); !wire.ok()) {
      refused = wire;
    } else if (submitter = SubmitterOf(*caller, job.spec()); !submitter.ok()) {
      refused = submitter.status();
    }
    if (!refused.ok()) {
      const grpc::Status status = rpc::ToGrpcStatus(refused);
      response->mutable_results(i)->set_code(status.error_code());
      response->mutable_results(i)->set_error_message(status.error_message());
      continue;
    }
    Accepted place{i, std::nullopt};
    if (submitter->uid != caller->uid) {
      place.audit = SubmissionRecord(*context, *caller, *submitter, job.spec().name());
    }
    places.push_back(std::move(place));
    accepted.emplace_back(FromProto(job), *std::move(submitter));
  }
  if (accepted.empty()) {
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }
  std::shared_ptr<const void> slot = waiting_submissions_.TryTake();
  if (slot == nullptr) {
    reactor->Finish(TooManyWaiting());
    return reactor;
  }
  using Answers = std::vector<absl::StatusOr<lifecycle::SubmitAnswer>>;
  controller_->SubmitJobs(
      std::move(accepted), [this, reactor, response, places = std::move(places),
                            slot = std::move(slot)](absl::StatusOr<Answers> answers) mutable {
        if (!answers.ok()) {
          slot.reset();
          reactor->Finish(rpc::ToGrpcStatus(answers.status()));
          return;
        }
        std::vector<AuditRecord> records;
        for (size_t k = 0; k < answers->size(); ++k) {
          canopy::v1::SubmitJobsResponse::Result* result =
              response->mutable_results(places[k].index);
          const absl::StatusOr<lifecycle::SubmitAnswer>& answer = (*answers)[k];
          if (!answer.ok()) {
            const grpc::Status status = rpc::ToGrpcStatus(answer.status());
            result->set_code(status.error_code());
            result->set_error_message(status.error_message());
            continue;
          }
          if (places[k].audit.has_value()) {
            places[k].audit->job_id = answer->job_id.value();
            records.push_back(*std::move(places[k].audit));
          }
          canopy::v1::SubmitJobResponse one = ToProto(*answer);
          result->set_job_id(one.job_id());
          *result->mutable_array_task_job_ids() = std::move(*one.mutable_array_task_job_ids());
        }
        FinishAudited(reactor, std::move(records), std::move(slot));
      });
  return reactor;
}

}  // namespace canopy::server
