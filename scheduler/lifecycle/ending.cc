// Ending: completing, cleanup confirmation, node loss (ending.h).
#include "scheduler/lifecycle/ending.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "scheduler/lifecycle/launch.h"

namespace canopy::lifecycle {

void BeginCompleting(LifecycleState& s, core::Job& job, core::JobState final_state,
                     const std::string& why, Effects& effects, int cleaned_node) {
  if (job.state == core::JobState::kConfiguring) {
    // Not every node confirmed yet: end it now, kill what may have started, and keep its
    // nodes' share held until they clean up.
    s.SendKill(job, why, effects, cleaned_node);
    std::vector<CleanupHold> holds = HoldsFor(s, job);
    EndNow(s, job, final_state, effects);
    if (core::IsTerminal(job.state)) {
      TakeHolds(s, std::move(holds), effects);
    }
    return;
  }
  const absl::Time now = s.Now();
  LiveJob* live = s.Live(job.id);
  if (live == nullptr) {
    effects.warnings.push_back(absl::StrCat("job ", job.id.value(), " is ",
                                            core::JobStateName(job.state),
                                            " but holds no nodes; cannot complete it"));
    return;
  }
  if (absl::Status st = core::TransitionTo(job, core::JobState::kCompleting, now); !st.ok()) {
    effects.warnings.push_back(std::string(st.message()));
    return;
  }
  job.completing_to = final_state;
  if (job.state_message.empty()) {
    job.state_message = why;
  }
  live->cleaned.assign(job.allocation.nodes.size(), false);
  for (size_t i = 0; i < job.allocation.nodes.size(); ++i) {
    live->cleaned[i] = !s.view.node(job.allocation.nodes[i].node).up;  // down: nothing to clean
  }
  if (cleaned_node >= 0 && static_cast<size_t>(cleaned_node) < live->cleaned.size()) {
    live->cleaned[cleaned_node] = true;
  }
  live->cleanup_deadline = now + s.config->kill_wait + kCleanupGrace;
  s.SendKill(job, why, effects, cleaned_node);
  s.Touch(job.id, effects);
  FinishIfClean(s, job, effects);
}

void FinishIfClean(LifecycleState& s, core::Job& job, Effects& effects) {
  const LiveJob* live = s.Live(job.id);
  if (job.state != core::JobState::kCompleting || live == nullptr) {
    return;
  }
  if (std::all_of(live->cleaned.begin(), live->cleaned.end(), [](bool b) { return b; })) {
    EndNow(s, job, job.completing_to.value_or(core::JobState::kCompleted), effects);
  }
}

void EndNow(LifecycleState& s, core::Job& job, core::JobState final_state, Effects& effects) {
  if (!core::IsLegalTransition(job.state, final_state)) {
    effects.warnings.push_back(absl::StrCat("job ", job.id.value(), ": cannot end ",
                                            core::JobStateName(job.state), " job as ",
                                            core::JobStateName(final_state)));
    return;
  }
  // Capacity first: if that fails (a bug), the job keeps everything it holds. The allocation
  // stays on the record as where the job ran.
  if (absl::Status st = plan::EndJob(s.view, job, final_state, s.Now()); !st.ok()) {
    effects.warnings.push_back(std::string(st.message()));
    return;
  }
  s.LeaveNodes(job.id, job.allocation, effects);
  job.completing_to.reset();
  if (final_state == core::JobState::kFailed && (job.exit_code != 0 || job.exit_signal != 0)) {
    job.reason = core::JobReason::kNonZeroExitCode;
  } else if (final_state == core::JobState::kTimeout) {
    job.reason = core::JobReason::kTimeLimit;
  }
  s.Touch(job.id, effects);
  effects.schedule = true;
  effects.info.push_back(absl::StrCat("job ", job.id.value(), " ended ",
                                      core::JobStateName(final_state), " (exit ", job.exit_code,
                                      ":", job.exit_signal, ")"));
}

void LoseJob(LifecycleState& s, core::Job& job, const std::string& why, Effects& effects,
             int cleaned_node) {
  if (job.state == core::JobState::kConfiguring) {
    // It never ran: back to the queue without counting a restart.
    AbortLaunch(s, job, why, effects, cleaned_node);
    return;
  }
  if (job.state != core::JobState::kRunning) {
    return;
  }
  const bool left = LeaveNodesHeld(
      s, job, absl::StrCat("node failure: ", why), why, core::JobState::kNodeFail,
      [&] { return plan::FailJobOnNodeLoss(s.view, job, s.Now()); }, effects, cleaned_node);
  if (!left) {
    return;
  }
  effects.warnings.push_back(absl::StrCat("job ", job.id.value(), " lost a node (", why, "): ",
                                          job.state == core::JobState::kPending
                                              ? "requeued"
                                              : std::string(core::JobStateName(job.state))));
}

}  // namespace canopy::lifecycle
