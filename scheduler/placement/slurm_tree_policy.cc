// placement/slurm_tree: Slurm 22.05 topology/tree as observed (see the header).
#include "scheduler/placement/slurm_tree_policy.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "scheduler/placement/eligibility.h"

namespace canopy::placement {

using core::NodeId;

namespace {

// First fit inside one unit: required nodes, then the lowest NodeIds.
void TakeFirst(const EligibleSet& es, const ResolvedRequest& r, int unit, int32_t need,
               std::vector<NodeId>& out) {
  std::vector<NodeId> nodes(es.of(unit).begin(), es.of(unit).end());
  std::sort(nodes.begin(), nodes.end(), [&](NodeId a, NodeId b) {
    return std::make_pair(!r.required_node(a), a) < std::make_pair(!r.required_node(b), b);
  });
  nodes.resize(std::min<size_t>(nodes.size(), need));
  out.insert(out.end(), nodes.begin(), nodes.end());
}

}  // namespace

PlacementResult SlurmTreePolicy::Place(const CapacityView& view, const PlacementRequest& request,
                                       absl::Time now) const {
  ResolvedRequest r;
  if (std::optional<PlacementResult> bad = ResolveRequest(view, request, now, r)) {
    bad->explanation.policy = std::string(kName);
    return *std::move(bad);
  }
  PlacementResult result;
  Explanation& ex = result.explanation;
  ex.policy = std::string(kName);
  const DomainTree& tree = view.domains();
  EligibleSet es;
  CollectEligible(view, r, /*prune=*/true, es);
  ex.eligible_nodes = static_cast<int32_t>(es.nodes.size());
  ex.rejected = es.rejected;
  const int32_t n = TargetNodeCount(tree, es, r);

  // The lowest switch that fits; best fit (fewest eligible nodes) among equals, then lowest id.
  int top = -1;
  int32_t candidates = 0;
  for (int level = 0; level <= tree.max_level() && top < 0; ++level) {
    for (int d : tree.at_level(level)) {
      if (es.count(d) < n || !HoldsRequired(es, r, d)) {
        continue;
      }
      ++candidates;
      if (top < 0 || es.count(d) < es.count(top) ||
          (es.count(d) == es.count(top) && TieKey(tree, d) < TieKey(tree, top))) {
        top = d;
      }
    }
  }
  if (top < 0) {
    DiagnoseNoPlacement(view, r, /*topology_aware=*/true, result);
    return result;
  }

  std::vector<NodeId> chosen;
  const Domain& dom = tree.domain(top);
  if (dom.unit >= 0) {
    // Inside one leaf (or block): first fit over its nodes.
    TakeFirst(es, r, top, n, chosen);
  } else {
    std::vector<int> units;
    for (int u : tree.units_of(top)) {
      if (es.count(u) > 0) {
        units.push_back(u);
      }
    }
    int32_t remaining = n;
    std::vector<char> used(units.size(), 0);
    // Leaves holding required nodes come first (Slurm starts from the required nodes).
    for (size_t i = 0; i < units.size() && remaining > 0; ++i) {
      if (es.required[units[i]] == 0) {
        continue;
      }
      used[i] = 1;
      int32_t take = std::min(es.count(units[i]), remaining);
      TakeFirst(es, r, units[i], take, chosen);
      remaining -= take;
    }
    while (remaining > 0) {
      int best = -1;
      bool best_covers = false;
      for (size_t i = 0; i < units.size(); ++i) {
        if (used[i]) {
          continue;
        }
        const int32_t c = es.count(units[i]);
        const bool covers = c >= remaining;
        if (best < 0) {
          best = static_cast<int>(i);
          best_covers = covers;
          continue;
        }
        const int32_t bc = es.count(units[best]);
        // A leaf that covers the rest beats one that does not; among coverers the fewest free
        // nodes; among the others the most. Units are in pre-order, so the first of equals is
        // the lowest-numbered leaf in declaration order.
        bool better = covers != best_covers ? covers : (covers ? c < bc : c > bc);
        if (!better && c == bc && TieKey(tree, units[i]) < TieKey(tree, units[best])) {
          better = true;
        }
        if (better) {
          best = static_cast<int>(i);
          best_covers = covers;
        }
      }
      if (best < 0) {
        break;  // cannot happen: the top switch covers n
      }
      used[best] = 1;
      const int32_t take = std::min(es.count(units[best]), remaining);
      TakeFirst(es, r, units[best], take, chosen);
      remaining -= take;
    }
  }

  PlacementResult placed = result;
  FillPlaced(view, r, chosen, placed);
  DescribeDomain(tree, top, placed.explanation);
  placed.explanation.candidates = candidates;
  std::vector<int32_t> scratch;
  placed.explanation.min_units = MinUnits(tree, es, top, n, scratch);
  if (r.switch_limit && placed.explanation.units_used > r.max_switches) {
    // Slurm leaves the job pending (best_switch=false) until its switch wait runs out.
    result.outcome = Outcome::kWait;
    result.reason = PendingReason::kSwitchLimit;
    result.detail = absl::StrCat("--switches=", r.max_switches, ": the placement found uses ",
                                 placed.explanation.units_used, " leaf switches");
    DescribeDomain(tree, top, ex);
    ex.min_units = placed.explanation.min_units;
    return result;
  }
  placed.explanation.switch_limit_waived =
      r.switch_wait_over && placed.explanation.units_used > r.max_switches;
  return placed;
}

}  // namespace canopy::placement
