// Choosing whom to preempt (preemption.h).
#include "scheduler/plan/preemption.h"

#include <algorithm>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/btree_set.h"
#include "scheduler/placement/request.h"

namespace canopy::plan {
namespace {

using placement::CapacityView;
using placement::NodeUse;
using placement::PlacementResult;

// How good a placement is for the preemptor: fewer leaf switches, then a lower switch level.
std::pair<int32_t, int32_t> Quality(const PlacementResult& r) {
  return {r.explanation.units_used, r.explanation.switch_level};
}

std::vector<NodeUse> Uses(const PreemptCandidate& c) {
  std::vector<NodeUse> uses;
  uses.reserve(c.nodes.size());
  for (const core::NodeShare& s : c.nodes) {
    uses.push_back({s.node, s.gpus, s.cpus, s.mem_mib});
  }
  return uses;
}

// Gives the candidate's capacity back (start = false) or takes it again (start = true).
bool Apply(CapacityView& view, const PreemptCandidate& c, bool start) {
  return view.ApplyJob(Uses(c), c.exclusive, start).ok();
}

// Leaves tried on their own for a one-leaf preemptor (each costs a copy of the view and a few
// policy calls).
constexpr int kMaxLeavesTried = 64;

// Spares candidates in `order` from `work` (where all of them are released) while the preemptor
// still lands as well as `target`: in batches that double while they succeed and halve when one
// fails, down to the single candidate that must go. The same victims as trying them one by one
// (sparing more can only make the placement worse), in O(victims x log candidates) policy calls.
std::optional<PreemptionPlan> Spare(CapacityView& work,
                                    const std::vector<const PreemptCandidate*>& order,
                                    const placement::PlacementRequest& request, absl::Time now,
                                    const placement::PlacementPolicy& policy,
                                    std::pair<int32_t, int32_t> target) {
  auto take = [&](size_t from, size_t to, bool start) {
    for (size_t i = from; i < to; ++i) {
      (void)Apply(work, *order[i], start);
    }
  };
  PreemptionPlan plan;
  std::optional<PlacementResult> best;
  size_t next = 0;
  size_t batch = 1;
  while (next < order.size()) {
    const size_t end = std::min(order.size(), next + batch);
    take(next, end, /*start=*/true);
    PlacementResult r = policy.Place(work, request, now);
    if (r.placed() && Quality(r) <= target) {
      best = std::move(r);  // all of them spared
      next = end;
      batch *= 2;
      continue;
    }
    take(next, end, /*start=*/false);
    if (end - next > 1) {
      batch = (end - next) / 2;
      continue;
    }
    plan.victims.push_back(order[next]->job);
    plan.cost += order[next]->cost;
    ++next;
    batch = 1;
  }
  if (!best.has_value()) {
    PlacementResult r = policy.Place(work, request, now);
    if (!r.placed() || Quality(r) > target) {
      return std::nullopt;
    }
    best = std::move(r);
  }
  plan.placement = *std::move(best);
  return plan;
}

}  // namespace

std::optional<PreemptionPlan> PlanPreemption(const CapacityView& view, const core::Job& preemptor,
                                             absl::Span<const PreemptCandidate> candidates,
                                             absl::Time now,
                                             const placement::PlacementPolicy& policy) {
  const placement::PlacementRequest request(preemptor.resources, preemptor.eligible_time);
  if (policy.Place(view, request, now).placed()) {
    return std::nullopt;  // nothing to preempt for
  }
  CapacityView work = view;
  std::vector<const PreemptCandidate*> released;
  for (const PreemptCandidate& c : candidates) {
    if (Apply(work, c, /*start=*/false)) {
      released.push_back(&c);
    }
  }
  const PlacementResult best = policy.Place(work, request, now);
  if (!best.placed()) {
    return std::nullopt;
  }
  const CapacityView released_view = work;
  const auto target = Quality(best);

  // Most expensive first, each candidate is spared if the preemptor still lands as well without
  // its capacity (a local minimum). A job that fits under one leaf switch is also tried on each
  // leaf alone (every candidate elsewhere spared first), and the cheapest of those plans wins:
  // the greedy order alone may empty an expensive leaf because its few cheap jobs are spread out.
  std::vector<const PreemptCandidate*> by_cost = released;
  std::sort(by_cost.begin(), by_cost.end(),
            [](const PreemptCandidate* a, const PreemptCandidate* b) {
              return std::tie(b->cost, a->job) < std::tie(a->cost, b->job);
            });
  std::optional<PreemptionPlan> chosen = Spare(work, by_cost, request, now, policy, target);
  if (target.first == 1) {
    const topology::Topology& topo = view.topology();
    absl::btree_set<core::SwitchId> leaves;  // ordered: the same plan every run
    for (const PreemptCandidate* c : released) {
      for (const core::NodeShare& share : c->nodes) {
        leaves.insert(topo.leaf_of(share.node));
      }
    }
    int tried = 0;
    for (core::SwitchId leaf : leaves) {
      if (leaves.size() == 1 || ++tried > kMaxLeavesTried) {
        break;
      }
      std::vector<const PreemptCandidate*> order;
      std::vector<const PreemptCandidate*> inside;
      for (const PreemptCandidate* c : by_cost) {
        const bool in =
            std::any_of(c->nodes.begin(), c->nodes.end(),
                        [&](const core::NodeShare& sh) { return topo.leaf_of(sh.node) == leaf; });
        (in ? inside : order).push_back(c);
      }
      order.insert(order.end(), inside.begin(), inside.end());
      CapacityView fresh = released_view;
      std::optional<PreemptionPlan> p = Spare(fresh, order, request, now, policy, target);
      if (p.has_value() && (!chosen.has_value() || p->cost < chosen->cost)) {
        chosen = std::move(p);
      }
    }
  }
  return chosen;
}

}  // namespace canopy::plan
