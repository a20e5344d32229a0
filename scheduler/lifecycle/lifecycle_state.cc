// The lifecycle's shared state and its bookkeeping helpers (lifecycle_state.h).
#include "scheduler/lifecycle/lifecycle_state.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "scheduler/lifecycle/dependencies.h"

namespace canopy::lifecycle {

bool BlocksScheduling(core::JobReason r) {
  using R = core::JobReason;
  return r == R::kJobHeldUser || r == R::kJobHeldAdmin || r == R::kPartitionNodeLimit ||
         r == R::kPartitionTimeLimit || r == R::kPartitionDown || r == R::kDependency ||
         r == R::kDependencyNeverSatisfied || r == R::kBeginTime;
}

bool HoldsNodes(core::JobState s) {
  return s == core::JobState::kConfiguring || s == core::JobState::kRunning ||
         s == core::JobState::kCompleting;
}

LifecycleState::LifecycleState(std::shared_ptr<const config::ClusterConfig> config_in,
                               std::shared_ptr<const topology::Topology> topology_in,
                               const core::Clock& clock_in, placement::CapacityView view_in,
                               std::unique_ptr<placement::PlacementPolicy> policy_in,
                               std::unique_ptr<queue::QueueSort> sort_in, plan::PassOptions pass)
    : config(std::move(config_in)),
      topology(std::move(topology_in)),
      clock(clock_in),
      view(std::move(view_in)),
      policy(std::move(policy_in)),
      sort(std::move(sort_in)),
      pass_options(pass),
      accounting(config, clock_in.Now()),
      node_jobs(view.node_count()),
      gpus_in_use(view.node_count(), 0),
      gpu_indexes(view.node_count()),
      node_usable(view.node_count(), false) {
  // No node may take work before its agent registers.
  for (int i = 0; i < view.node_count(); ++i) {
    const core::NodeId id(i);
    placement::NodeCapacity c = view.node(id);
    c.up = false;
    (void)view.UpdateNode(id, c);
    for (int g = 0; g < c.total_gpus; ++g) {
      gpu_indexes[i].push_back(g);
    }
  }
}

LiveJob* LifecycleState::Live(core::JobId id) {
  auto it = live.find(id);
  return it == live.end() ? nullptr : &it->second;
}

absl::StatusOr<core::Job*> LifecycleState::FindControlled(core::JobId id, const Caller& caller) {
  core::Job* job = jobs.Find(id);
  if (job == nullptr) {
    return absl::NotFoundError(absl::StrCat("Invalid job id specified: ", id.value()));
  }
  if (!caller.MayControl(job->user_id)) {
    return absl::PermissionDeniedError(
        absl::StrCat("Access/permission denied: job ", id.value(), " belongs to ", job->user_name));
  }
  return job;
}

std::vector<core::JobId> LifecycleState::Named(uint32_t raw) const {
  std::vector<core::JobId> named;
  if (const core::Job* job = jobs.Find(core::JobId(raw));
      job != nullptr && job->array_job_id != raw) {
    named.push_back(job->id);
    return named;
  }
  // Array tasks have consecutive ids starting at the array's id; finished tasks may have left
  // memory (retention.h), the first one included.
  for (auto it = jobs.jobs().lower_bound(core::JobId(raw));
       it != jobs.jobs().end() && it->second->array_job_id == raw; ++it) {
    named.push_back(it->first);
  }
  return named;
}

void LifecycleState::Touch(core::JobId id, Effects& effects) {
  effects.dirty.insert(id);
  frozen.erase(id);
  if (backfill_in_flight != 0) {
    touched_while_planning.insert(id);
  }
  Reindex(id);
  if (const core::Job* job = jobs.Find(id); job != nullptr) {
    accounting.Observe(*job, Now());
    CollectAccounting(effects);
  }
  if (!deps.empty()) {
    DependeeChanged(*this, id, effects);
  }
}

void LifecycleState::CollectAccounting(Effects& effects) {
  effects.associations_changed = effects.associations_changed || accounting.associations_changed;
  effects.usage_changed = effects.usage_changed || accounting.usage_changed;
  accounting.associations_changed = false;
  accounting.usage_changed = false;
}

void LifecycleState::Reindex(core::JobId id) {
  core::Job* job = jobs.Find(id);
  if (job != nullptr && job->state == core::JobState::kPending && !BlocksScheduling(job->reason)) {
    pending[id] = job;
    blocked.erase(id);
  } else if (job != nullptr && job->state == core::JobState::kPending) {
    pending.erase(id);
    blocked[id] = job;
  } else {
    pending.erase(id);
    blocked.erase(id);
  }
  if (job != nullptr && (!deps.arrays.empty() || !deps.names.empty())) {
    NoteJobState(*this, *job);
  }
  if (job != nullptr &&
      (job->state == core::JobState::kConfiguring || job->state == core::JobState::kRunning)) {
    limit_usage.Add(*job, job->allocation.nodes);
  } else {
    limit_usage.Remove(id);
  }
  if (job != nullptr && core::IsTerminal(job->state) && job->state != core::JobState::kRequeued) {
    // A record without an end time (converted from an old schema) counts from now.
    finished.insert({job->end_time == absl::InfinitePast() ? Now() : job->end_time, id});
  }
  Rearm(id);
}

void LifecycleState::Rearm(core::JobId id) {
  absl::Time at = absl::InfiniteFuture();
  const core::Job* job = jobs.Find(id);
  const LiveJob* l = Live(id);
  if (job != nullptr && l != nullptr) {
    switch (job->state) {
      case core::JobState::kConfiguring:
        at = std::min(l->launch_deadline, l->preempt_at);
        break;
      case core::JobState::kRunning:
        at = std::min(l->lost_batch_since + kLostBatchGrace, l->preempt_at);
        if (job->time_limit != absl::InfiniteDuration()) {
          const absl::Time limit = job->start_time + job->time_limit;
          at = std::min(at, limit);
          if (!job->warn_sent && job->spec->warn_signal > 0) {
            at = std::min(at, limit - job->spec->warn_time);
          }
        }
        break;
      case core::JobState::kCompleting:
        at = l->cleanup_deadline;
        break;
      default:
        break;
    }
  } else if (job != nullptr && job->state == core::JobState::kPending) {
    // Waiting for its --begin time, or for an after:ID+MINUTES item to come due.
    if (job->reason == core::JobReason::kBeginTime) {
      at = job->spec->begin_time;
    }
    if (auto w = deps.wake.find(id); w != deps.wake.end()) {
      at = std::min(at, w->second);
    }
  }
  auto it = deadline_of.find(id);
  if (it != deadline_of.end()) {
    if (it->second == at) {
      return;
    }
    deadlines.erase({it->second, id});
    deadline_of.erase(it);
  }
  if (at != absl::InfiniteFuture()) {
    deadlines.insert({at, id});
    deadline_of[id] = at;
  }
}

int LifecycleState::NodeIndexIn(const core::Job& job, core::NodeId node) {
  for (size_t i = 0; i < job.allocation.nodes.size(); ++i) {
    if (job.allocation.nodes[i].node == node) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

void LifecycleState::MarkGpus(const core::NodeShare& share, bool used) {
  uint64_t& bits = gpus_in_use[share.node.value()];
  for (int g : share.gpu_indexes) {
    if (g >= 0 && g < 64) {
      bits = used ? bits | (uint64_t{1} << g) : bits & ~(uint64_t{1} << g);
    }
  }
}

void LifecycleState::TakeNodes(core::Job& job) {
  ++capacity_version;
  for (core::NodeShare& share : job.allocation.nodes) {
    if (share.gpu_indexes.empty() && share.gpus > 0) {
      // The first free indexes the agent reported, in index order.
      const uint64_t used = gpus_in_use[share.node.value()];
      for (int g : gpu_indexes[share.node.value()]) {
        if (static_cast<int>(share.gpu_indexes.size()) == share.gpus) {
          break;
        }
        if (g >= 0 && g < 64 && (used & (uint64_t{1} << g)) == 0) {
          share.gpu_indexes.push_back(g);
        }
      }
    }
    MarkGpus(share, /*used=*/true);
    node_jobs[share.node.value()].insert(job.id);
  }
  live[job.id] = LiveJob{};
}

void LifecycleState::LeaveNodes(core::JobId job, const core::Allocation& allocation,
                                Effects& effects) {
  if (auto it = live.find(job); it != live.end()) {
    for (auto& [id, step] : it->second.steps) {
      step.record.state = core::JobState::kCancelled;
      step.record.end_time = Now();
      effects.steps.push_back(std::move(step.record));
    }
  }
  ++capacity_version;
  for (const core::NodeShare& share : allocation.nodes) {
    MarkGpus(share, /*used=*/false);
    node_jobs[share.node.value()].erase(job);
  }
  live.erase(job);
  Rearm(job);
}

void LifecycleState::SendKill(const core::Job& job, const std::string& reason, Effects& effects,
                              int skip) const {
  for (size_t i = 0; i < job.allocation.nodes.size(); ++i) {
    if (static_cast<int>(i) != skip) {
      effects.Send(job.allocation.nodes[i].node, KillJob{job.id, reason});
    }
  }
}

void LifecycleState::SendSignal(const core::Job& job, int signal, bool batch_only,
                                Effects& effects) const {
  // The batch shell runs on the first node: batch_only signals go there alone.
  const size_t nodes =
      batch_only ? std::min<size_t>(1, job.allocation.nodes.size()) : job.allocation.nodes.size();
  for (size_t i = 0; i < nodes; ++i) {
    effects.Send(job.allocation.nodes[i].node, SignalJob{job.id, signal, batch_only});
  }
}

}  // namespace canopy::lifecycle
