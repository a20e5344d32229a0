// Cluster-wide free capacity over time (profile.h).
#include "scheduler/plan/profile.h"

#include <algorithm>

namespace canopy::plan {

CapacityProfile::CapacityProfile(int32_t max_gpus) : width_(3 + std::max(max_gpus, 0)) {}

int64_t* CapacityProfile::RowAt(absl::Time t) {
  auto [it, inserted] = at_.try_emplace(t, static_cast<int32_t>(rows_.size() / width_));
  if (inserted) {
    rows_.resize(rows_.size() + width_, 0);
  }
  return &rows_[static_cast<size_t>(it->second) * width_];
}

void CapacityProfile::Add(const placement::NodeCapacity& n, absl::Time from, absl::Time until,
                          int sign) {
  // As DomainStats counts them: idle = usable with no job; open = usable, not held exclusively.
  if (!n.usable() || from >= until) {
    return;
  }
  const int64_t idle = n.jobs == 0 ? 1 : 0;
  const bool open = !n.exclusive;
  const int32_t free = open ? std::min(n.free_gpus, width_ - 3) : -1;
  auto add = [&](int64_t* row, int s) {
    row[0] += s * idle;
    if (open) {
      row[1] += s * int64_t{n.free_gpus};
      for (int32_t g = 0; g <= free; ++g) {
        row[2 + g] += s;
      }
    }
  };
  add(RowAt(from), sign);  // one row at a time: RowAt may move the rows
  if (until != absl::InfiniteFuture()) {
    add(RowAt(until), -sign);
  }
}

ProfileScan::ProfileScan(const CapacityProfile& profile, const core::ResourceRequest& request)
    : profile_(profile),
      next_(profile.at_.begin()),
      exclusive_(request.exclusive),
      nodes_(request.min_nodes),
      gpus_(std::max(request.gpus_per_node, 0)) {
  Extend();
}

bool ProfileScan::Extend() {
  if (next_ == profile_.at_.end()) {
    return false;
  }
  const int64_t* row = &profile_.rows_[static_cast<size_t>(next_->second) * profile_.width_];
  idle_ += row[0];
  free_ += row[1];
  if (gpus_ <= profile_.width_ - 3) {
    open_with_gpus_ += row[2 + gpus_];
  }
  const bool enough =
      exclusive_ ? idle_ >= nodes_ : open_with_gpus_ >= nodes_ && free_ >= nodes_ * gpus_;
  starts_.push_back(next_->first);
  short_.push_back(!enough);
  ++next_;
  return true;
}

bool ProfileScan::Enough(absl::Time from, absl::Time until) {
  if (starts_.empty()) {
    return false;  // no usable node at all
  }
  while (true) {
    if (first_ + 1 == starts_.size() && !Extend()) {
      break;
    }
    if (starts_[first_ + 1] > from) {
      break;
    }
    ++first_;
  }
  next_short_ = std::max(next_short_, first_);
  while (true) {
    if (next_short_ == starts_.size() && !Extend()) {
      return true;
    }
    if (starts_[next_short_] >= until) {
      return true;
    }
    if (short_[next_short_]) {
      return false;
    }
    ++next_short_;
  }
}

}  // namespace canopy::plan
