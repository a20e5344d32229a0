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

void Availability::Level::Apply(const Delta& d) {
  gpus += d.gpus;
  cpus += d.cpus;
  mem_mib += d.mem_mib;
  jobs += d.jobs;
  exclusive += d.exclusive;
}

Availability::Level Availability::LevelOf(const NodeCapacity& n) {
  return {n.free_gpus, n.free_cpus, n.free_mem_mib, n.jobs, n.exclusive ? 1 : 0};
}

NodeCapacity Availability::WithLevel(NodeCapacity n, const Level& l) {
  n.free_gpus = static_cast<int32_t>(std::clamp<int64_t>(l.gpus, 0, n.total_gpus));
  n.free_cpus = static_cast<int32_t>(std::clamp<int64_t>(l.cpus, 0, n.total_cpus));
  n.free_mem_mib = std::clamp<int64_t>(l.mem_mib, 0, n.total_mem_mib);
  n.jobs = std::max(l.jobs, 0);
  n.exclusive = l.exclusive > 0;
  return n;
}

size_t Availability::MomentAt(absl::Time t) {
  auto [it, inserted] = moment_at_.try_emplace(t, moments_.size());
  if (inserted) {
    moments_.emplace_back();
  }
  return it->second;
}

void Availability::Add(core::NodeId node, const Delta& delta, bool take, Moment* moment) {
  std::vector<Delta>& list = events_[node.value()];
  auto pos = std::upper_bound(list.begin(), list.end(), delta.at,
                              [](absl::Time t, const Delta& d) { return t < d.at; });
  list.insert(pos, delta);
  if (moment != nullptr) {
    moment->changed.push_back(node.value());
    if (take) {
      moment->taken.push_back(node.value());
    }
  }
}

void Availability::Count(core::NodeId node, absl::Time from, absl::Time until, int sign,
                         const Counted* only) {
  const NodeCapacity& base = now_view_.node(node);
  targets_.clear();
  if (only != nullptr) {
    if (only->Counts(base)) {
      targets_.push_back(only->profile.get());
    }
  } else {
    for (const Counted& c : profiles_) {
      if (c.Counts(base)) {
        targets_.push_back(c.profile.get());
      }
    }
  }
  if (targets_.empty()) {
    return;
  }
  const std::vector<Delta>& list = events_[node.value()];
  Level level = LevelOf(base);
  size_t i = 0;
  for (; i < list.size() && list[i].at <= from; ++i) {
    level.Apply(list[i]);
  }
  absl::Time t = from;
  auto add = [&](absl::Time to) {
    const NodeCapacity state = WithLevel(base, level);
    for (CapacityProfile* p : targets_) {
      p->Add(state, t, to, sign);
    }
  };
  while (i < list.size() && list[i].at < until) {
    const absl::Time next = list[i].at;
    add(next);
    for (; i < list.size() && list[i].at == next; ++i) {
      level.Apply(list[i]);
    }
    t = next;
  }
  add(until);
}

const CapacityProfile& Availability::Profile(int32_t partition, int32_t gpu_type) {
  for (const Counted& c : profiles_) {
    if (c.partition == partition && c.gpu_type == gpu_type) {
      return *c.profile;
    }
  }
  int32_t max_gpus = 0;
  for (const NodeCapacity& n : now_view_.nodes()) {
    max_gpus = std::max(max_gpus, n.total_gpus);
  }
  profiles_.push_back({partition, gpu_type, std::make_unique<CapacityProfile>(max_gpus)});
  const Counted& made = profiles_.back();
  for (int32_t n = 0; n < now_view_.node_count(); ++n) {
    Count(core::NodeId(n), now_, absl::InfiniteFuture(), +1, &made);
  }
  return *made.profile;
}

void Availability::AddRunning(const RunningJob& job) {
  const absl::Time at = EndOf(job.end, absl::ZeroDuration());
  if (at == absl::InfiniteFuture()) {
    return;  // unlimited: never comes back
  }
  Moment* moment = &moments_[MomentAt(at)];  // at > now (EndOf)
  for (const core::NodeShare& s : job.nodes) {
    if (!s.node.valid() || s.node.value() >= now_view_.node_count()) {
      continue;  // not a node of this view: nothing of it is counted there either
    }
    if (!profiles_.empty()) {
      Count(s.node, at, absl::InfiniteFuture(), -1);
    }
    Add(s.node, {at, s.gpus, s.cpus, s.mem_mib, -1, job.exclusive ? -1 : 0}, /*take=*/false,
        moment);
    if (!profiles_.empty()) {
      Count(s.node, at, absl::InfiniteFuture(), +1);
    }
  }
  releases_.insert(at);
}

void Availability::AddHold(absl::Span<const NodeUse> uses, bool exclusive, absl::Time from,
                           absl::Time until) {
  if (until <= from) {
    return;
  }
  const int32_t excl = exclusive ? 1 : 0;
  // Holds that start now change the state at every `from` alike: no moment to index.
  const size_t from_at = from > now_ ? MomentAt(from) : moments_.size();
  const size_t until_at = until != absl::InfiniteFuture() ? MomentAt(until) : moments_.size();
  // Pointers only now: MomentAt may grow `moments_`.
  Moment* taken = from_at < moments_.size() ? &moments_[from_at] : nullptr;
  Moment* given = until_at < moments_.size() ? &moments_[until_at] : nullptr;
  for (const NodeUse& u : uses) {
    if (!profiles_.empty()) {
      Count(u.node, from, until, -1);
    }
    Add(u.node, {from, -u.gpus, -u.cpus, -u.mem_mib, 1, excl}, /*take=*/true, taken);
    if (given != nullptr) {
      Add(u.node, {until, u.gpus, u.cpus, u.mem_mib, -1, -excl}, /*take=*/false, given);
    }
    if (!profiles_.empty()) {
      Count(u.node, from, until, +1);
    }
  }
  if (until != absl::InfiniteFuture()) {
    releases_.insert(until);
  }
}

NodeCapacity Availability::Window(core::NodeId node, absl::Time from, absl::Time until) const {
  const NodeCapacity& base = now_view_.node(node);
  const std::vector<Delta>& list = events_[node.value()];
  if (list.empty()) {
    return base;
  }
  Level level = LevelOf(base);
  size_t i = 0;
  for (; i < list.size() && list[i].at <= from; ++i) {
    level.Apply(list[i]);
  }
  Level least = level;
  while (i < list.size() && list[i].at < until) {
    // Everything at one moment first: a share given back and taken again at the same time is
    // no dip.
    const absl::Time t = list[i].at;
    for (; i < list.size() && list[i].at == t; ++i) {
      level.Apply(list[i]);
    }
    least.gpus = std::min(least.gpus, level.gpus);
    least.cpus = std::min(least.cpus, level.cpus);
    least.mem_mib = std::min(least.mem_mib, level.mem_mib);
    least.jobs = std::max(least.jobs, level.jobs);
    least.exclusive = std::max(least.exclusive, level.exclusive);
  }
  return WithLevel(base, least);
}

bool Availability::Fits(const NodeUse& use, bool exclusive, absl::Time from,
                        absl::Time until) const {
  const NodeCapacity n = Window(use.node, from, until);
  return n.usable() && !n.exclusive && (!exclusive || n.jobs == 0) && n.free_gpus >= use.gpus &&
         n.free_cpus >= use.cpus && n.free_mem_mib >= use.mem_mib;
}

absl::Time Availability::ReleaseAtOrAfter(absl::Time t) const {
  auto it = releases_.lower_bound(t);
  return it == releases_.end() ? absl::InfiniteFuture() : *it;
}

}  // namespace canopy::plan
