// A backfill pass planned away from the owner thread (backfill_work.h).
#include "scheduler/lifecycle/backfill_work.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/time/clock.h"
#include "scheduler/lifecycle/launch.h"
#include "scheduler/lifecycle/lifecycle_state.h"
#include "scheduler/limits/pass_limits.h"

namespace canopy::lifecycle {

BackfillWork MakeBackfillWork(LifecycleState& s, absl::Span<const core::Job* const> pending,
                              const plan::PassOptions& options, absl::Time now) {
  BackfillWork work;
  work.now = now;
  work.view.emplace(s.view);
  const std::vector<plan::RunningJob> running = RunningJobs(s, now);
  work.running.reserve(running.size());
  for (const plan::RunningJob& r : running) {
    work.running.push_back({r.job, work.running_shares.size(), r.nodes.size(), r.exclusive, r.end});
    for (const core::NodeShare& share : r.nodes) {
      // Without the GPU indexes, which planning never reads: a vector less per share.
      work.running_shares.push_back({share.node, share.gpus, share.cpus, share.mem_mib, {}});
    }
  }
  work.pending.reserve(pending.size());
  for (const core::Job* job : pending) {
    std::shared_ptr<const core::Job>& copy = s.frozen[job->id];
    // A priority recalculated since (the fair-share cycle changes priorities without a Touch:
    // nothing is saved for it) makes a new copy: the planner sorts by it.
    if (copy == nullptr || copy->priority != job->priority) {
      copy = std::make_shared<const core::Job>(*job);
    }
    work.pending.push_back(copy);
  }
  if (s.limit_usage.rules().enforce) {
    work.limits.emplace(s.limit_usage);
  }
  work.options = options;
  work.options.limits = nullptr;  // set to the copy when planned
  work.policy = s.policy.get();
  work.sort = s.sort.get();
  return work;
}

void PlanBackfill(BackfillWork& work) {
  const absl::Time start = absl::Now();
  std::vector<plan::RunningJob> running;
  running.reserve(work.running.size());
  for (const BackfillWork::Running& r : work.running) {
    running.push_back(plan::RunningJob{
        r.job, absl::MakeConstSpan(work.running_shares).subspan(r.first_share, r.shares),
        r.exclusive, r.end});
  }
  std::vector<const core::Job*> pending;
  pending.reserve(work.pending.size());
  absl::flat_hash_map<const core::Job*, std::shared_ptr<const core::Job>> owner_of;
  owner_of.reserve(work.pending.size());
  for (std::shared_ptr<const core::Job>& job : work.pending) {
    pending.push_back(job.get());
    owner_of.emplace(job.get(), std::move(job));
  }
  work.sort->Sort(pending, work.now);
  // The copies in queue order too: CheckBackfillPlan hands them to preemption in that order.
  work.pending.clear();
  for (const core::Job* job : pending) {
    work.pending.push_back(std::move(owner_of[job]));
  }
  plan::PassOptions options = work.options;
  options.limits = work.limits.has_value() ? &*work.limits : nullptr;
  work.plan = plan::RunPass(*work.view, running, pending, work.now, *work.policy, options);
  work.planning_time = absl::Now() - start;
}

plan::Plan CheckBackfillPlan(LifecycleState& s, BackfillWork& work,
                             std::vector<const core::Job*>& pending) {
  // Every change that is saved goes through Touch, which lists the job while a work is out (an
  // edited request, a hold, a cancel), so a job not listed and still queued is the one planned
  // for; a job that left the queue without a Touch (none should) is caught by the lookup.
  auto live = [&](core::JobId id) -> core::Job* {
    if (s.touched_while_planning.contains(id)) {
      return nullptr;
    }
    auto it = s.pending.find(id);
    return it != s.pending.end() ? it->second : nullptr;
  };
  pending.clear();
  if (s.config->scheduling.preempt.type != slurm::PreemptType::kNone) {
    pending.reserve(work.pending.size());
    for (const std::shared_ptr<const core::Job>& planned : work.pending) {
      if (core::Job* job = live(planned->id); job != nullptr) {
        pending.push_back(job);
      }
    }
  }
  plan::Plan plan = std::move(work.plan);
  // Limits as they are now: jobs that ended meanwhile gave theirs back, and an edited QOS may
  // allow less. Starts count against them in plan order, as in the pass.
  limits::PassLimits limits(&s.limit_usage);
  // Later starts were planned around the earlier ones: one that goes on a node a dropped start
  // was given could take what that job, still pending and now without a reservation, needs.
  absl::flat_hash_set<core::NodeId> dropped_nodes;
  std::erase_if(plan.starts, [&](const plan::PlannedStart& start) {
    const core::Job* job = live(start.job);
    bool drop = job == nullptr ||
                std::any_of(start.nodes.begin(), start.nodes.end(), [&](const core::NodeShare& n) {
                  return dropped_nodes.contains(n.node);
                });
    drop = drop || limits.Check(*job, nullptr) != core::JobReason::kNone;
    if (drop) {
      for (const core::NodeShare& n : start.nodes) {
        dropped_nodes.insert(n.node);
      }
      return true;
    }
    limits.Take(*job, start.nodes);
    return false;
  });
  // A job held, cancelled or edited meanwhile keeps the reason that change gave it.
  std::erase_if(plan.pending,
                [&](const plan::PendingNote& note) { return live(note.job) == nullptr; });
  std::erase_if(plan.reservations,
                [&](const plan::PlannedReservation& r) { return live(r.job) == nullptr; });
  return plan;
}

}  // namespace canopy::lifecycle
