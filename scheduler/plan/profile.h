// CapacityProfile: cluster-wide counts of free capacity over time, for backfill's cheap bound.
//
// Per moment: the idle nodes, the free GPUs on open nodes, and for every g the open nodes with
// at least g free GPUs, kept as deltas at the moments they change (a node's state changes only at
// its events). A job that holds its nodes over a window needs them at every moment of it, and a
// node available over the whole window is available at each moment, so the least count over the
// window is never below what a WindowView (window_view.h) of that window shows: a window whose
// least count is too small cannot hold the job, and the pass skips it without moving a view or
// calling the policy. Sums over every node, so the bound holds for every policy, whether or not it
// keeps a job inside one fabric.
//
// Owned by Availability, which feeds it; not thread-safe; pure.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/time/time.h"
#include "scheduler/core/job_spec.h"
#include "scheduler/placement/capacity_view.h"

namespace canopy::plan {

class CapacityProfile {
 public:
  // `max_gpus`: the most GPUs of any node.
  explicit CapacityProfile(int32_t max_gpus);

  // Adds `sign` (+1 or -1) times what a node in state `n` counts over [from, until).
  void Add(const placement::NodeCapacity& n, absl::Time from, absl::Time until, int sign);

 private:
  friend class ProfileScan;

  int64_t* RowAt(absl::Time t);

  int32_t width_;                            // columns: idle, free GPUs, open with >= 0..max GPUs
  absl::btree_map<absl::Time, int32_t> at_;  // moment -> row of deltas
  std::vector<int64_t> rows_;
};

// One job's walk over a profile: whether each window, taken in order of growing start, has
// enough at every moment. O(moments up to the last window's end) in all.
class ProfileScan {
 public:
  // `profile` must not change while the scan is used.
  ProfileScan(const CapacityProfile& profile, const core::ResourceRequest& request);

  // True unless some moment of [from, until) lacks what the job needs. `from` must not decrease
  // between calls.
  bool Enough(absl::Time from, absl::Time until);

 private:
  // Adds the next moment's slice; false at the end of the profile.
  bool Extend();

  const CapacityProfile& profile_;
  absl::btree_map<absl::Time, int32_t>::const_iterator next_;
  bool exclusive_;
  int64_t nodes_;
  int32_t gpus_;  // per node; its column
  int64_t idle_ = 0;
  int64_t free_ = 0;
  int64_t open_with_gpus_ = 0;
  std::vector<absl::Time> starts_;  // slice i is [starts_[i], starts_[i + 1])
  std::vector<bool> short_;         // slice i lacks capacity
  size_t first_ = 0;                // the slice holding the last `from`
  size_t next_short_ = 0;           // no slice in [first_, next_short_) is short
};

}  // namespace canopy::plan
