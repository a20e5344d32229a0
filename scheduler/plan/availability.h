// Availability: the capacity of every node from now on, as one backfill pass models it.
//
// The model (docs/design/scheduling_pass.md, "Backfill"): the capacity view says what is free
// now; a running job gives its shares back at its expected end; a job the pass starts holds its
// shares from now until now + its time limit, and a reservation from its start until its start +
// time limit. Every time at which something comes back is rounded up to the resolution, so
// capacity is never assumed back before it is.
//
// A node's availability over a window [from, until) is its state at `from` with the least free
// GPUs, CPUs and memory of any moment in the window, the most jobs, and "held exclusively" if it
// is at any moment: a job can hold a share of the node for the whole window exactly when that
// NodeCapacity can take the share now. Capacity only comes back at release times, so between two
// release times the availability over [from, from + limit) only shrinks as `from` grows: the
// earliest start of a job is `now` or a release time.
//
// Holds one sorted event list per node and a time index (per moment after now: the nodes with an
// event, and those where it takes capacity) so that a WindowView (window_view.h) finds the nodes a
// move touches. Refers to the capacity view it was made from, which must outlive it. Owned by one
// pass; not thread-safe; pure.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/container/btree_set.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "scheduler/core/ids.h"
#include "scheduler/placement/capacity_view.h"
#include "scheduler/plan/pass.h"
#include "scheduler/plan/profile.h"

namespace canopy::plan {

class Availability {
 public:
  // `now_view`: what is free at `now`. `resolution` below 1 s counts as 1 s.
  Availability(const placement::CapacityView& now_view, absl::Time now, absl::Duration resolution);

  absl::Time now() const { return now_; }
  // The first multiple of the resolution (since the Unix epoch) at or after `t`; InfiniteFuture
  // stays.
  absl::Time Grid(absl::Time t) const;
  // When a job that holds its shares from `start` for `limit` gives them back: the first
  // multiple of the resolution at or after start + limit, and after now.
  absl::Time EndOf(absl::Time start, absl::Duration limit) const;

  // A running job: its shares, used in the capacity view, come back at EndOf(job.end, 0).
  void AddRunning(const RunningJob& job);
  // A job started or reserved in this pass holds `uses` over [from, until) (`from` >= now).
  void AddHold(absl::Span<const placement::NodeUse> uses, bool exclusive, absl::Time from,
               absl::Time until);

  // The node as available over [from, until), from >= now (until <= from: its state at `from`).
  // O(events on the node).
  placement::NodeCapacity Window(core::NodeId node, absl::Time from, absl::Time until) const;
  // True if the node can take `use` (of an exclusive job or not) over the whole window.
  bool Fits(const placement::NodeUse& use, bool exclusive, absl::Time from, absl::Time until) const;

  // The first release time at or after `t`, InfiniteFuture if none. O(log releases).
  absl::Time ReleaseAtOrAfter(absl::Time t) const;

  // The counts over time (profile.h) of the nodes in `partition` with GPUs of type `gpu_type`
  // (indexes into the view's tables; -1 = any), so that a job of a small partition or a rare GPU
  // is not judged by the whole cluster. Made at the first call for that pair in
  // O(nodes + events), then kept up to date by every hold (O(events of its nodes) more per node
  // and profile). The reference stays valid while this Availability lives.
  const CapacityProfile& Profile(int32_t partition, int32_t gpu_type);

  // Calls f(node) for each event at a time in (lo, hi]: the nodes whose state at `from` differs
  // between from = lo and from = hi. A node may come more than once.
  template <typename F>
  void ForEachChangeIn(absl::Time lo, absl::Time hi, F f) const {
    for (auto it = moment_at_.upper_bound(lo); it != moment_at_.end() && it->first <= hi; ++it) {
      for (int32_t n : moments_[it->second].changed) {
        f(core::NodeId(n));
      }
    }
  }
  // Calls f(node) for each event that takes capacity at a time in [lo, hi): the nodes whose
  // availability over [from, until) may differ between until = lo and until = hi.
  template <typename F>
  void ForEachTakeIn(absl::Time lo, absl::Time hi, F f) const {
    for (auto it = moment_at_.lower_bound(lo); it != moment_at_.end() && it->first < hi; ++it) {
      for (int32_t n : moments_[it->second].taken) {
        f(core::NodeId(n));
      }
    }
  }

 private:
  // A change of one node's free capacity at one time: + gives back, - takes.
  struct Delta {
    absl::Time at;
    int32_t gpus = 0;
    int32_t cpus = 0;
    int64_t mem_mib = 0;
    int32_t jobs = 0;       // + when a job comes (the opposite sign of the resources)
    int32_t exclusive = 0;  // + when an exclusive job comes
  };

  // The nodes with an event at one moment after now (a node may be listed twice).
  struct Moment {
    std::vector<int32_t> changed;  // every event
    std::vector<int32_t> taken;    // the events that take capacity
  };
  // The dynamic part of a node's state while walking its events.
  struct Level {
    int64_t gpus;
    int64_t cpus;
    int64_t mem_mib;
    int32_t jobs;
    int32_t exclusive;
    void Apply(const Delta& d);
  };
  static Level LevelOf(const placement::NodeCapacity& n);
  // `base` with the level's values, clamped into the node's range (running jobs the view does
  // not count, or counts twice, must not make an invalid node; the applier re-checks starts).
  static placement::NodeCapacity WithLevel(placement::NodeCapacity base, const Level& l);

  // The index of the moment's entry in `moments_`, made if new (one lookup per hold and moment,
  // not per node).
  size_t MomentAt(absl::Time t);
  // Adds the event to the node's list and, after now, to `moment` (the entry of delta.at).
  void Add(core::NodeId node, const Delta& delta, bool take, Moment* moment);
  // One profile and the nodes it counts.
  struct Counted {
    int32_t partition;  // -1 = any
    int32_t gpu_type;   // -1 = any
    std::unique_ptr<CapacityProfile> profile;
    bool Counts(const placement::NodeCapacity& n) const {
      return n.usable() && (partition < 0 || ((n.partitions >> partition) & 1) != 0) &&
             (gpu_type < 0 || n.gpu_type == gpu_type);
    }
  };
  // Adds `sign` times the node's states over [from, until) to `only`, or (nullptr) to every
  // profile that counts the node.
  void Count(core::NodeId node, absl::Time from, absl::Time until, int sign,
             const Counted* only = nullptr);

  const placement::CapacityView& now_view_;
  absl::Time now_;
  absl::Duration resolution_;
  std::vector<std::vector<Delta>> events_;  // per node, by time (stable for equal times)
  absl::btree_map<absl::Time, size_t> moment_at_;
  std::vector<Moment> moments_;
  absl::btree_set<absl::Time> releases_;   // times at which capacity comes back
  std::vector<Counted> profiles_;          // few: one per (partition, GPU type) a search asked for
  std::vector<CapacityProfile*> targets_;  // Count's scratch
};

}  // namespace canopy::plan
