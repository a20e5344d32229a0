// The sched/backfill pass (backfill.h).
#include "scheduler/plan/backfill.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "scheduler/limits/pass_limits.h"
#include "scheduler/plan/availability.h"
#include "scheduler/plan/pass_util.h"
#include "scheduler/plan/profile.h"
#include "scheduler/plan/window_view.h"

namespace canopy::plan {
namespace {

using internal::AskedGpus;
using internal::HasShape;
using internal::KeyOf;
using internal::ShapeKey;
using internal::ToJobReason;
using placement::CapacityView;
using placement::NodeUse;
using placement::PlacementRequest;
using placement::PlacementResult;

// Why a job did not start now.
struct Failure {
  core::JobReason reason = core::JobReason::kResources;
  bool infeasible = false;
  bool searchable = false;  // a reservation may exist later
  bool lasting = true;      // identical jobs later in the pass cannot start either
  std::string detail;
};

// What the first job of a shape and time limit learned. Capacity over every window only shrinks
// during a pass (starts and reservations take, nothing gives), so the rest cannot do better.
struct ShapeMemo {
  std::optional<Failure> failed;
  absl::Time reserved_from = absl::InfinitePast();  // no reservation before this
  bool no_reservation = false;                      // none within the window
};

using MemoKey = std::pair<ShapeKey, absl::Duration>;

// A search stops after this many placements the counts allowed but the policy refused (another
// fabric, --switches, CPUs or memory the counts do not see), so that one job cannot cost a pass
// a policy call at every candidate time. The job then has no reservation in this pass.
constexpr int32_t kMostRefusals = 16;

// Could `view` hold the job at all? Cluster-wide sums over roots, so this is a necessary
// condition for every policy (first_fit may span fabrics). O(roots).
bool MayHold(const CapacityView& view, const core::ResourceRequest& s) {
  int64_t idle = 0;
  int64_t open = 0;
  int64_t free_gpus = 0;
  int32_t most_free = 0;
  for (int root : view.domains().roots()) {
    const placement::DomainStats& st = view.stats(root);
    idle += st.idle;
    open += st.open;
    free_gpus += st.open_free_gpus;
    most_free = std::max(most_free, st.max_open_free_gpus);
  }
  if (s.exclusive) {
    return idle >= s.min_nodes;
  }
  return open >= s.min_nodes && most_free >= s.gpus_per_node && free_gpus >= AskedGpus(s);
}

std::string Describe(const std::string& why, const PlannedReservation& r) {
  return absl::StrCat(why.empty() ? "" : absl::StrCat(why, "; "), "expected to start at ",
                      absl::FormatTime("%Y-%m-%dT%H:%M:%S", r.start, absl::UTCTimeZone()),
                      " UTC on ", r.nodes.size(), r.nodes.size() == 1 ? " node" : " nodes",
                      " (backfill reservation)");
}

class BackfillPass {
 public:
  BackfillPass(const CapacityView& view, absl::Span<const RunningJob> running, absl::Time now,
               const placement::PlacementPolicy& policy, const PassOptions& options)
      : view_(view),
        now_(now),
        policy_(policy),
        options_(options),
        avail_(view, now, options.backfill.resolution),
        free_gpus_(internal::FreeGpusOnOpenNodes(view)),
        total_gpus_(internal::TotalGpus(view)),
        limits_(options.limits) {
    for (const RunningJob& r : running) {
      avail_.AddRunning(r);
    }
    plan_.time = now;
  }

  Plan Run(absl::Span<const core::Job* const> pending) {
    for (const core::Job* job : pending) {
      if (job->state == core::JobState::kPending) {
        Consider(*job);
      }
    }
    return std::move(plan_);
  }

 private:
  const CapacityView& now_view() const { return copy_.has_value() ? *copy_ : view_; }

  void Consider(const core::Job& job);
  // Starts the job if it can start now without delaying a reservation; else says why not.
  std::optional<Failure> TryStart(const core::Job& job, absl::Duration limit);
  absl::Status Start(const core::Job& job, PlacementResult result, absl::Time until);
  std::optional<PlannedReservation> Reserve(const core::Job& job, absl::Duration limit,
                                            absl::Time from);
  // True unless a node the job requires (-w) cannot take its share over [from, until).
  bool RequiredFit(const core::ResourceRequest& spec, absl::Time from, absl::Time until) const;
  // True if a share of `result` would not fit its node over [from, until).
  bool Conflicts(const PlacementResult& result, const core::ResourceRequest& spec, absl::Time from,
                 absl::Time until) const;
  // `uses_` from a placement.
  void SetUses(const PlacementResult& result, const core::ResourceRequest& spec);
  void Hold(bool exclusive, absl::Time from, absl::Time until);
  WindowView& Window(std::optional<WindowView>& w) {
    if (!w.has_value()) {
      w.emplace(avail_, now_view());
    }
    return *w;
  }

  const CapacityView& view_;
  const absl::Time now_;
  const placement::PlacementPolicy& policy_;
  const PassOptions& options_;
  Availability avail_;
  // The capacity now with this pass's starts, made at the first start (a copy costs O(nodes)).
  std::optional<CapacityView> copy_;
  std::optional<WindowView> held_;   // [now, now + limit): starts that must avoid reservations
  std::optional<WindowView> sweep_;  // [T, T + limit): reservation searches
  int64_t free_gpus_;                // on open nodes now
  const int64_t total_gpus_;
  absl::flat_hash_map<MemoKey, ShapeMemo> memo_;  // lookups only: no order reaches a decision
  std::vector<NodeUse> uses_;
  limits::PassLimits limits_;  // what running jobs and this pass's starts hold against limits
  std::string limit_detail_;
  Plan plan_;
};

void BackfillPass::Consider(const core::Job& job) {
  const core::ResourceRequest& spec = job.resources;
  // Admission makes limits positive; anything else counts as the shortest possible.
  const absl::Duration limit =
      job.time_limit > absl::ZeroDuration() ? job.time_limit : absl::Nanoseconds(1);
  // Over a QOS or association limit: no start and no reservation (time, not capacity, is what
  // it waits for), as in Slurm.
  if (const core::JobReason limited = limits_.Check(job, &limit_detail_);
      limited != core::JobReason::kNone) {
    ++plan_.stats.limited;
    plan_.pending.push_back({job.id, limited, false, limit_detail_});
    return;
  }
  const BackfillOptions& bf = options_.backfill;
  const bool may_search =
      bf.window >= absl::ZeroDuration() && plan_.stats.backfill_tests < bf.max_job_test;
  const int64_t asked = AskedGpus(spec);
  if (free_gpus_ == 0 && asked > 0 && asked <= total_gpus_ && !may_search) {
    // Nothing can start and no search is left: the full-cluster fast path of pass.h.
    ++plan_.stats.not_reached;
    return;
  }
  ++plan_.stats.considered;
  ShapeMemo* memo = nullptr;  // valid until the next insertion, which is the next job's
  if (options_.skip_identical && HasShape(spec)) {
    memo = &memo_[MemoKey{KeyOf(spec), limit}];
  }
  Failure failure;
  if (memo != nullptr && memo->failed.has_value()) {
    ++plan_.stats.skipped_identical;
    failure = *memo->failed;
    if (failure.infeasible) {
      ++plan_.stats.infeasible;
    }
  } else {
    std::optional<Failure> f = TryStart(job, limit);
    if (!f.has_value()) {
      return;  // started
    }
    failure = *std::move(f);
    if (memo != nullptr && failure.lasting) {
      memo->failed = failure;
    }
  }
  PendingNote note{job.id, failure.reason, failure.infeasible, failure.detail};
  if (failure.searchable && may_search && (memo == nullptr || !memo->no_reservation)) {
    const absl::Time from = memo != nullptr ? memo->reserved_from : now_;
    std::optional<PlannedReservation> r = Reserve(job, limit, from);
    if (memo != nullptr) {
      if (r.has_value()) {
        memo->reserved_from = r->start;
      } else {
        memo->no_reservation = true;
      }
    }
    if (r.has_value()) {
      note.detail = Describe(note.detail, *r);
      plan_.reservations.push_back(*std::move(r));
      ++plan_.stats.reserved;
    }
  }
  plan_.pending.push_back(std::move(note));
}

std::optional<Failure> BackfillPass::TryStart(const core::Job& job, absl::Duration limit) {
  const core::ResourceRequest& spec = job.resources;
  const int64_t asked = AskedGpus(spec);
  if (spec.required_nodes.empty() && asked > free_gpus_ && asked <= total_gpus_) {
    ++plan_.stats.skipped_capacity;
    return Failure{
        .searchable = true,
        .detail = free_gpus_ == 0 ? "no GPU is free" : "more GPUs than are free in the cluster"};
  }
  if (options_.max_policy_calls > 0 && plan_.stats.policy_calls >= options_.max_policy_calls) {
    ++plan_.stats.beyond_depth;
    return Failure{.reason = core::JobReason::kPriority,
                   .lasting = false,
                   .detail = "not reached in this pass (depth cap)"};
  }
  const PlacementRequest request(spec, job.eligible_time);
  ++plan_.stats.policy_calls;
  PlacementResult result = policy_.Place(now_view(), request, now_);
  if (!result.placed()) {
    if (result.outcome == placement::Outcome::kInfeasible) {
      ++plan_.stats.infeasible;
      return Failure{.reason = core::JobReason::kBadConstraints,
                     .infeasible = true,
                     .detail = std::move(result.detail)};
    }
    // A required node that is down stays down in this model: no reservation can help.
    return Failure{.reason = ToJobReason(result.reason),
                   .searchable = result.reason != placement::PendingReason::kReqNodeNotAvail,
                   .detail = std::move(result.detail)};
  }
  const absl::Time until = avail_.EndOf(now_, limit);
  if (Conflicts(result, spec, now_, until)) {
    // It would take reserved shares before it ends. Another placement may avoid them: the
    // policy's choice on the capacity that stays free for the job's whole limit.
    WindowView& held = Window(held_);
    held.MoveTo(now_, until);
    result = PlacementResult();
    if (held.status().ok() && MayHold(held.view(), spec)) {
      ++plan_.stats.backfill_policy_calls;
      result = policy_.Place(held.view(), request, now_);
    }
    if (!result.placed() || Conflicts(result, spec, now_, until)) {
      ++plan_.stats.held_back;
      return Failure{.reason = core::JobReason::kPriority,
                     .searchable = true,
                     .detail = "fits now, but would delay a job reserved before it (backfill)"};
    }
  }
  if (absl::Status s = Start(job, std::move(result), until); !s.ok()) {
    return Failure{.lasting = false,
                   .detail = absl::StrCat("internal: placement over capacity: ", s.message())};
  }
  return std::nullopt;
}

absl::Status BackfillPass::Start(const core::Job& job, PlacementResult result, absl::Time until) {
  const core::ResourceRequest& spec = job.resources;
  PlannedStart start;
  start.job = job.id;
  start.exclusive = spec.exclusive;
  if (options_.compute_min_units) {
    start.min_units_possible =
        result.nodes.size() > 1
            ? MinUnitsPossible(now_view(), PlacementRequest(spec, job.eligible_time), now_)
            : 1;
  }
  SetUses(result, spec);
  // The policy chose from the capacity now (or less), so this cannot fail; if a policy bug made
  // it fail, the job stays pending with the message rather than double-booking GPUs.
  if (!copy_.has_value()) {
    copy_.emplace(view_);
  }
  if (absl::Status s = copy_->ApplyJob(uses_, spec.exclusive, /*start=*/true); !s.ok()) {
    return s;
  }
  Hold(spec.exclusive, now_, until);
  for (const NodeUse& u : uses_) {
    free_gpus_ -= u.gpus;
    start.nodes.push_back({u.node, u.gpus, u.cpus, u.mem_mib, {}});
  }
  limits_.Take(job, start.nodes);
  start.explanation = std::move(result.explanation);
  plan_.starts.push_back(std::move(start));
  ++plan_.stats.placed;
  return absl::OkStatus();
}

std::optional<PlannedReservation> BackfillPass::Reserve(const core::Job& job, absl::Duration limit,
                                                        absl::Time from) {
  ++plan_.stats.backfill_tests;
  const core::ResourceRequest& spec = job.resources;
  const PlacementRequest request(spec, job.eligible_time);
  const absl::Time horizon = now_ + options_.backfill.window;
  // When a --switches wait runs out, K no longer holds: the job may then take capacity that
  // was free all along, so that moment is a candidate too.
  absl::Time wait_end = absl::InfiniteFuture();
  if (spec.max_switches > 0) {
    wait_end = avail_.Grid(job.eligible_time + spec.max_switch_wait);
    if (wait_end <= now_) {
      wait_end = absl::InfiniteFuture();
    }
  }
  // The counts of the job's partition and GPU type (names the policy resolved: it did not call
  // the job infeasible).
  const int32_t partition =
      spec.partition.empty() ? -1 : view_.PartitionIndex(spec.partition).value_or(-1);
  const int32_t gpu_type = spec.gpus_per_node == 0 || spec.gpu_type.empty()
                               ? -1
                               : view_.GpuTypeIndex(spec.gpu_type).value_or(-1);
  WindowView& sweep = Window(sweep_);
  // Candidates whose window lacks capacity at some moment are skipped on the cluster-wide counts
  // alone; the view moves only to the others, so its moves follow the reservations' starts.
  ProfileScan scan(avail_.Profile(partition, gpu_type), spec);
  int32_t refusals = 0;
  absl::Time cursor = std::max(from, now_ + absl::Nanoseconds(1));
  while (true) {
    absl::Time t = avail_.ReleaseAtOrAfter(cursor);
    if (wait_end >= cursor) {
      t = std::min(t, wait_end);
    }
    if (t > horizon) {
      return std::nullopt;
    }
    cursor = t + absl::Nanoseconds(1);
    const absl::Time until = avail_.EndOf(t, limit);
    if (!scan.Enough(t, until) || !RequiredFit(spec, t, until)) {
      continue;
    }
    sweep.MoveTo(t, until);
    if (!sweep.status().ok()) {
      return std::nullopt;
    }
    if (!MayHold(sweep.view(), spec)) {
      continue;
    }
    ++plan_.stats.backfill_policy_calls;
    PlacementResult result = policy_.Place(sweep.view(), request, t);
    if (result.outcome == placement::Outcome::kInfeasible) {
      return std::nullopt;
    }
    if (!result.placed()) {
      if (++refusals == kMostRefusals) {
        ++plan_.stats.backfill_gave_up;
        return std::nullopt;
      }
      continue;
    }
    if (Conflicts(result, spec, t, until)) {
      return std::nullopt;  // the view shows exactly this window: a policy bug
    }
    SetUses(result, spec);
    Hold(spec.exclusive, t, until);
    PlannedReservation r;
    r.job = job.id;
    r.start = t;
    r.end = t + limit;
    r.exclusive = spec.exclusive;
    for (const NodeUse& u : uses_) {
      r.nodes.push_back({u.node, u.gpus, u.cpus, u.mem_mib, {}});
    }
    r.explanation = std::move(result.explanation);
    return r;
  }
}

bool BackfillPass::Conflicts(const PlacementResult& result, const core::ResourceRequest& spec,
                             absl::Time from, absl::Time until) const {
  for (const placement::NodeAssignment& a : result.nodes) {
    const NodeUse u{a.node, a.gpus, spec.cpus_per_node, spec.mem_per_node_mib};
    if (!avail_.Fits(u, spec.exclusive, from, until)) {
      return true;
    }
  }
  return false;
}

bool BackfillPass::RequiredFit(const core::ResourceRequest& spec, absl::Time from,
                               absl::Time until) const {
  for (core::NodeId n : spec.required_nodes) {
    if (n.valid() && n.value() < view_.node_count() &&
        !avail_.Fits({n, spec.gpus_per_node, spec.cpus_per_node, spec.mem_per_node_mib},
                     spec.exclusive, from, until)) {
      return false;
    }
  }
  return true;
}

void BackfillPass::SetUses(const PlacementResult& result, const core::ResourceRequest& spec) {
  uses_.clear();
  for (const placement::NodeAssignment& a : result.nodes) {
    uses_.push_back({a.node, a.gpus, spec.cpus_per_node, spec.mem_per_node_mib});
  }
}

void BackfillPass::Hold(bool exclusive, absl::Time from, absl::Time until) {
  avail_.AddHold(uses_, exclusive, from, until);
  if (held_.has_value()) {
    held_->Refresh(uses_);
  }
  if (sweep_.has_value()) {
    sweep_->Refresh(uses_);
  }
}

}  // namespace

Plan RunBackfillPass(const CapacityView& view, absl::Span<const RunningJob> running,
                     absl::Span<const core::Job* const> pending, absl::Time now,
                     const placement::PlacementPolicy& policy, const PassOptions& options) {
  return BackfillPass(view, running, now, policy, options).Run(pending);
}

}  // namespace canopy::plan
