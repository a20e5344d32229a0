// ControllerServiceImpl's job RPCs: identify the caller, hand writes to the Controller (which
// answers once they are committed), answer reads from the latest snapshot.
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/log/absl_format.h"
#include "common/os/user_info.h"
#include "common/rpc/status_convert.h"
#include "scheduler/server/controller_service.h"
#include "scheduler/server/proto_convert.h"
#include "spdlog/spdlog.h"

namespace canopy::server {
namespace {

// Jobs a multi-job call (scancel, scontrol hold ...) refused for who is asking answer OK with a
// per-job error, which the denial log (denial_log.h) cannot see: log them here, the same way.
template <typename Answer>
void LogDeniedJobs(absl::string_view method, const grpc::ServerContext& context,
                   const lifecycle::Caller& caller, const std::vector<Answer>& answers) {
  for (const Answer& a : answers) {
    if (!a.ok && absl::StrContains(a.error, "permission denied")) {
      spdlog::warn("denied {} of job {} from {}, {} (uid {}, {}): {}", method, a.job_id,
                   context.peer(), caller.user_name, caller.uid, caller.via, a.error);
    }
  }
}

// The running steps of job `id`, from the same snapshot as the job (by the core's id: a read
// mask may leave the record's job_id out).
void AddSteps(const ClusterSnapshot& snap, uint32_t id, canopy::v1::Job& job) {
  for (const core::StepRecord& step : snap.StepsOf(id)) {
    *job.add_steps() = StepToProto(step, *snap.topology);
  }
}

}  // namespace

grpc::Status ControllerServiceImpl::CheckPrivateJobs(const lifecycle::Caller& caller) const {
  if (!caller.authenticated && controller_->config().scheduling.accounting.private_jobs()) {
    return grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                        "Access/permission denied: PrivateData=jobs shows jobs only to their "
                        "owners; connect over canopyd's unix socket, or with AuthType=auth/munge");
  }
  return grpc::Status::OK;
}

bool ControllerServiceImpl::MaySee(const lifecycle::Caller& caller, const core::Job& job) const {
  return !controller_->config().scheduling.accounting.private_jobs() || caller.is_operator ||
         job.user_id == caller.uid;
}

namespace {

// A job's script, arguments and environment may hold credentials: only its owner and operators
// read them (sbatch's user over the unix socket; never an anonymous TCP caller).
void WithholdScriptUnlessAllowed(const lifecycle::Caller& caller, const core::Job& job,
                                 canopy::v1::Job& out) {
  if (caller.is_operator || (caller.authenticated && caller.uid == job.user_id)) {
    return;
  }
  canopy::v1::JobSpec* spec = out.mutable_spec();
  spec->clear_script();
  spec->clear_argv();
  spec->clear_environment();
}

// A list carries no job's script, arguments or environment (GetJob does, to those allowed): a
// user's squeue over thousands of jobs with 4 MiB scripts must stay small. A batch job keeps the
// first line of its script (at most 256 bytes), so BatchFlag and squeue still tell it apart.
void SlimForList(canopy::v1::Job& out) {
  canopy::v1::JobSpec* spec = out.mutable_spec();
  std::string* script = spec->mutable_script();
  // The first line with its newline (so a script starting with one stays non-empty), cut back
  // to a whole UTF-8 character: protobuf refuses a string field that is not valid UTF-8.
  size_t keep = std::min<size_t>(
      script->find('\n') == std::string::npos ? script->size() : script->find('\n') + 1, 256);
  while (keep > 0 && keep < script->size() &&
         (static_cast<unsigned char>((*script)[keep]) & 0xC0) == 0x80) {
    --keep;
  }
  script->resize(keep);
  spec->clear_argv();
  spec->clear_environment();
}

// The record a list converts: without the script (but the start of its first line, all that
// SlimForList keeps), the arguments and the environment. Converting the whole record and
// slimming the message after would copy every script into the response and keep each copy's
// buffer: squeue over an array of 1001 tasks with a 4 MiB script took 6 GiB and did not answer.
core::Job ListView(const core::Job& job) {
  core::Job view = job;
  const std::string& script = job.spec->script;
  std::string first = script.substr(0, std::min<size_t>(script.find('\n'), 1024));
  if (first.size() < script.size() && script[first.size()] == '\n') {
    first += '\n';
  }
  view.spec.Mutable().script = std::move(first);
  view.spec.Mutable().argv.clear();
  view.spec.Mutable().environment = {};
  return view;
}

}  // namespace

JobSelection::JobSelection(const google::protobuf::RepeatedField<uint32_t>& ids,
                           std::string user_name, std::string partition)
    : ids_(ids.begin(), ids.end()),
      user_name_(std::move(user_name)),
      partition_(std::move(partition)) {}

bool JobSelection::Matches(const core::Job& job) const {
  // A requested id matches a job or, for an array, every task of it (squeue -j 5 for 5_[1-3]).
  if (!ids_.empty() && !ids_.contains(job.id.value()) && !ids_.contains(job.array_job_id)) {
    return false;
  }
  return (user_name_.empty() || job.user_name == user_name_) &&
         (partition_.empty() || job.partition == partition_);
}

canopy::v1::Job ControllerServiceImpl::ListRecord(const lifecycle::Caller& caller,
                                                  const core::Job& job, const ClusterSnapshot& snap,
                                                  const JobReadMask& mask) const {
  if (!mask.all()) {
    using Spec = canopy::v1::JobSpec;
    const FieldNumbers& spec = mask.spec_fields();
    if (!mask.wants(canopy::v1::Job::kSpecFieldNumber) ||
        !(spec(Spec::kScriptFieldNumber) || spec(Spec::kArgvFieldNumber) ||
          spec(Spec::kEnvironmentFieldNumber))) {
      return ToProto(job, *snap.topology, mask.job_fields(), spec);  // no texts to slim
    }
    canopy::v1::Job out =
        ToProto(ListView(job), *snap.topology, mask.job_fields(), mask.spec_fields());
    WithholdScriptUnlessAllowed(caller, job, out);
    SlimForList(out);
    return out;
  }
  canopy::v1::Job out = ToProto(ListView(job), *snap.topology);
  WithholdScriptUnlessAllowed(caller, job, out);
  SlimForList(out);
  return out;
}

absl::StatusOr<lifecycle::Caller> ControllerServiceImpl::SubmitterOf(
    const lifecycle::Caller& caller, const canopy::v1::JobSpec& spec) const {
  if (!spec.has_run_as_uid() && !spec.has_run_as_gid()) {
    return caller;
  }
  const std::vector<std::string>& services = controller_->config().security.submit_for_others;
  const bool service =
      std::find(services.begin(), services.end(), caller.user_name) != services.end();
  if (!caller.authenticated || (caller.uid != 0 && !service)) {
    return absl::PermissionDeniedError(
        absl::StrCat("Access/permission denied: --uid and --gid are for root and the config's "
                     "submit_for_others only, not ",
                     caller.user_name));
  }
  const uint32_t uid = spec.has_run_as_uid() ? spec.run_as_uid() : caller.uid;
  absl::StatusOr<os::UserInfo> user = authenticator_.User(uid);
  if (!user.ok()) {
    return absl::NotFoundError(
        absl::StrCat("Invalid user id: ", uid, " (", user.status().message(), ")"));
  }
  if (service && uid == 0) {
    return absl::PermissionDeniedError(absl::StrCat("Access/permission denied: ", caller.user_name,
                                                    " may submit for users, not for root"));
  }
  lifecycle::Caller on_behalf = authenticator_.FromUid(
      uid, spec.has_run_as_gid() ? spec.run_as_gid() : user->gid, "on behalf");
  if (service && on_behalf.is_operator) {
    // A portal's account must not be a way to act with an operator's rights.
    on_behalf.is_operator = false;
  }
  return on_behalf;
}

grpc::Status ControllerServiceImpl::CancelJob(grpc::ServerContext* context,
                                              const canopy::v1::CancelJobRequest* request,
                                              canopy::v1::CancelJobResponse* response) {
  if (request->job_ids().empty()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "job_ids: no job id given");
  }
  absl::StatusOr<lifecycle::Caller> caller_or = CallerOf(context, *request);
  if (!caller_or.ok()) {
    return rpc::ToGrpcStatus(caller_or.status());
  }
  absl::StatusOr<std::vector<lifecycle::CancelAnswer>> r =
      controller_->CancelJob(FromProto(*request), *caller_or);
  if (!r.ok()) {
    return rpc::ToGrpcStatus(r.status());
  }
  LogDeniedJobs("CancelJob", *context, *caller_or, *r);
  *response = ToProto(*r);
  return grpc::Status::OK;
}

grpc::Status ControllerServiceImpl::GetJob(grpc::ServerContext* context,
                                           const canopy::v1::GetJobRequest* request,
                                           canopy::v1::Job* response) {
  absl::StatusOr<lifecycle::Caller> caller_or = CallerOf(context, *request);
  if (!caller_or.ok()) {
    return rpc::ToGrpcStatus(caller_or.status());
  }
  const lifecycle::Caller& caller = *caller_or;
  if (grpc::Status denied = CheckPrivateJobs(caller); !denied.ok()) {
    return denied;
  }
  std::shared_ptr<const ClusterSnapshot> snap = controller_->Snapshot();
  const core::Job* job = snap->FindJob(request->job_id());
  // With PrivateData=jobs another user's job is, to an ordinary user, one that does not exist.
  if (job == nullptr || !MaySee(caller, *job)) {
    return grpc::Status(grpc::StatusCode::NOT_FOUND,
                        absl::StrCat("Invalid job id specified: ", request->job_id()));
  }
  *response = ToProto(*job, *snap->topology);
  WithholdScriptUnlessAllowed(caller, *job, *response);
  AddSteps(*snap, response->job_id(), *response);
  return grpc::Status::OK;
}

grpc::Status ControllerServiceImpl::ListJobs(grpc::ServerContext* context,
                                             const canopy::v1::ListJobsRequest* request,
                                             canopy::v1::ListJobsResponse* response) {
  absl::StatusOr<lifecycle::Caller> caller_or = CallerOf(context, *request);
  if (!caller_or.ok()) {
    return rpc::ToGrpcStatus(caller_or.status());
  }
  return ListJobsFor(*caller_or, request, response);
}

grpc::Status ControllerServiceImpl::ListJobsFor(const lifecycle::Caller& caller,
                                                const canopy::v1::ListJobsRequest* request,
                                                canopy::v1::ListJobsResponse* response) const {
  if (grpc::Status denied = CheckPrivateJobs(caller); !denied.ok()) {
    return denied;
  }
  absl::StatusOr<JobReadMask> mask = JobReadMask::Parse(request->read_mask());
  if (!mask.ok()) {
    return rpc::ToGrpcStatus(mask.status());
  }
  std::shared_ptr<const ClusterSnapshot> snap = controller_->Snapshot();
  const absl::Time now = controller_->Now();
  const JobSelection selection(request->job_ids(), request->user_name(), request->partition());
  absl::flat_hash_set<int> states;
  for (int s : request->states()) {
    states.insert(s);
  }
  const absl::Duration min_age = controller_->config().min_job_age;
  // With fold_pending_array_tasks: array id -> its entry in pending_arrays.
  absl::flat_hash_map<uint32_t, int> folded_arrays;
  auto list = [&](const core::Job& job) {
    if (!states.empty()) {
      if (!states.contains(ToProtoState(job.state))) {
        return;
      }
    } else if (core::IsTerminal(job.state) && now - job.end_time > min_age) {
      // Finished jobs only while they are younger than MinJobAge, asked for by id or not: the
      // job leaves memory at the next retention tick, and squeue (which asks for everything)
      // and scontrol show job (which asks by id) must not disagree in between.
      return;
    }
    if (!selection.Matches(job) || !MaySee(caller, job)) {
      return;
    }
    if (request->fold_pending_array_tasks() && job.array_job_id != 0 &&
        job.state == core::JobState::kPending) {
      const auto [entry, first] =
          folded_arrays.try_emplace(job.array_job_id, response->pending_arrays_size());
      if (!first) {  // the array's first pending task stands for this one
        response->mutable_pending_arrays(entry->second)->add_task_ids(job.array_task_id);
        return;
      }
      canopy::v1::PendingArrayTasks* tasks = response->add_pending_arrays();
      tasks->set_array_job_id(job.array_job_id);
      tasks->add_task_ids(job.array_task_id);
    }
    canopy::v1::Job* out = response->add_jobs();
    *out = ListRecord(caller, job, *snap, *mask);
    if (mask->wants(canopy::v1::Job::kStepsFieldNumber)) {
      AddSteps(*snap, job.id.value(), *out);
    }
    mask->Trim(*out);
  };
  // A workflow engine polls `squeue -j ID` for each of its jobs: those ids are looked up, not
  // found by a walk over the whole queue. An id that is an array's (its tasks are listed too)
  // or that is not found (it may be an array whose first task is gone) needs the walk.
  std::vector<const core::Job*> by_id;
  bool walk = request->job_ids().empty();
  for (uint32_t id : request->job_ids()) {
    const core::Job* job = snap->FindJob(id);
    if (job == nullptr || job->array_job_id == id) {
      walk = true;
      break;
    }
    by_id.push_back(job);
  }
  if (walk) {
    snap->ForEachJob(list);
  } else {
    // In id order, each once, as the walk lists them.
    std::sort(by_id.begin(), by_id.end(),
              [](const core::Job* a, const core::Job* b) { return a->id < b->id; });
    by_id.erase(std::unique(by_id.begin(), by_id.end()), by_id.end());
    for (const core::Job* job : by_id) {
      list(*job);
    }
  }
  if (!request->job_ids().empty() && response->jobs().empty()) {
    return grpc::Status(grpc::StatusCode::NOT_FOUND, "Invalid job id specified");
  }
  *response->mutable_server_time() = rpc::ToProtoTime(now);
  return grpc::Status::OK;
}

grpc::Status ControllerServiceImpl::CreateStep(grpc::ServerContext* context,
                                               const canopy::v1::CreateStepRequest* request,
                                               canopy::v1::CreateStepResponse* response) {
  absl::StatusOr<lifecycle::Caller> caller_or = CallerOf(context, *request);
  if (!caller_or.ok()) {
    return rpc::ToGrpcStatus(caller_or.status());
  }
  absl::StatusOr<lifecycle::StepAnswer> r =
      controller_->CreateStep(FromProto(*request), *caller_or);
  if (!r.ok()) {
    return rpc::ToGrpcStatus(r.status());
  }
  *response = ToProto(*r);
  return grpc::Status::OK;
}

grpc::Status ControllerServiceImpl::CancelStep(grpc::ServerContext* context,
                                               const canopy::v1::CancelStepRequest* request,
                                               canopy::v1::CancelStepResponse*) {
  absl::StatusOr<lifecycle::Caller> caller_or = CallerOf(context, *request);
  if (!caller_or.ok()) {
    return rpc::ToGrpcStatus(caller_or.status());
  }
  return rpc::ToGrpcStatus(controller_->CancelStep(FromProto(*request), *caller_or));
}

grpc::Status ControllerServiceImpl::CompleteJob(grpc::ServerContext* context,
                                                const canopy::v1::CompleteJobRequest* request,
                                                canopy::v1::CompleteJobResponse*) {
  absl::StatusOr<lifecycle::Caller> caller_or = CallerOf(context, *request);
  if (!caller_or.ok()) {
    return rpc::ToGrpcStatus(caller_or.status());
  }
  return rpc::ToGrpcStatus(controller_->CompleteJob(FromProto(*request), *caller_or));
}

grpc::Status ControllerServiceImpl::HoldJobs(grpc::ServerContext* context,
                                             const canopy::v1::HoldJobsRequest* request,
                                             canopy::v1::JobActionResponse* response) {
  absl::StatusOr<lifecycle::Caller> caller_or = CallerOf(context, *request);
  if (!caller_or.ok()) {
    return rpc::ToGrpcStatus(caller_or.status());
  }
  return ControlJobs(FromProto(*request), *context, *caller_or, response);
}

grpc::Status ControllerServiceImpl::ReleaseJobs(grpc::ServerContext* context,
                                                const canopy::v1::ReleaseJobsRequest* request,
                                                canopy::v1::JobActionResponse* response) {
  absl::StatusOr<lifecycle::Caller> caller_or = CallerOf(context, *request);
  if (!caller_or.ok()) {
    return rpc::ToGrpcStatus(caller_or.status());
  }
  return ControlJobs(FromProto(*request), *context, *caller_or, response);
}

grpc::Status ControllerServiceImpl::RequeueJobs(grpc::ServerContext* context,
                                                const canopy::v1::RequeueJobsRequest* request,
                                                canopy::v1::JobActionResponse* response) {
  absl::StatusOr<lifecycle::Caller> caller_or = CallerOf(context, *request);
  if (!caller_or.ok()) {
    return rpc::ToGrpcStatus(caller_or.status());
  }
  return ControlJobs(FromProto(*request), *context, *caller_or, response);
}

grpc::Status ControllerServiceImpl::ControlJobs(lifecycle::JobActionRequest request,
                                                const grpc::ServerContext& context,
                                                const lifecycle::Caller& caller,
                                                canopy::v1::JobActionResponse* response) {
  if (request.job_ids.empty()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "job_ids: no job id given");
  }
  absl::StatusOr<std::vector<lifecycle::JobActionAnswer>> r =
      controller_->ControlJobs(std::move(request), caller);
  if (!r.ok()) {
    return rpc::ToGrpcStatus(r.status());
  }
  LogDeniedJobs("a job action (hold, release, requeue)", context, caller, *r);
  *response = ToProto(*r);
  return grpc::Status::OK;
}

grpc::Status ControllerServiceImpl::WhoAmI(grpc::ServerContext* context,
                                           const canopy::v1::WhoAmIRequest* request,
                                           canopy::v1::WhoAmIResponse* response) {
  absl::StatusOr<lifecycle::Caller> caller_or = CallerOf(context, *request);
  if (!caller_or.ok()) {
    return rpc::ToGrpcStatus(caller_or.status());
  }
  const lifecycle::Caller& caller = *caller_or;
  response->set_user_id(caller.uid);
  response->set_user_name(caller.user_name);
  response->set_authenticated(caller.authenticated);
  response->set_operator_(caller.is_operator);
  return grpc::Status::OK;
}

}  // namespace canopy::server
