// Preemption (preemption.h).
#include "scheduler/lifecycle/preemption.h"

#include <algorithm>
#include <csignal>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "scheduler/lifecycle/ending.h"
#include "scheduler/lifecycle/job_control.h"
#include "scheduler/plan/preemption.h"

namespace canopy::lifecycle {
namespace {

// What becomes of one victim.
struct VictimRule {
  bool requeue = false;
  absl::Duration grace = absl::ZeroDuration();
};

const config::PartitionConfig* PartitionNamed(const LifecycleState& s, const std::string& name) {
  for (const config::PartitionConfig& p : s.config->partitions) {
    if (p.name == name) {
      return &p;
    }
  }
  return nullptr;
}

// Whether `preemptor` may preempt `victim`, and how; nullopt if not.
std::optional<VictimRule> RuleFor(const LifecycleState& s, const core::Job& preemptor,
                                  const core::Job& victim) {
  const config::PreemptConfig& cluster = s.config->scheduling.preempt;
  slurm::PreemptMode mode = cluster.mode;
  VictimRule rule;
  switch (cluster.type) {
    case slurm::PreemptType::kNone:
      return std::nullopt;
    case slurm::PreemptType::kQos: {
      const limits::QosTable& qos = s.accounting.qos();
      if (!qos.MayPreempt(preemptor.qos, victim.qos)) {
        return std::nullopt;
      }
      if (const limits::QosSpec* q = qos.Find(victim.qos); q != nullptr) {
        if (q->preempt_mode != slurm::PreemptMode::kCluster) {
          mode = q->preempt_mode;
        }
        rule.grace = q->grace_time;
      }
      break;
    }
    case slurm::PreemptType::kPartitionPrio: {
      const config::PartitionConfig* mine = PartitionNamed(s, preemptor.partition);
      const config::PartitionConfig* theirs = PartitionNamed(s, victim.partition);
      if (mine == nullptr || theirs == nullptr ||
          mine->policy.priority_tier <= theirs->policy.priority_tier) {
        return std::nullopt;
      }
      if (theirs->policy.preempt_mode != slurm::PreemptMode::kCluster) {
        mode = theirs->policy.preempt_mode;
      }
      rule.grace = theirs->policy.grace_time;
      break;
    }
  }
  if (mode != slurm::PreemptMode::kRequeue && mode != slurm::PreemptMode::kCancel) {
    return std::nullopt;
  }
  // A job that may not be requeued is cancelled instead, as in Slurm.
  rule.requeue =
      mode == slurm::PreemptMode::kRequeue && victim.spec->requeue && !victim.allocation_only();
  return rule;
}

// GPU-hours a preemption of `job` throws away (what it has run since its last start).
double CostOf(const core::Job& job, absl::Time now) {
  const absl::Duration ran = job.start_time == absl::InfinitePast() || now < job.start_time
                                 ? absl::ZeroDuration()
                                 : now - job.start_time;
  const double gpus = static_cast<double>(std::max<int64_t>(1, job.allocation.total_gpus()));
  return gpus * absl::ToDoubleHours(ran);
}

void StartPreemption(LifecycleState& s, core::Job& victim, const core::Job& preemptor,
                     const VictimRule& rule, Effects& effects) {
  LiveJob* live = s.Live(victim.id);
  if (live == nullptr) {
    return;
  }
  const absl::Time now = s.Now();
  live->preempted_by = preemptor.id;
  live->preempt_requeue = rule.requeue;
  live->preempt_at = now + rule.grace;
  victim.state_message = absl::StrCat(
      "preempted by job ", preemptor.id.value(), rule.requeue ? "; requeued" : "; cancelled",
      rule.grace > absl::ZeroDuration()
          ? absl::StrCat(" after GraceTime ", absl::ToInt64Seconds(rule.grace), " s")
          : "");
  effects.info.push_back(absl::StrCat("job ", victim.id.value(), " ", victim.state_message));
  if (rule.grace > absl::ZeroDuration()) {
    // Its own --signal if it asked for one (its way of saving a checkpoint), else SIGTERM.
    const bool own = victim.spec->warn_signal > 0;
    s.SendSignal(victim, own ? victim.spec->warn_signal : SIGTERM,
                 own && victim.spec->warn_batch_only, effects);
    s.Touch(victim.id, effects);  // saves the message; Reindex rearms for preempt_at
    return;
  }
  s.Touch(victim.id, effects);
  FinishPreemption(s, victim, effects);
}

}  // namespace

void Preempt(LifecycleState& s, absl::Span<const core::Job* const> order, Effects& effects) {
  if (s.config->scheduling.preempt.type == slurm::PreemptType::kNone) {
    return;
  }
  const absl::Time now = s.Now();
  // Searches that found nothing at an older capacity may find something now.
  for (auto it = s.preempt_tried.begin(); it != s.preempt_tried.end();) {
    if (it->second != s.capacity_version) {
      s.preempt_tried.erase(it++);
    } else {
      ++it;
    }
  }
  // Preemptors whose victims are on their way out: until they start, stop pending, or waited
  // longer than their victims' GraceTime, KillWait and a launch could take.
  for (auto it = s.preemptors.begin(); it != s.preemptors.end();) {
    const core::Job* job = s.jobs.Find(it->first);
    if (job == nullptr || job->state != core::JobState::kPending || now >= it->second) {
      it = s.preemptors.erase(it);
    } else {
      ++it;
    }
  }
  int tried = 0;
  std::vector<plan::PreemptCandidate> candidates;
  std::vector<std::optional<VictimRule>> rules;
  for (const core::Job* const_job : order) {
    if (tried >= kMaxPreemptorsPerPass) {
      break;
    }
    // Waiting for capacity: Resources; None for a job no pass has looked at yet (a pass over a
    // full cluster passes GPU jobs over without a note); Priority behind a job that cannot
    // start, which may have no right to preempt. Not a job over a limit, held, or dependent.
    const core::JobReason r = const_job->reason;
    if (const_job->state != core::JobState::kPending ||
        (r != core::JobReason::kResources && r != core::JobReason::kNone &&
         r != core::JobReason::kPriority) ||
        s.preemptors.contains(const_job->id) || s.preempt_tried.contains(const_job->id)) {
      continue;
    }
    core::Job& preemptor = *s.jobs.Find(const_job->id);
    candidates.clear();
    rules.clear();
    for (const auto& [id, live] : s.live) {
      const core::Job* victim = s.jobs.Find(id);
      if (victim == nullptr || live.preempted_by.valid() ||
          (victim->state != core::JobState::kRunning &&
           victim->state != core::JobState::kConfiguring)) {
        continue;
      }
      std::optional<VictimRule> rule = RuleFor(s, preemptor, *victim);
      if (!rule.has_value()) {
        continue;
      }
      candidates.push_back(
          {id, victim->allocation.nodes, victim->allocation.exclusive, CostOf(*victim, now)});
      rules.push_back(rule);
    }
    if (candidates.empty()) {
      continue;
    }
    ++tried;
    std::optional<plan::PreemptionPlan> chosen =
        plan::PlanPreemption(s.view, preemptor, candidates, now, *s.policy);
    if (!chosen.has_value() || chosen->victims.empty()) {
      s.preempt_tried[preemptor.id] = s.capacity_version;
      continue;
    }
    std::vector<std::string> names;
    for (core::JobId v : chosen->victims) {
      names.push_back(absl::StrCat(v.value()));
    }
    preemptor.placement_explanation =
        absl::StrCat("preempting job", names.size() == 1 ? " " : "s ", absl::StrJoin(names, ","),
                     " (", absl::StrFormat("%.2f", chosen->cost), " GPU-hours lost), then ",
                     chosen->placement.explanation.ToString());
    effects.republish.insert(preemptor.id);
    effects.info.push_back(
        absl::StrCat("job ", preemptor.id.value(), " ", preemptor.placement_explanation));
    absl::Duration longest_grace = absl::ZeroDuration();
    for (core::JobId v : chosen->victims) {
      for (size_t i = 0; i < candidates.size(); ++i) {
        if (candidates[i].job == v) {
          longest_grace = std::max(longest_grace, rules[i]->grace);
          StartPreemption(s, *s.jobs.Find(v), preemptor, *rules[i], effects);
          break;
        }
      }
    }
    s.preemptors[preemptor.id] =
        now + longest_grace + 2 * s.config->kill_wait + s.config->launch_timeout;
  }
}

void FinishPreemption(LifecycleState& s, core::Job& victim, Effects& effects, int cleaned_node) {
  LiveJob* live = s.Live(victim.id);
  if (live == nullptr || !live->preempted_by.valid() ||
      (victim.state != core::JobState::kRunning && victim.state != core::JobState::kConfiguring)) {
    return;
  }
  const std::string why = absl::StrCat("preempted by job ", live->preempted_by.value());
  live->preempt_at = absl::InfiniteFuture();
  if (live->preempt_requeue) {
    if (absl::Status st = RequeueRunning(s, victim, why, /*hold=*/false, core::JobState::kPreempted,
                                         effects, cleaned_node);
        !st.ok()) {
      effects.warnings.push_back(std::string(st.message()));
    }
    return;
  }
  victim.state_message = why;
  BeginCompleting(s, victim, core::JobState::kPreempted, why, effects, cleaned_node);
}

}  // namespace canopy::lifecycle
