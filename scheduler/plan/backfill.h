// The sched/backfill pass: RunPass (pass.h) with PassOptions::backfill.enabled.
//
// Jobs are taken best first, as in Slurm's backfill scheduler, and each is judged by time limits
// (capacity over time: availability.h):
//   1. Start now? The policy places the job on the capacity free now (with this pass's starts).
//      The placement stands if every share fits its node for the job's whole time limit next to
//      the reservations made before it in this pass. If not, the policy places the job again on
//      the capacity available over [now, now + limit), where reserved shares are taken from their
//      start on; a placement there delays nothing and starts. Otherwise the job is held back:
//      reason Priority (it would fit, but only by delaying a job before it).
//   2. Reserve. A job that cannot start, among the first bf_max_job_test to get here, is given
//      the earliest time T in (now, now + bf_window] (the times at which capacity comes back,
//      and for --switches=K@WAIT the end of its wait) at which the same policy, called with
//      now = T and the job's own wait start, places it on the capacity available over
//      [T, T + limit). The placement is a PlannedReservation, held for the rest of the pass:
//      later jobs may use those shares only if they end before T. The job keeps reason
//      Resources (Priority if it was held back).
// A job that is unlimited holds its shares for ever: it starts only where nothing is reserved
// and is reserved only on nodes whose running jobs all end.
//
// Cost: one policy call per job that starts or cannot start now (as without backfill), a second
// for a job whose first placement would delay a reservation, and per reservation search the
// window moves (each touching only the nodes with an event passed) and one policy call at each
// candidate time whose aggregates (idle nodes, open nodes, free GPUs) do not rule the job out.
// Identical jobs (shape and time limit) reuse what the first learned: their reservation can only
// be later, so the search resumes at the first one's start.
#pragma once

#include "absl/time/time.h"
#include "absl/types/span.h"
#include "scheduler/core/job.h"
#include "scheduler/placement/capacity_view.h"
#include "scheduler/placement/policy.h"
#include "scheduler/plan/pass.h"
#include "scheduler/plan/plan.h"

namespace canopy::plan {

// Same contract as RunPass; `options.backfill` is used whether or not it is enabled.
Plan RunBackfillPass(const placement::CapacityView& view, absl::Span<const RunningJob> running,
                     absl::Span<const core::Job* const> pending, absl::Time now,
                     const placement::PlacementPolicy& policy, const PassOptions& options);

}  // namespace canopy::plan
