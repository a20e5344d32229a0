// placement/canopy: lowest domain, fewest units, fragmentation-aware best fit (see the header and
// docs/design/placement.md).
#include "scheduler/placement/canopy_policy.h"

#include <algorithm>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/base/macros.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "scheduler/placement/eligibility.h"

namespace canopy::placement {
namespace {

using core::NodeId;

struct Candidate {
  int domain = -1;
  int32_t units = 0;
  int32_t count = 0;
};

// Fewest units, then tightest fit, then lowest id.
bool Better(const DomainTree& tree, const Candidate& a, const Candidate& b) {
  if (b.domain < 0) {
    return true;
  }
  if (a.units != b.units) {
    return a.units < b.units;
  }
  if (a.count != b.count) {
    return a.count < b.count;
  }
  return TieKey(tree, a.domain) < TieKey(tree, b.domain);
}

// Chooses concrete nodes inside a domain for one gang; holds the per-call scratch.
class GangPlacer {
 public:
  GangPlacer(const CapacityView& view, const ResolvedRequest& r, const EligibleSet& es)
      : view_(view), tree_(view.domains()), r_(r), es_(es) {}

  // Appends `need` eligible nodes of domain `d` (including its required nodes) to chosen().
  void Distribute(int d, int32_t need) {
    const Domain& dom = tree_.domain(d);
    if (dom.level == 0) {
      PickNodes(d, need);
      return;
    }
    // Above the unit level we count units (leaf switches / blocks); inside a unit, its children.
    absl::Span<const int> parts = dom.unit < 0 ? tree_.units_of(d) : tree_.children(d);
    std::vector<Item> items;
    items.reserve(parts.size());
    for (int p : parts) {
      if (es_.count(p) == 0) {
        continue;
      }
      items.push_back({p, es_.count(p), es_.required[p], tree_.domain(p).parent, TieKey(tree_, p)});
    }
    for (const auto& [part, amount] : ChooseFewest(std::move(items), need)) {
      Distribute(part, amount);
    }
  }

  std::vector<NodeId>& chosen() { return chosen_; }

 private:
  struct Item {
    int domain;
    int32_t count;
    int32_t required;
    int parent;
    std::pair<int, int32_t> tie;
  };

  // Fewest items covering `need`, fragmentation-aware. Items holding required nodes are used
  // (and filled) first. For the rest, k = the fewest further items that can cover what is left;
  // then, from the item with the most eligible nodes down, an item is kept free whenever the
  // items not kept can still cover the need with k of them. What is not kept is exactly k items
  // (each one is needed by the rest), and the largest free items survive: the leftover free
  // counts are as large as greedy can make them, largest first. Equal counts are
  // interchangeable: among them, prefer an item beside one already used (same parent), then the
  // lowest id. O(items log items + k × items).
  std::vector<std::pair<int, int32_t>> ChooseFewest(std::vector<Item> items, int32_t need) {
    std::vector<std::pair<int, int32_t>> picks;
    std::vector<int> used_parents;
    std::vector<Item> forced, pool;
    for (const Item& it : items) {
      (it.required > 0 ? forced : pool).push_back(it);
    }
    std::sort(forced.begin(), forced.end(), [](const Item& a, const Item& b) {
      return std::tie(a.count, a.tie) < std::tie(b.count, b.tie);
    });
    int32_t remaining = need;
    for (const Item& f : forced) {
      picks.push_back({f.domain, f.required});
      remaining -= f.required;
      used_parents.push_back(f.parent);
    }
    for (size_t i = 0; i < forced.size() && remaining > 0; ++i) {
      int32_t extra = std::min(forced[i].count - forced[i].required, remaining);
      picks[i].second += extra;
      remaining -= extra;
    }
    if (remaining <= 0 || pool.empty()) {
      return picks;
    }

    // Most eligible first; among equals the highest id first, so that the lowest ids get used.
    std::sort(pool.begin(), pool.end(), [](const Item& a, const Item& b) {
      if (a.count != b.count) {
        return a.count > b.count;
      }
      return a.tie > b.tie;
    });
    const int n = static_cast<int>(pool.size());
    std::vector<int64_t> prefix(n + 1, 0);
    for (int i = 0; i < n; ++i) {
      prefix[i + 1] = prefix[i] + pool[i].count;
    }
    const int k = static_cast<int>(
        std::lower_bound(prefix.begin(), prefix.end(), static_cast<int64_t>(remaining)) -
        prefix.begin());
    // The domain was chosen because its eligible nodes cover the need.
    ABSL_ASSERT(k >= 1 && k <= n);

    // Keep pass. Items before i that were not kept are used; keeping i means the rest of the k
    // come from the items after i, the largest of which are the next ones.
    std::vector<int32_t> used_counts;
    int64_t used_sum = 0;
    for (int i = 0; i < n && static_cast<int>(used_counts.size()) < k; ++i) {
      const int still = k - static_cast<int>(used_counts.size());
      const int last = std::min(n, i + 1 + still);
      if (used_sum + prefix[last] - prefix[i + 1] >= remaining) {
        continue;  // keep it free
      }
      used_counts.push_back(pool[i].count);
      used_sum += pool[i].count;
    }

    // Which items of each used count: beside an item already used, else the lowest id.
    std::vector<char> taken(n, 0);
    std::vector<Item> chosen_items;
    for (int32_t v : used_counts) {
      int pick = -1;
      bool pick_near = false;
      for (int j = 0; j < n; ++j) {
        if (taken[j] || pool[j].count != v) {
          continue;
        }
        const bool near = std::find(used_parents.begin(), used_parents.end(), pool[j].parent) !=
                          used_parents.end();
        if (pick < 0 || (near && !pick_near) ||
            (near == pick_near && pool[j].tie < pool[pick].tie)) {
          pick = j;
          pick_near = near;
        }
      }
      taken[pick] = 1;
      chosen_items.push_back(pool[pick]);
      used_parents.push_back(pool[pick].parent);
    }
    // Smaller items are consumed whole; the largest one takes what is left.
    std::sort(chosen_items.begin(), chosen_items.end(), [](const Item& a, const Item& b) {
      return std::tie(a.count, a.tie) < std::tie(b.count, b.tie);
    });
    for (const Item& it : chosen_items) {
      const int32_t take = std::min(it.count, remaining);
      if (take <= 0) {
        break;
      }
      picks.push_back({it.domain, take});
      remaining -= take;
    }
    return picks;
  }

  // Required nodes, then (shared jobs) partly used nodes with the tightest fit, then NodeId.
  void PickNodes(int d, int32_t need) {
    absl::Span<const NodeId> eligible = es_.of(d);
    if (static_cast<int32_t>(eligible.size()) <= need) {
      chosen_.insert(chosen_.end(), eligible.begin(), eligible.end());
      return;
    }
    scratch_.assign(eligible.begin(), eligible.end());
    auto key = [&](NodeId id) {
      const NodeCapacity& n = view_.node(id);
      const bool shared = !r_.exclusive;
      return std::make_tuple(r_.required_node(id) ? 0 : 1, shared && n.jobs > 0 ? 0 : 1,
                             shared ? n.free_gpus - r_.gpus : 0, shared ? n.free_cpus - r_.cpus : 0,
                             id.value());
    };
    std::partial_sort(scratch_.begin(), scratch_.begin() + need, scratch_.end(),
                      [&](NodeId a, NodeId b) { return key(a) < key(b); });
    chosen_.insert(chosen_.end(), scratch_.begin(), scratch_.begin() + need);
  }

  const CapacityView& view_;
  const DomainTree& tree_;
  const ResolvedRequest& r_;
  const EligibleSet& es_;
  std::vector<NodeId> chosen_;
  std::vector<NodeId> scratch_;
};

void PlaceGang(const CapacityView& view, const ResolvedRequest& r, PlacementResult& result) {
  const DomainTree& tree = view.domains();
  EligibleSet es;
  CollectEligible(view, r, /*prune=*/true, es);
  Explanation& ex = result.explanation;
  ex.eligible_nodes = static_cast<int32_t>(es.nodes.size());
  ex.rejected = es.rejected;
  std::vector<int32_t> scratch;

  int32_t n = TargetNodeCount(tree, es, r);
  if (r.switch_limit && n > r.min_nodes) {
    // A range job under --switches takes what K units can give, not more.
    int32_t cap = 0;
    for (int root : tree.roots()) {
      if (HoldsRequired(es, r, root)) {
        cap = std::max(cap, MostNodesInUnits(tree, es, root, r.max_switches, scratch));
      }
    }
    n = std::max(r.min_nodes, std::min(n, cap));
  }

  // Lowest level first; at a level, the fewest units, then the tightest fit, then lowest id.
  Candidate chosen, lowest_fit;
  int32_t candidates = 0;
  for (int level = 0; level <= tree.max_level() && chosen.domain < 0; ++level) {
    Candidate best_any, best_ok;
    int32_t ok = 0;
    for (int d : tree.at_level(level)) {
      if (es.count(d) < n || !HoldsRequired(es, r, d)) {
        continue;
      }
      Candidate c{d, MinUnits(tree, es, d, n, scratch), es.count(d)};
      if (c.units < 0) {
        continue;
      }
      if (Better(tree, c, best_any)) {
        best_any = c;
      }
      if (!r.switch_limit || c.units <= r.max_switches) {
        ++ok;
        if (Better(tree, c, best_ok)) {
          best_ok = c;
        }
      }
    }
    if (lowest_fit.domain < 0) {
      lowest_fit = best_any;
    }
    if (best_ok.domain >= 0) {
      chosen = best_ok;
      candidates = ok;
    }
  }
  if (chosen.domain < 0) {
    if (lowest_fit.domain < 0) {
      DiagnoseNoPlacement(view, r, /*topology_aware=*/true, result);
      return;
    }
    // Fits, but not within --switches=K yet: wait, as Slurm does, until the wait runs out.
    result.outcome = Outcome::kWait;
    result.reason = PendingReason::kSwitchLimit;
    DescribeDomain(tree, lowest_fit.domain, ex);
    ex.min_units = lowest_fit.units;
    result.detail = absl::StrCat("--switches=", r.max_switches, ": the best placement now uses ",
                                 lowest_fit.units, " leaf switches/blocks (in ", ex.domain,
                                 "); waiting for one within the limit until the switch wait ends");
    return;
  }

  GangPlacer placer(view, r, es);
  placer.Distribute(chosen.domain, n);
  ABSL_ASSERT(static_cast<int32_t>(placer.chosen().size()) == n);
  FillPlaced(view, r, std::move(placer.chosen()), result);
  DescribeDomain(tree, chosen.domain, ex);
  ex.candidates = candidates;
  ex.min_units = chosen.units;
  ex.switch_limit_waived = r.switch_wait_over && ex.units_used > r.max_switches;
}

// A unit to search for a one-node job, ordered busiest first.
struct UnitChoice {
  int32_t idle;
  int64_t free_gpus;
  std::pair<int, int32_t> tie;
  int unit;
  bool operator<(const UnitChoice& o) const {
    return std::tie(idle, free_gpus, tie) < std::tie(o.idle, o.free_gpus, o.tie);
  }
};

// Tries units in order (the best first without sorting, since it usually succeeds) and returns
// the first node `best_in` finds.
template <typename BestIn>
NodeId SearchUnits(std::vector<UnitChoice>& units, BestIn best_in) {
  if (units.empty()) {
    return NodeId();
  }
  auto first = std::min_element(units.begin(), units.end());
  if (NodeId id = best_in(first->unit); id.valid()) {
    return id;
  }
  std::iter_swap(units.begin(), first);
  std::sort(units.begin() + 1, units.end());
  for (size_t i = 1; i < units.size(); ++i) {
    if (NodeId id = best_in(units[i].unit); id.valid()) {
      return id;
    }
  }
  return NodeId();
}

bool PlaceSmall(const CapacityView& view, const ResolvedRequest& r, PlacementResult& result) {
  const DomainTree& tree = view.domains();
  auto finish = [&](NodeId id, int32_t candidates) {
    FillPlaced(view, r, {id}, result);
    Explanation& ex = result.explanation;
    DescribeDomain(tree, tree.domain(tree.group_of(id)).unit, ex);
    ex.candidates = candidates;
    ex.min_units = 1;
    ex.eligible_nodes = -1;  // fast path: the cluster was not counted
    return true;
  };
  if (!r.required.empty()) {
    NodeId id = r.required.front();
    return Reject(view.node(id), id, r) ? false : finish(id, 1);
  }

  // Inside a unit, prefer the busiest group (block) too, then the tightest fit, then NodeId.
  auto search = [&](int unit, bool partly) {
    NodeId best;
    std::tuple<int32_t, int32_t, int32_t, int32_t> best_key;
    for (NodeId id : tree.nodes(unit)) {
      const NodeCapacity& n = view.node(id);
      if (partly ? !n.partly_used() : !n.idle()) {
        continue;
      }
      if (Reject(n, id, r)) {
        continue;
      }
      const int32_t group_idle =
          tree.units_have_children() ? view.stats(tree.group_of(id)).idle : 0;
      auto key = partly ? std::make_tuple(group_idle, n.free_gpus - r.gpus, n.free_cpus - r.cpus,
                                          id.value())
                        : std::make_tuple(group_idle, 0, 0, id.value());
      if (!best.valid() || key < best_key) {
        best = id;
        best_key = key;
      }
    }
    return best;
  };

  // 1. A partly used node: keeps idle nodes (and leaves) whole for gangs.
  std::vector<UnitChoice> units;
  for (int u : tree.units()) {
    const DomainStats& s = view.stats(u);
    if (s.partly_used == 0 || s.max_partly_free_gpus < r.gpus) {
      continue;
    }
    units.push_back({s.idle, s.open_free_gpus, TieKey(tree, u), u});
  }
  if (NodeId id = SearchUnits(units, [&](int u) { return search(u, true); }); id.valid()) {
    return finish(id, static_cast<int32_t>(units.size()));
  }
  // 2. An idle node in the busiest unit.
  units.clear();
  for (int u : tree.units()) {
    const DomainStats& s = view.stats(u);
    if (s.idle == 0 || s.max_open_free_gpus < r.gpus) {
      continue;
    }
    units.push_back({s.idle, s.open_free_gpus, TieKey(tree, u), u});
  }
  if (NodeId id = SearchUnits(units, [&](int u) { return search(u, false); }); id.valid()) {
    return finish(id, static_cast<int32_t>(units.size()));
  }
  return false;
}

}  // namespace

PlacementResult CanopyPolicy::Place(const CapacityView& view, const PlacementRequest& request,
                                    absl::Time now) const {
  ResolvedRequest r;
  if (std::optional<PlacementResult> bad = ResolveRequest(view, request, now, r)) {
    bad->explanation.policy = std::string(kName);
    return *std::move(bad);
  }
  PlacementResult result;
  result.explanation.policy = std::string(kName);
  if (r.max_nodes == 1 && !r.exclusive) {
    if (!PlaceSmall(view, r, result)) {
      DiagnoseNoPlacement(view, r, /*topology_aware=*/true, result);
    }
    return result;
  }
  PlaceGang(view, r, result);
  return result;
}

}  // namespace canopy::placement
