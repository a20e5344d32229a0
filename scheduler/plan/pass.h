// RunPass: one scheduling pass as a pure function.
//
// Inputs: the capacity view (not modified: the pass works on private copies so later jobs see
// the capacity earlier starts in the same pass take), the running jobs (what holds capacity now
// and when it is expected back; used by backfill only), the pending jobs best-first (a
// QueueSort's output), the pass time, and a placement policy. Output: a Plan. Same inputs give
// the same plan.
//
// Three schedulers, as Slurm's SchedulerType (docs/design/scheduling_pass.md):
//   * default (backfill off, strict_order off): tries jobs in order and starts every job that
//     fits now (gang, all or nothing). A job that does not fit does not block the ones after it;
//   * sched/builtin (strict_order): the same, but the first job of a partition that cannot start
//     blocks every later job of that partition (reason Priority);
//   * sched/backfill (backfill.enabled): a job starts now only if its placement cannot delay a
//     reservation made earlier in the pass (judged by time limits); a job that cannot start gets
//     a reservation at the earliest time its placement policy finds nodes for it over its whole
//     time limit (scheduler/plan/backfill.h).
// Cost control, so a pass stays far from O(pending × nodes):
//   * skip identical: once a job of a shape (nodes, GPUs/CPUs/memory per node, GPU type,
//     exclusive, partition; no -w/-x/--switches; with backfill also the time limit) failed,
//     later jobs of that shape are not placed again in this pass (Slurm does the same);
//     capacity only shrinks during a pass, so they could not fit either;
//   * a job asking for more GPUs than are free on open nodes cluster-wide is skipped without
//     calling the policy (O(roots));
//   * while no GPU is free anywhere, GPU jobs are passed over without a note (they keep their
//     previous reason), so a long queue on a full cluster costs O(pending) comparisons (with
//     backfill: once bf_max_job_test jobs were searched for reservations);
//   * optionally, at most `max_policy_calls` placements per pass; later jobs keep reason Priority.
// Thread-safe (no shared state).
#pragma once

#include <cstdint>

#include "absl/time/time.h"
#include "absl/types/span.h"
#include "scheduler/core/job.h"
#include "scheduler/limits/limit_usage.h"
#include "scheduler/placement/capacity_view.h"
#include "scheduler/placement/policy.h"
#include "scheduler/placement/request.h"
#include "scheduler/plan/plan.h"

namespace canopy::plan {

// Slurm's sched/backfill parameters (SchedulerParameters=bf_window=...,bf_resolution=...).
struct BackfillOptions {
  bool enabled = false;
  // How far ahead reservations may start (bf_window, minutes in slurm.conf).
  absl::Duration window = absl::Minutes(1440);
  // Expected ends and reservation starts are rounded up to multiples of this (since the Unix
  // epoch), so reservations line up between passes (bf_resolution). Below 1 s counts as 1 s.
  absl::Duration resolution = absl::Seconds(60);
  // Most jobs searched for a reservation per pass (bf_max_job_test); later jobs may still start
  // now where they delay no reservation.
  int32_t max_job_test = 500;
};

struct PassOptions {
  int32_t max_policy_calls = 0;  // 0 = no cap
  bool skip_identical = true;
  // Fill PlannedStart::min_units_possible for multi-node jobs (costs one eligibility scan per
  // multi-node start; the simulator's min_switch_frac metric needs it).
  bool compute_min_units = false;
  // sched/builtin: the first job of a partition that cannot start blocks the rest of that
  // partition. Ignored with backfill, whose reservations already keep the order.
  bool strict_order = false;
  BackfillOptions backfill = {};
  // QOS and association limits (AccountingStorageEnforce=limits): a job that would break one
  // is passed over with the limit's reason (it blocks nobody and gets no reservation), and the
  // pass counts what its own starts take. Null = no limits. Must outlive the pass.
  const limits::LimitUsage* limits = nullptr;
};

// A job holding capacity now, as backfill sees it: its shares (which the capacity view already
// counts as used) come back at `end`. `nodes` points into the caller's records and must outlive
// the pass.
struct RunningJob {
  core::JobId job;
  absl::Span<const core::NodeShare> nodes;
  bool exclusive = false;
  // Expected end: start + time limit; InfiniteFuture when unlimited. An end at or before the pass
  // time counts as the next multiple of bf_resolution after it (the job is overdue, not gone).
  absl::Time end = absl::InfiniteFuture();
};

// The RunningJob of a job that holds nodes (CONFIGURING, RUNNING or COMPLETING): its allocation,
// ending at start_time + time_limit (a CONFIGURING job's clock starts at the latest at `now`; a
// COMPLETING job is expected back at once). The span points into `job.allocation`.
RunningJob RunningJobOf(const core::Job& job, absl::Time now);

// Fewest units (leaf switches) that any placement of `request` could use on `view` now, over
// every fabric; -1 if it cannot be placed at all. O(nodes visited + units log units).
int32_t MinUnitsPossible(const placement::CapacityView& view,
                         const placement::PlacementRequest& request, absl::Time now);

// `pending` must hold PENDING jobs, best first. Jobs in other states are ignored. `running` must
// hold every job whose capacity `view` counts as used and that will give it back (capacity held
// by nobody in `running` counts as held for ever); only backfill reads it.
Plan RunPass(const placement::CapacityView& view, absl::Span<const RunningJob> running,
             absl::Span<const core::Job* const> pending, absl::Time now,
             const placement::PlacementPolicy& policy, const PassOptions& options);

// The same with no running jobs: what callers without backfill pass.
Plan RunPass(const placement::CapacityView& view, absl::Span<const core::Job* const> pending,
             absl::Time now, const placement::PlacementPolicy& policy,
             const PassOptions& options = {});

}  // namespace canopy::plan
