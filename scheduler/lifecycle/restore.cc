// Restore (restore.h).
#include "scheduler/lifecycle/restore.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "scheduler/lifecycle/admission.h"
#include "scheduler/lifecycle/dependencies.h"
#include "scheduler/lifecycle/priorities.h"
#include "scheduler/lifecycle/qos_limits.h"

namespace canopy::lifecycle {

namespace {

// Steps whose srun was running when canopyd went away: the agents still run their tasks, so a
// step of the job's current run that still holds its nodes is live again (squeue -s, scancel
// JOB.STEP, sattach, and its end in accounting when its parts report). Any other open step (of
// an earlier run, of a job that has ended or left its nodes, of a node no longer configured) can
// only be closed: it is recorded CANCELLED now.
void RestoreSteps(LifecycleState& s, std::vector<core::StepRecord>& open, Effects& effects) {
  for (core::StepRecord& step : open) {
    const core::Job* job = s.jobs.Find(step.job);
    LiveJob* live = s.Live(step.job);
    const bool nodes_known =
        !step.nodes.empty() &&
        std::all_of(step.nodes.begin(), step.nodes.end(), [](core::NodeId n) { return n.valid(); });
    if (job != nullptr && live != nullptr && job->state != core::JobState::kCompleting &&
        step.attempt == job->restart_count && nodes_known && !step.tasks_per_node.empty()) {
      LiveStep& restored = live->steps[step.step_id];
      restored.running = step.nodes;
      restored.record = std::move(step);
      continue;
    }
    // Ended when its job did, if that was after the step started; otherwise (a live job, or
    // an end_time left from an earlier run) now. A node no longer configured cannot be named
    // in the row again: closing the step is worth more than that name.
    const bool job_ended =
        job != nullptr && core::IsTerminal(job->state) && job->end_time >= step.start_time;
    step.state = core::JobState::kCancelled;
    step.end_time = job_ended ? job->end_time : s.Now();
    step.nodes.erase(std::remove_if(step.nodes.begin(), step.nodes.end(),
                                    [](core::NodeId n) { return !n.valid(); }),
                     step.nodes.end());
    effects.steps.push_back(std::move(step));
  }
}

}  // namespace

absl::Status Restore(LifecycleState& s, persistence::StoredJobs stored, Effects& effects) {
  const absl::Time now = s.Now();
  // Agents reconnect after a controller restart: give them time before judging.
  const absl::Duration reconnect = s.config->heartbeat_interval * 3;
  absl::flat_hash_map<core::JobId, std::string> problems;  // lookups only
  for (persistence::JobLoadProblem& p : stored.problems) {
    problems[p.job] = std::move(p.what);
  }
  uint32_t max_id = 0;
  for (const persistence::JobLoadProblem& q : stored.quarantined) {
    max_id = std::max(max_id, q.job.value());  // its id stays taken
  }
  for (core::Job& job : stored.jobs) {
    max_id = std::max(max_id, job.id.value());
    absl::Status problem = absl::OkStatus();
    if (auto it = problems.find(job.id); it != problems.end()) {
      problem = absl::FailedPreconditionError(it->second);
    }
    // The spec is resolved again (node ids may have moved), in the partition the job was put
    // in at submission even if the default partition has changed since.
    core::JobSpec spec = job.spec;
    if (spec.partition.empty()) {
      spec.partition = job.partition;
    }
    absl::StatusOr<ResolvedSpec> resolved = ResolveSpec(spec, *s.config, *s.topology);
    if (problem.ok()) {
      problem = resolved.status();
    }
    if (resolved.ok()) {
      job.resources = resolved->resources;
    }
    if (problem.ok() && HoldsNodes(job.state)) {
      problem = plan::RestoreAllocation(s.view, job);
    }
    if (!problem.ok() && !core::IsTerminal(job.state)) {
      effects.warnings.push_back(absl::StrCat("job ", job.id.value(),
                                              " no longer fits the configuration and is "
                                              "cancelled: ",
                                              problem.message()));
      job.allocation = {};
      job.state = core::JobState::kCancelled;
      job.completing_to.reset();
      job.end_time = now;
      job.state_message = absl::StrCat("cancelled at restart: ", problem.message());
      effects.dirty.insert(job.id);
    }
    if (!job.idempotency_key.empty()) {
      // The first job of a key: an array's tasks share it, and the answer is the array's id.
      s.idempotency.try_emplace(IdempotencyIndexKey(job.user_id, job.idempotency_key), job.id);
    }
    if (absl::StrContains(job.spec->array_spec, '%')) {
      s.has_throttled_arrays = true;
    }
    const core::JobId id = job.id;
    if (absl::Status added = s.jobs.Add(std::move(job)); !added.ok()) {
      return absl::InternalError(absl::StrCat("restoring jobs: ", added.message()));
    }
    core::Job& restored = *s.jobs.Find(id);
    if (HoldsNodes(restored.state)) {
      s.TakeNodes(restored);
      LiveJob& live = *s.Live(id);
      const size_t n = restored.allocation.nodes.size();
      if (restored.state == core::JobState::kConfiguring) {
        live.confirmed.assign(n, false);
        live.launch_deadline = now + reconnect + s.config->launch_timeout;
      }
      if (restored.state == core::JobState::kCompleting) {
        live.cleaned.assign(n, false);
        live.cleanup_deadline = now + reconnect + s.config->kill_wait + kCleanupGrace;
      }
    }
    s.Reindex(id);
    s.accounting.ResumeCharging(restored);
  }
  s.next_job_id = std::max({s.next_job_id, stored.next_job_id, max_id + 1});
  RestoreSteps(s, stored.open_steps, effects);
  ++s.capacity_version;
  // Dependencies are watched again once every job they may name is back.
  std::vector<core::JobId> waiting;
  for (const auto* index : {&s.pending, &s.blocked}) {
    for (const auto& [id, job] : *index) {
      if (DependencyOutcome(job->spec) == core::DependencyState::kWaiting) {
        waiting.push_back(id);
      }
    }
  }
  std::sort(waiting.begin(), waiting.end());
  for (core::JobId id : waiting) {
    StartWaiting(s, id, effects);
  }
  // Priorities are derived: give every pending job its current one before the first pass.
  Recalculate(s, effects);
  return absl::OkStatus();
}

absl::Status RestoreAccounting(LifecycleState& s, persistence::StoredAccounting stored,
                               Effects& effects) {
  const config::AccountingConfig& seed = s.config->scheduling.accounting;
  std::optional<fairshare::AssociationTree> from_config;
  if (!seed.accounts.empty()) {
    absl::StatusOr<fairshare::AssociationTree> tree =
        fairshare::AssociationTree::FromFlatFile(seed.accounts, nullptr);
    if (!tree.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(seed.accounts_origin, ": accounts: ", tree.status().message()));
    }
    from_config = *std::move(tree);
  }
  s.accounting.RestoreUsage(stored.usage, s.Now());
  if (stored.associations.has_value()) {
    absl::StatusOr<fairshare::AssociationTree> tree =
        fairshare::AssociationTree::Build(*stored.associations);
    if (!tree.ok()) {
      return absl::DataLossError(
          absl::StrCat("the stored associations cannot be rebuilt: ", tree.status().message()));
    }
    if (from_config.has_value() && from_config->Specs() != tree->Specs()) {
      effects.warnings.push_back(absl::StrCat(
          "the accounts in ", seed.accounts_origin,
          " differ from the stored associations (changed with sacctmgr since); using the "
          "stored ones. To load the file's, run: sacctmgr load file=",
          seed.accounts_origin, " clean"));
    }
    s.accounting.SetTree(*std::move(tree), s.Now());
    s.accounting.associations_changed = false;  // as stored
  } else if (from_config.has_value()) {
    s.accounting.SetTree(*std::move(from_config), s.Now());
    effects.info.push_back(absl::StrCat("associations loaded from ", seed.accounts_origin, " (",
                                        s.accounting.tree().size() - 1, " associations)"));
  }
  auto qos = std::make_shared<const limits::QosTable>();
  if (stored.qos.has_value()) {
    absl::StatusOr<limits::QosTable> table = limits::QosTable::Build(*stored.qos);
    if (!table.ok()) {
      return absl::DataLossError(
          absl::StrCat("the stored QOS cannot be rebuilt: ", table.status().message()));
    }
    qos = std::make_shared<const limits::QosTable>(*std::move(table));
  }
  absl::StatusOr<std::shared_ptr<const limits::LimitRules>> rules =
      BuildLimitRules(s, s.accounting.tree(), qos);
  if (!rules.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the limits of the associations: ", rules.status().message()));
  }
  // Not UseLimitRules: no job is restored yet, and recalculating now would mark usage as
  // charged up to now before the running jobs are back (Restore recalculates).
  s.accounting.SetQos((*rules)->qos);
  s.limit_usage.SetRules(*std::move(rules));
  s.CollectAccounting(effects);
  return absl::OkStatus();
}

}  // namespace canopy::lifecycle
