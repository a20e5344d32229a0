// The fair-share cycle and operators' changes to priorities (priorities.h).
#include "scheduler/lifecycle/priorities.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "scheduler/lifecycle/dependencies.h"
#include "scheduler/lifecycle/qos_limits.h"

namespace canopy::lifecycle {
namespace {

// Gives a pending job the priority it has now; republishes it when that changed.
void Reprioritise(LifecycleState& s, core::Job& job, absl::Time now, Effects& effects) {
  const uint32_t priority = s.accounting.ComputePriority(job, now);
  if (priority != job.priority) {
    job.priority = priority;
    effects.republish.insert(job.id);
  }
}

absl::StatusOr<core::Job*> PendingJob(LifecycleState& s, core::JobId id, const Caller& caller) {
  absl::StatusOr<core::Job*> job = s.FindControlled(id, caller);
  if (!job.ok()) {
    return job.status();
  }
  if ((*job)->state != core::JobState::kPending) {
    return absl::FailedPreconditionError(absl::StrCat("Job ", id.value(), " is not pending (",
                                                      core::JobStateName((*job)->state),
                                                      "): its priority no longer matters"));
  }
  return job;
}

}  // namespace

void Recalculate(LifecycleState& s, Effects& effects) {
  const absl::Time now = s.Now();
  s.accounting.ChargeRunning(now);
  s.accounting.RecomputeShares(now);
  for (auto& [id, job] : s.pending) {
    Reprioritise(s, *job, now, effects);
  }
  // Held and blocked jobs are out of the pass but still show a priority in squeue and sprio.
  for (auto& [id, job] : s.blocked) {
    Reprioritise(s, *job, now, effects);
  }
  s.CollectAccounting(effects);
  effects.shares_changed = true;
  s.accounting.set_next_calc(now + s.config->scheduling.priority.calc_period);
}

absl::Status SetAssociations(LifecycleState& s, fairshare::AssociationTree tree,
                             const Caller& caller, Effects& effects) {
  if (!caller.authenticated || !caller.is_operator) {
    return absl::PermissionDeniedError(
        "only an operator (root, canopyd's user, or a user listed in the config's operators) "
        "may change accounts and associations");
  }
  // The tree's limits must read, and name QOS that exist.
  absl::StatusOr<std::shared_ptr<const limits::LimitRules>> rules =
      BuildLimitRules(s, tree, s.accounting.qos_table());
  if (!rules.ok()) {
    return rules.status();
  }
  s.accounting.SetTree(std::move(tree), s.Now());
  UseLimitRules(s, *std::move(rules), effects);  // recalculates and schedules
  return absl::OkStatus();
}

absl::Status SetJobPriority(LifecycleState& s, core::JobId id, uint32_t priority,
                            const Caller& caller, Effects& effects) {
  if (!caller.authenticated || !caller.is_operator) {
    // Slurm lets users only lower their job's priority through Nice.
    return absl::PermissionDeniedError(
        "Access/permission denied (only an operator may set a job's priority; use Nice= to "
        "lower your own job's)");
  }
  absl::StatusOr<core::Job*> found = PendingJob(s, id, caller);
  if (!found.ok()) {
    return found.status();
  }
  core::Job& job = **found;
  if (priority == 0) {
    // Priority=0 is Slurm's admin hold.
    job.reason = core::JobReason::kJobHeldAdmin;
    job.priority = 0;
    job.priority_fixed = false;
  } else {
    job.priority = priority;
    job.priority_fixed = true;
    if (IsHold(job.reason)) {
      job.reason = core::JobReason::kNone;  // a priority releases the job, as in Slurm
    }
  }
  s.Touch(id, effects);
  Regate(s, job, effects);  // a released job may still wait for its dependency or begin time
  effects.schedule = true;
  return absl::OkStatus();
}

absl::Status SetJobNice(LifecycleState& s, core::JobId id, int32_t nice, const Caller& caller,
                        Effects& effects) {
  constexpr int32_t kMaxNice = 2147483645;  // Slurm's NICE_OFFSET - 3
  if (nice < -kMaxNice || nice > kMaxNice) {
    return absl::InvalidArgumentError(
        absl::StrCat("Nice: expected -", kMaxNice, " to ", kMaxNice, ", got ", nice));
  }
  absl::StatusOr<core::Job*> found = PendingJob(s, id, caller);
  if (!found.ok()) {
    return found.status();
  }
  core::Job& job = **found;
  if (nice < job.spec->nice && !caller.is_operator) {
    return absl::PermissionDeniedError(
        "Access/permission denied (only an operator may lower a job's nice value)");
  }
  job.spec.Mutable().nice = nice;
  job.priority = s.accounting.ComputePriority(job, s.Now());
  s.Touch(id, effects);
  effects.schedule = true;
  return absl::OkStatus();
}

absl::Status TopJob(LifecycleState& s, core::JobId id, const Caller& caller, Effects& effects) {
  const bool users_may =
      std::find(s.config->scheduling.scheduler.parameters.other.begin(),
                s.config->scheduling.scheduler.parameters.other.end(),
                "enable_user_top") != s.config->scheduling.scheduler.parameters.other.end();
  if (!caller.is_operator && !users_may) {
    return absl::PermissionDeniedError(
        "Access/permission denied (scontrol top is for operators unless SchedulerParameters "
        "has enable_user_top)");
  }
  absl::StatusOr<core::Job*> found = PendingJob(s, id, caller);
  if (!found.ok()) {
    return found.status();
  }
  core::Job& top = **found;
  // The owner's pending jobs in the same partition and account, by priority.
  std::vector<core::Job*> group;
  for (const auto& [other_id, other] : s.jobs.jobs()) {
    if (other->state == core::JobState::kPending && other->user_id == top.user_id &&
        other->partition == top.partition && other->spec->account == top.spec->account &&
        !other->priority_fixed) {
      group.push_back(other.get());
    }
  }
  std::stable_sort(group.begin(), group.end(), [](const core::Job* a, const core::Job* b) {
    return a->priority > b->priority;
  });
  auto at = std::find(group.begin(), group.end(), &top);
  if (at == group.end() || at == group.begin()) {
    return absl::OkStatus();  // already first (or fixed by an operator)
  }
  // The job takes the first slot's priority and each job it passes moves down one slot; nice
  // carries the difference so that recomputed priorities keep the new order.
  std::vector<uint32_t> slots;
  for (const core::Job* j : group) {
    slots.push_back(j->priority);
  }
  // On a tie the submit time would keep the passed job first: the top slot goes one higher.
  if (slots[0] == slots[1] && slots[0] < UINT32_MAX) {
    ++slots[0];
  }
  const size_t from = static_cast<size_t>(at - group.begin());
  std::rotate(group.begin(), at, at + 1);
  for (size_t i = 0; i <= from; ++i) {
    core::Job& j = *group[i];
    const int64_t delta = static_cast<int64_t>(j.priority) - static_cast<int64_t>(slots[i]);
    j.spec.Mutable().nice =
        static_cast<int32_t>(std::clamp<int64_t>(j.spec->nice + delta, -2147483645, 2147483645));
    j.priority = s.accounting.ComputePriority(j, s.Now());
    s.Touch(j.id, effects);
  }
  effects.schedule = true;
  return absl::OkStatus();
}

}  // namespace canopy::lifecycle
