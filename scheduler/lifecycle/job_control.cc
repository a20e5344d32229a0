// Holds, releases, requeues and time limits (job_control.h).
#include "scheduler/lifecycle/job_control.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "scheduler/lifecycle/dependencies.h"
#include "scheduler/lifecycle/launch.h"

namespace canopy::lifecycle {
namespace {

constexpr char kNotPending[] = "Job is no longer pending execution";
constexpr char kDenied[] = "Access/permission denied";

absl::Status Hold(LifecycleState& s, core::Job& job, bool admin_if_operator, const Caller& caller,
                  Effects& effects) {
  if (job.state != core::JobState::kPending) {
    return absl::FailedPreconditionError(kNotPending);
  }
  const core::JobReason hold = admin_if_operator && caller.is_operator
                                   ? core::JobReason::kJobHeldAdmin
                                   : core::JobReason::kJobHeldUser;
  if (job.reason == core::JobReason::kJobHeldAdmin && !caller.is_operator) {
    return absl::OkStatus();  // held already, more firmly than its owner could
  }
  if (job.reason == hold) {
    return absl::OkStatus();
  }
  job.reason = hold;
  job.priority = 0;
  s.Touch(job.id, effects);
  effects.info.push_back(absl::StrCat("job ", job.id.value(), " held (", core::JobReasonName(hold),
                                      ") by ", caller.user_name));
  return absl::OkStatus();
}

absl::Status Release(LifecycleState& s, core::Job& job, const Caller& caller, Effects& effects) {
  if (job.state != core::JobState::kPending) {
    return absl::FailedPreconditionError(kNotPending);
  }
  if (!IsHold(job.reason)) {
    return absl::OkStatus();  // nothing to release
  }
  if (job.reason == core::JobReason::kJobHeldAdmin && !caller.is_operator) {
    return absl::PermissionDeniedError(kDenied);
  }
  job.reason = core::JobReason::kNone;
  job.priority = s.accounting.ComputePriority(job, s.Now());
  s.Touch(job.id, effects);
  Regate(s, job, effects);
  effects.schedule = true;
  effects.info.push_back(absl::StrCat("job ", job.id.value(), " released by ", caller.user_name));
  return absl::OkStatus();
}

absl::Status Requeue(LifecycleState& s, core::Job& job, bool hold, const Caller& caller,
                     Effects& effects) {
  if (job.allocation_only()) {
    return absl::FailedPreconditionError("Only batch jobs are accepted or processed");
  }
  if (job.state == core::JobState::kPending) {
    return absl::FailedPreconditionError("Job is pending execution");
  }
  if (job.state != core::JobState::kConfiguring && job.state != core::JobState::kRunning) {
    return absl::FailedPreconditionError("Job/step already completing or completed");
  }
  if (!job.spec->requeue) {
    return absl::FailedPreconditionError(
        "Requested operation is presently disabled (the job was submitted with --no-requeue)");
  }
  return RequeueRunning(s, job, absl::StrCat("requeued by ", caller.user_name), hold,
                        core::JobState::kRequeued, effects);
}

absl::Status Apply(LifecycleState& s, core::Job& job, JobAction action, const Caller& caller,
                   Effects& effects) {
  switch (action) {
    case JobAction::kHold:
      return Hold(s, job, /*admin_if_operator=*/true, caller, effects);
    case JobAction::kUserHold:
      return Hold(s, job, /*admin_if_operator=*/false, caller, effects);
    case JobAction::kRelease:
      return Release(s, job, caller, effects);
    case JobAction::kRequeue:
      return Requeue(s, job, /*hold=*/false, caller, effects);
    case JobAction::kRequeueHold:
      return Requeue(s, job, /*hold=*/true, caller, effects);
  }
  return absl::InternalError("unknown job action");
}

}  // namespace

absl::Status RequeueRunning(LifecycleState& s, core::Job& job, const std::string& why, bool hold,
                            core::JobState attempt_end, Effects& effects, int cleaned_node) {
  const absl::Time now = s.Now();
  // Requeued as after a node failure: the nodes stay held until they clean up, and the job
  // comes back PENDING with its restart count + 1 (a requeue-able job is never NODE_FAIL here).
  const bool left = LeaveNodesHeld(
      s, job, why, why, attempt_end, [&] { return plan::FailJobOnNodeLoss(s.view, job, now); },
      effects, cleaned_node);
  if (!left) {
    return absl::InternalError(absl::StrCat("job ", job.id.value(), " could not be requeued"));
  }
  if (hold) {
    job.reason = core::JobReason::kJobHeldUser;
    job.state_message = "job requeued in held state";
  }
  job.priority = s.accounting.ComputePriority(job, now);
  s.Touch(job.id, effects);
  Regate(s, job, effects);
  effects.info.push_back(absl::StrCat("job ", job.id.value(), " ", why, hold ? " (held)" : ""));
  return absl::OkStatus();
}

std::vector<JobActionAnswer> ControlJobs(LifecycleState& s, const JobActionRequest& request,
                                         const Caller& caller, Effects& effects) {
  std::vector<JobActionAnswer> answers;
  for (uint32_t raw : request.job_ids) {
    JobActionAnswer& answer = answers.emplace_back();
    answer.job_id = raw;
    const std::vector<core::JobId> targets = s.Named(raw);
    if (targets.empty()) {
      answer.error = "Invalid job id specified";
      continue;
    }
    // An array's tasks that are past what the action applies to are skipped quietly, as long
    // as it applied to one of them (scontrol hold 5 on an array with running tasks).
    std::string error;
    bool any_ok = false;
    for (core::JobId id : targets) {
      core::Job& job = *s.jobs.Find(id);
      if (!caller.MayControl(job.user_id)) {
        error = kDenied;
        continue;
      }
      if (absl::Status st = Apply(s, job, request.action, caller, effects); !st.ok()) {
        error = std::string(st.message());
        continue;
      }
      any_ok = true;
    }
    answer.ok = any_ok;
    if (!answer.ok) {
      answer.error = error;
    }
  }
  return answers;
}

absl::Status SetTimeLimit(LifecycleState& s, core::JobId id, const TimeLimitChange& change,
                          const Caller& caller, Effects& effects) {
  absl::StatusOr<core::Job*> found = s.FindControlled(id, caller);
  if (!found.ok()) {
    return found.status();
  }
  core::Job& job = **found;
  if (job.state != core::JobState::kPending && job.state != core::JobState::kConfiguring &&
      job.state != core::JobState::kRunning) {
    return absl::FailedPreconditionError("Job/step already completing or completed");
  }
  absl::Duration limit = change.set.value_or(job.time_limit);
  if (change.add != absl::ZeroDuration()) {
    if (limit == absl::InfiniteDuration()) {
      return absl::InvalidArgumentError(
          "TimeLimit: the job's limit is UNLIMITED; give a new limit instead of += or -=");
    }
    limit += change.add;
  }
  if (limit <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("TimeLimit: the limit must be positive, got ", absl::FormatDuration(limit)));
  }
  if (limit > job.time_limit && !caller.is_operator) {
    return absl::PermissionDeniedError(
        "Access/permission denied (only an operator may lengthen a job's time limit)");
  }
  if (limit == job.time_limit) {
    return absl::OkStatus();
  }
  job.time_limit = limit;
  if (limit != absl::InfiniteDuration()) {
    job.spec.Mutable().time_limit =
        limit;  // as if asked for at submission (restart keeps the job's)
  }
  s.Touch(id, effects);     // a running job's deadline moves (Rearm)
  Regate(s, job, effects);  // a pending job may now meet (or miss) its partition's MaxTime
  effects.info.push_back(absl::StrCat("job ", id.value(), " time limit set to ",
                                      absl::FormatDuration(limit), " by ", caller.user_name));
  return absl::OkStatus();
}

}  // namespace canopy::lifecycle
