// placement/first_fit: required nodes, then the lowest NodeIds that pass the filter.
#include "scheduler/placement/first_fit_policy.h"

#include <vector>

#include "scheduler/placement/eligibility.h"

namespace canopy::placement {

using core::NodeId;

PlacementResult FirstFitPolicy::Place(const CapacityView& view, const PlacementRequest& request,
                                      absl::Time now) const {
  ResolvedRequest r;
  if (std::optional<PlacementResult> bad = ResolveRequest(view, request, now, r)) {
    bad->explanation.policy = std::string(kName);
    return *std::move(bad);
  }
  PlacementResult result;
  result.explanation.policy = std::string(kName);
  std::vector<NodeId> chosen;
  for (NodeId id : r.required) {
    if (Reject(view.node(id), id, r)) {
      DiagnoseNoPlacement(view, r, /*topology_aware=*/false, result);
      return result;
    }
    chosen.push_back(id);
  }
  for (int i = 0; i < view.node_count() && static_cast<int32_t>(chosen.size()) < r.max_nodes; ++i) {
    NodeId id(i);
    if (r.required_node(id) || Reject(view.node(id), id, r)) {
      continue;
    }
    chosen.push_back(id);
  }
  if (static_cast<int32_t>(chosen.size()) < r.min_nodes) {
    DiagnoseNoPlacement(view, r, /*topology_aware=*/false, result);
    return result;
  }
  FillPlaced(view, r, std::move(chosen), result);
  Explanation& ex = result.explanation;
  ex.eligible_nodes = -1;  // stops at the first nodes that fit
  ex.min_units = 0;        // topology-blind: not computed
  return result;
}

}  // namespace canopy::placement
