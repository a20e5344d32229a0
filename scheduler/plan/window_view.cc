// A capacity view over a window of time (window_view.h).
#include "scheduler/plan/window_view.h"

#include <algorithm>

namespace canopy::plan {

using placement::NodeCapacity;

WindowView::WindowView(const Availability& avail, const placement::CapacityView& at_now)
    : avail_(avail),
      view_(at_now),
      from_(avail.now()),
      until_(avail.now()),
      seen_(at_now.node_count(), 0) {}

void WindowView::Mark(core::NodeId node) {
  if (seen_[node.value()] != stamp_) {
    seen_[node.value()] = stamp_;
    marked_.push_back(node);
  }
}

void WindowView::MoveTo(absl::Time from, absl::Time until) {
  until = std::max(until, from);
  if (from == from_ && until == until_) {
    return;
  }
  ++stamp_;
  marked_.clear();
  auto mark = [this](core::NodeId n) { Mark(n); };
  // The state at `from` changes by every event in between. Otherwise the window's least capacity
  // changes only by a take that enters or leaves it at the end: a release there comes after
  // every take both windows share, so it cannot raise their minimum.
  avail_.ForEachChangeIn(std::min(from, from_), std::max(from, from_), mark);
  avail_.ForEachTakeIn(std::min(until, until_), std::max(until, until_), mark);
  from_ = from;
  until_ = until;
  for (core::NodeId n : marked_) {
    RefreshNode(n);
  }
}

void WindowView::Refresh(absl::Span<const placement::NodeUse> nodes) {
  for (const placement::NodeUse& u : nodes) {
    RefreshNode(u.node);
  }
}

void WindowView::RefreshNode(core::NodeId node) {
  const NodeCapacity n = avail_.Window(node, from_, until_);
  const NodeCapacity& old = view_.node(node);
  if (n.free_gpus == old.free_gpus && n.free_cpus == old.free_cpus &&
      n.free_mem_mib == old.free_mem_mib && n.jobs == old.jobs && n.exclusive == old.exclusive) {
    return;
  }
  if (absl::Status s = view_.UpdateNode(node, n); !s.ok() && status_.ok()) {
    status_ = s;
  }
}

}  // namespace canopy::plan
