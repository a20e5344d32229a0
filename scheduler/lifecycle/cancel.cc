// Cancel, signal and CompleteJob (cancel.h).
#include "scheduler/lifecycle/cancel.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "scheduler/lifecycle/ending.h"

namespace canopy::lifecycle {

std::vector<CancelAnswer> Cancel(LifecycleState& s, const CancelRequest& request,
                                 const Caller& caller, Effects& effects) {
  std::vector<CancelAnswer> answers;
  const absl::Time now = s.Now();
  for (uint32_t raw : request.job_ids) {
    CancelAnswer& answer = answers.emplace_back();
    answer.job_id = raw;
    const std::vector<core::JobId> targets = s.Named(raw);
    if (targets.empty()) {
      answer.error = "Invalid job id specified";
      continue;
    }
    std::string error;
    bool any_ok = false;
    for (core::JobId id : targets) {
      core::Job& job = *s.jobs.Find(id);
      if (!caller.MayControl(job.user_id)) {
        error = caller.authenticated ? "Access/permission denied"
                                     : "Access/permission denied: connect over canopyd's unix "
                                       "socket so it knows who you are";
        continue;
      }
      if (core::IsTerminal(job.state) || job.state == core::JobState::kCompleting) {
        error = "Job/step already completing or completed";
        continue;
      }
      if (request.signal != 0) {
        if (job.state == core::JobState::kPending) {
          error = "Job is pending execution";
          continue;
        }
        s.SendSignal(job, request.signal, request.batch_only, effects);
        any_ok = true;
        continue;
      }
      const std::string why = absl::StrCat("cancelled by ", caller.user_name);
      job.cancelled_by = caller.uid;
      if (job.state == core::JobState::kPending) {
        (void)core::TransitionTo(job, core::JobState::kCancelled, now);
        job.state_message = why;
        s.Touch(id, effects);
      } else {
        BeginCompleting(s, job, core::JobState::kCancelled, why, effects);
      }
      effects.info.push_back(absl::StrCat("job ", id.value(), " ", why));
      any_ok = true;
    }
    answer.ok = any_ok || error.empty();
    if (!answer.ok) {
      answer.error = error;
    }
  }
  return answers;
}

absl::Status CompleteJob(LifecycleState& s, const CompleteRequest& request, const Caller& caller,
                         Effects& effects) {
  absl::StatusOr<core::Job*> found = s.FindControlled(request.job, caller);
  if (!found.ok()) {
    return found.status();
  }
  core::Job& job = **found;
  const uint32_t id = job.id.value();
  if (!job.allocation_only()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "job ", id, " runs a batch script and ends when the script ends; use scancel to stop it"));
  }
  if (job.state != core::JobState::kRunning) {
    return absl::FailedPreconditionError(absl::StrCat(
        "job ", id, " is ", core::JobStateName(job.state),
        job.state == core::JobState::kConfiguring ? ", still starting; try again once it runs"
                                                  : ", not running"));
  }
  job.exit_code = request.exit_code;
  job.exit_signal = request.exit_signal;
  const bool ok = request.exit_code == 0 && request.exit_signal == 0;
  BeginCompleting(s, job, ok ? core::JobState::kCompleted : core::JobState::kFailed,
                  "allocation ended", effects);
  return absl::OkStatus();
}

}  // namespace canopy::lifecycle
