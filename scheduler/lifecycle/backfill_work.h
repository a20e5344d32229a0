// BackfillWork: a sched/backfill pass planned away from the thread that owns the lifecycle.
//
// The backfill pass reads the whole queue and searches the future for up to bf_max_job_test
// reservations: tens of milliseconds over 10,000 pending jobs on 16,384 nodes
// (docs/performance.md). canopyd's owner thread also answers every submission, so a pass planned
// there delays each call that arrives meanwhile by that much. With
// LifecycleState::plan_backfill_elsewhere, Schedule() does not plan a due backfill pass: it
// copies what the pass reads into a BackfillWork (Effects::backfill_work), which the caller plans
// on a thread of its own with PlanBackfill() and hands back to JobLifecycle::BackfillPlanned().
//
// While a work is out, no other pass runs (a main pass could take what the plan gives to
// others, or count against the same limits). When it comes back, the plan is checked against
// what changed meanwhile before anything is applied: a start is taken only for a job still
// pending and eligible and not touched since (an edit, a hold, a cancel: every saved change goes
// through LifecycleState::Touch), not on a node given to a dropped start, within the limits as
// they are now, on nodes that can still hold it (the applier's own re-check). What is dropped
// waits for the next pass, which follows at once.
// canopy-sim plans inline, as before: its passes happen at simulated instants.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/time/time.h"
#include "scheduler/core/job.h"
#include "scheduler/limits/limit_usage.h"
#include "scheduler/placement/capacity_view.h"
#include "scheduler/placement/policy.h"
#include "scheduler/plan/pass.h"
#include "scheduler/plan/plan.h"
#include "scheduler/queue/queue_sort.h"

namespace canopy::lifecycle {

struct LifecycleState;
struct Effects;

struct BackfillWork {
  uint64_t id = 0;  // LifecycleState::backfill_in_flight while it is out
  absl::Time now;   // the pass's time
  // Copies of what the pass reads, so that the owner may change its own meanwhile.
  std::optional<placement::CapacityView> view;  // always set; optional for want of a default
  struct Running {
    core::JobId job;
    size_t first_share = 0;  // into running_shares
    size_t shares = 0;
    bool exclusive = false;
    absl::Time end;
  };
  std::vector<Running> running;
  std::vector<core::NodeShare> running_shares;
  // Immutable copies shared with the lifecycle's cache (LifecycleState::frozen): as handed out
  // in queue order, best first, once PlanBackfill has sorted them (sorting 10,000 jobs took a
  // millisecond of the owner's time).
  std::vector<std::shared_ptr<const core::Job>> pending;
  std::optional<limits::LimitUsage> limits;  // only when limits are enforced
  plan::PassOptions options;
  // The lifecycle's policy: stateless and const (thread-safe, as RunPass); the lifecycle must
  // outlive the work.
  const placement::PlacementPolicy* policy = nullptr;
  const queue::QueueSort* sort = nullptr;  // the lifecycle's, as the policy

  // PlanBackfill's result and how long it took.
  plan::Plan plan;
  absl::Duration planning_time;
};

// Builds the work of the backfill pass that is due at `now` over `pending` (in any order: the
// planner sorts; preemptors only, when some wait for their victims). Owner thread.
BackfillWork MakeBackfillWork(LifecycleState& s, absl::Span<const core::Job* const> pending,
                              const plan::PassOptions& options, absl::Time now);

// Sorts the work's jobs into queue order and runs the pass over them: any thread; reads nothing
// but `work`, its policy and its sort.
void PlanBackfill(BackfillWork& work);

// The pass's plan, less what changed since it was made (above): owner thread. `pending` gets the
// live records of the work's jobs still pending unchanged, in queue order, when preemption is
// on (it is the order preemption searches in).
plan::Plan CheckBackfillPlan(LifecycleState& s, BackfillWork& work,
                             std::vector<const core::Job*>& pending);

}  // namespace canopy::lifecycle
