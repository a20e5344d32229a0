// PlacementPolicy: the extension point that chooses nodes for one job.
//
// Called by the scheduling pass (and the simulator) once per job it tries to start, with the
// capacity view of this pass and the pass's time. A policy:
//   * reads only its arguments: no clock, no globals, no I/O, no locks (STYLE.md rules 1-2, 6);
//   * returns a PlacementResult: kPlaced with nodes, or kWait / kInfeasible with a reason.
//     "Cannot place" is never an error; there is no Status here because a valid view and a
//     request always have an answer;
//   * is deterministic: same view, request and time give the same result (ties by lowest id,
//     never hash-map order);
//   * keeps no per-job state, so one instance may serve concurrent callers (const, thread-safe).
// Policies are named "placement/<name>" and made through the registry (registry.h).
#pragma once

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "scheduler/placement/capacity_view.h"
#include "scheduler/placement/request.h"
#include "scheduler/placement/result.h"

namespace canopy::placement {

class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;

  // "placement/canopy", "placement/first_fit", ...
  virtual absl::string_view name() const = 0;

  // Chooses nodes for `request` on `view` (which carries the topology). `now` is used only for
  // the --switches wait (request.switch_wait_start + max_switch_wait).
  virtual PlacementResult Place(const CapacityView& view, const PlacementRequest& request,
                                absl::Time now) const = 0;
};

}  // namespace canopy::placement
