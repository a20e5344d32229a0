// Capacity over time for one backfill pass (availability.h).
#include "scheduler/plan/availability.h"

#include <algorithm>

namespace canopy::plan {

using placement::NodeCapacity;
using placement::NodeUse;

Availability::Availability(const placement::CapacityView& now_view, absl::Time now,
                           absl::Duration resolution)
    : now_view_(now_view),
      now_(now),
      resolution_(std::max(resolution, absl::Seconds(1))),
      events_(now_view.node_count()) {}

absl::Time Availability::Grid(absl::Time t) const {
  if (t == absl::InfiniteFuture() || t == absl::InfinitePast()) {
    return t;
  }
  absl::Duration rem;
  absl::IDivDuration(t - absl::UnixEpoch(), resolution_, &rem);
  if (rem > absl::ZeroDuration()) {
    return t + (resolution_ - rem);
  }
  return t - rem;  // before the epoch the remainder is negative; zero on the grid
}

absl::Time Availability::EndOf(absl::Time start, absl::Duration limit) const {
  const absl::Time end = Grid(start + limit);
  // Overdue (an end at or before now): expected back at the next step, not already back.
  return end > now_ ? end : Grid(now_ + absl::Nanoseconds(1));
}

void Availability::Add(core::NodeId node, const Delta& delta, bool take) {
  std::vector<Delta>& list = events_[node.value()];
  auto pos = std::upper_bound(list.begin(), list.end(), delta.at,
                              [](absl::Time t, const Delta& d) { return t < d.at; });
  list.insert(pos, delta);
  if (delta.at > now_) {
    changes_.insert({delta.at, node.value()});
    if (take) {
      takes_.insert({delta.at, node.value()});
    }
  }
}

void Availability::AddRunning(const RunningJob& job) {
  const absl::Time at = EndOf(job.end, absl::ZeroDuration());
  if (at == absl::InfiniteFuture()) {
    return;  // unlimited: never comes back
  }
  for (const core::NodeShare& s : job.nodes) {
    if (!s.node.valid() || s.node.value() >= now_view_.node_count()) {
      continue;  // not a node of this view: nothing of it is counted there either
    }
    Add(s.node, {at, s.gpus, s.cpus, s.mem_mib, -1, job.exclusive ? -1 : 0}, /*take=*/false);
  }
  releases_.insert(at);
}

void Availability::AddHold(absl::Span<const NodeUse> uses, bool exclusive, absl::Time from,
                           absl::Time until) {
  if (until <= from) {
    return;
  }
  const int32_t excl = exclusive ? 1 : 0;
  for (const NodeUse& u : uses) {
    Add(u.node, {from, -u.gpus, -u.cpus, -u.mem_mib, 1, excl}, /*take=*/true);
    if (until != absl::InfiniteFuture()) {
      Add(u.node, {until, u.gpus, u.cpus, u.mem_mib, -1, -excl}, /*take=*/false);
    }
  }
  if (until != absl::InfiniteFuture()) {
    releases_.insert(until);
  }
}

NodeCapacity Availability::Window(core::NodeId node, absl::Time from, absl::Time until) const {
  NodeCapacity n = now_view_.node(node);
  const std::vector<Delta>& list = events_[node.value()];
  if (list.empty()) {
    return n;
  }
  int64_t gpus = n.free_gpus;
  int64_t cpus = n.free_cpus;
  int64_t mem = n.free_mem_mib;
  int32_t jobs = n.jobs;
  int32_t excl = n.exclusive ? 1 : 0;
  auto apply = [&](const Delta& d) {
    gpus += d.gpus;
    cpus += d.cpus;
    mem += d.mem_mib;
    jobs += d.jobs;
    excl += d.exclusive;
  };
  size_t i = 0;
  for (; i < list.size() && list[i].at <= from; ++i) {
    apply(list[i]);
  }
  int64_t min_gpus = gpus;
  int64_t min_cpus = cpus;
  int64_t min_mem = mem;
  int32_t max_jobs = jobs;
  int32_t max_excl = excl;
  while (i < list.size() && list[i].at < until) {
    // Everything at one moment first: a share given back and taken again at the same time is
    // no dip.
    const absl::Time t = list[i].at;
    for (; i < list.size() && list[i].at == t; ++i) {
      apply(list[i]);
    }
    min_gpus = std::min(min_gpus, gpus);
    min_cpus = std::min(min_cpus, cpus);
    min_mem = std::min(min_mem, mem);
    max_jobs = std::max(max_jobs, jobs);
    max_excl = std::max(max_excl, excl);
  }
  // Clamped into the node's range: running jobs the view does not count (or counts twice) must
  // not make an invalid node; the plan applier re-checks every start anyway.
  n.free_gpus = static_cast<int32_t>(std::clamp<int64_t>(min_gpus, 0, n.total_gpus));
  n.free_cpus = static_cast<int32_t>(std::clamp<int64_t>(min_cpus, 0, n.total_cpus));
  n.free_mem_mib = std::clamp<int64_t>(min_mem, 0, n.total_mem_mib);
  n.jobs = std::max(max_jobs, 0);
  n.exclusive = max_excl > 0;
  return n;
}

bool Availability::Fits(const NodeUse& use, bool exclusive, absl::Time from,
                        absl::Time until) const {
  const NodeCapacity n = Window(use.node, from, until);
  return n.usable() && !n.exclusive && (!exclusive || n.jobs == 0) && n.free_gpus >= use.gpus &&
         n.free_cpus >= use.cpus && n.free_mem_mib >= use.mem_mib;
}

bool Availability::TakenWithin(core::NodeId node, absl::Time from, absl::Time until) const {
  for (const Delta& d : events_[node.value()]) {
    if (d.at >= until) {
      break;
    }
    if (d.at > from && (d.gpus < 0 || d.cpus < 0 || d.mem_mib < 0 || d.jobs > 0)) {
      return true;
    }
  }
  return false;
}

absl::Time Availability::ReleaseAtOrAfter(absl::Time t) const {
  auto it = releases_.lower_bound(t);
  return it == releases_.end() ? absl::InfiniteFuture() : *it;
}

}  // namespace canopy::plan
