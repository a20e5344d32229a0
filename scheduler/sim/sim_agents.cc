// Simulated agents (sim_agents.h).
#include "scheduler/sim/sim_agents.h"

#include <csignal>
#include <type_traits>
#include <variant>

namespace canopy::sim {

void SimulatedAgents::Deliver(const std::vector<lifecycle::OutgoingMessage>& messages,
                              absl::Time now) {
  for (const lifecycle::OutgoingMessage& m : messages) {
    if (dead_[m.node.value()]) {
      continue;  // nobody listens on a failed node
    }
    if (const auto* launch = std::get_if<lifecycle::LaunchJob>(&m.message)) {
      const core::JobId job = launch->job->id;
      runs_[{job, m.node}] = launch->job->run_id;
      lifecycle::JobReport r;
      r.job = job;
      r.phase = lifecycle::JobPhase::kLaunched;
      r.run_id = launch->job->run_id;
      Report(now + delays_.launch, m.node, std::move(r));
    } else if (const auto* kill = std::get_if<lifecycle::KillJob>(&m.message)) {
      Kill(*kill, m.node, now);
    }
    // Signals, steps and acknowledgements change nothing a simulated agent reports.
  }
}

void SimulatedAgents::Kill(const lifecycle::KillJob& kill, core::NodeId node, absl::Time now) {
  const absl::Time at = now + delays_.cleanup;
  uint32_t run = 0;
  if (auto it = runs_.find({kill.job, node}); it != runs_.end()) {
    run = it->second;
    runs_.erase(it);
  }
  auto script = scripts_.find(kill.job);
  if (script != scripts_.end() && script->second.host == node) {
    // The batch script dies of the SIGTERM before the node reports it clean.
    lifecycle::JobReport exited;
    exited.job = kill.job;
    exited.phase = lifecycle::JobPhase::kExited;
    exited.exit_signal = SIGTERM;
    exited.run_id = script->second.run_id;
    scripts_.erase(script);
    Report(at, node, std::move(exited));
  }
  lifecycle::JobReport clean;
  clean.job = kill.job;
  clean.phase = lifecycle::JobPhase::kCleanedUp;
  clean.run_id = run;
  Report(at, node, std::move(clean));
}

void SimulatedAgents::RunScript(core::JobId job, core::NodeId batch_host, uint32_t run_id,
                                absl::Time end) {
  scripts_[job] = Script{run_id, batch_host};
  lifecycle::JobReport exited;
  exited.job = job;
  exited.phase = lifecycle::JobPhase::kExited;
  exited.run_id = run_id;
  Report(end, batch_host, std::move(exited));
}

void SimulatedAgents::NodeFailed(core::NodeId node) {
  dead_[node.value()] = true;
  absl::erase_if(scripts_, [node](const auto& entry) { return entry.second.host == node; });
}

void SimulatedAgents::Report(absl::Time at, core::NodeId node, lifecycle::JobReport report) {
  int64_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
    reports_[slot] = Pending{node, std::move(report)};
  } else {
    slot = static_cast<int64_t>(reports_.size());
    reports_.push_back(Pending{node, std::move(report)});
  }
  events_.Push(at, EventKind::kAgentReport, slot);
}

std::optional<std::pair<core::NodeId, lifecycle::JobReport>> SimulatedAgents::Take(int64_t slot) {
  Pending p = std::move(reports_[slot]);
  free_slots_.push_back(slot);
  if (dead_[p.node.value()]) {
    return std::nullopt;
  }
  if (p.report.phase == lifecycle::JobPhase::kExited) {
    auto script = scripts_.find(p.report.job);
    const bool natural_end = script != scripts_.end() && script->second.run_id == p.report.run_id &&
                             p.report.exit_signal == 0;
    const bool killed = p.report.exit_signal != 0;
    if (!natural_end && !killed) {
      return std::nullopt;  // that run was killed (and reported) before it could end
    }
    if (natural_end) {
      scripts_.erase(script);
      if (delays_.cleanup == absl::ZeroDuration()) {
        // As a real batch host: the script left nothing to kill and no clean-up takes time, so
        // its EXITED says the node cleaned up too (no KillJob comes for it). With a cleanup
        // delay (an epilog, processes slow to die) the EXITED goes alone and the controller's
        // KillJob, sent at the same instant, is answered after it, as the agent's own clean-up
        // would be.
        p.report.cleaned_up = true;
        runs_.erase({p.report.job, p.node});
      }
    }
  }
  return std::make_pair(p.node, std::move(p.report));
}

}  // namespace canopy::sim
