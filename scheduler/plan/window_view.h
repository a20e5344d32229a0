// WindowView: a CapacityView that shows every node as Availability (availability.h) has it over
// one window [from, until): what a placement policy must see to place a job that would start at
// `from` and hold its nodes until `until`.
//
// Made as one copy of the capacity at now; moving the window then updates only the nodes with an
// event between the old and the new bounds (O(events passed + changed nodes × depth × GPUs per
// node)), so a sweep over growing start times costs O(events) in all, not O(nodes) per step.
// Refers to the Availability, which must outlive it and tell it (Refresh) about every hold added
// after it was made. Owned by one pass; not thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "scheduler/placement/capacity_view.h"
#include "scheduler/plan/availability.h"

namespace canopy::plan {

class WindowView {
 public:
  // `at_now` must show every node as `avail` has it at now (the pass's capacity with its starts).
  // The window starts as [now, now).
  WindowView(const Availability& avail, const placement::CapacityView& at_now);

  const placement::CapacityView& view() const { return view_; }
  absl::Time from() const { return from_; }
  absl::Time until() const { return until_; }

  // Shows the window [from, until); from >= now.
  void MoveTo(absl::Time from, absl::Time until);
  // The availability of these nodes changed (a hold was added on them).
  void Refresh(absl::Span<const placement::NodeUse> nodes);

  // Not OK if the view refused an update, which the clamping in Availability::Window rules out;
  // the pass then stops using the view rather than place on a stale one.
  const absl::Status& status() const { return status_; }

 private:
  void Mark(core::NodeId node);
  void RefreshNode(core::NodeId node);

  const Availability& avail_;
  placement::CapacityView view_;
  absl::Time from_;
  absl::Time until_;
  std::vector<uint32_t> seen_;  // per node: the move that last marked it
  uint32_t stamp_ = 0;
  std::vector<core::NodeId> marked_;
  absl::Status status_;
};

}  // namespace canopy::plan
