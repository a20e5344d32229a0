// placement/first_fit: the topology-blind baseline.
//
// Takes the required nodes, then the lowest-numbered eligible nodes, whatever switches they sit
// under (it may span fabrics and ignores --switches). It exists to measure what topology
// awareness buys in the simulator. Stateless and thread-safe.
#pragma once

#include "absl/strings/string_view.h"
#include "scheduler/placement/policy.h"

namespace canopy::placement {

class FirstFitPolicy final : public PlacementPolicy {
 public:
  static constexpr absl::string_view kName = "placement/first_fit";

  absl::string_view name() const override { return kName; }
  PlacementResult Place(const CapacityView& view, const PlacementRequest& request,
                        absl::Time now) const override;
};

}  // namespace canopy::placement
