// The shared placement walk: request resolution, eligible sets, unit counting and diagnosis.
#include "scheduler/placement/eligibility.h"

#include <algorithm>
#include <functional>

#include "absl/strings/str_cat.h"

namespace canopy::placement {

using core::NodeId;

namespace {

PlacementResult Infeasible(std::string detail) {
  PlacementResult result;
  result.outcome = Outcome::kInfeasible;
  result.reason = PendingReason::kBadConstraints;
  result.detail = std::move(detail);
  return result;
}

}  // namespace

std::optional<PlacementResult> ResolveRequest(const CapacityView& view,
                                              const PlacementRequest& request, absl::Time now,
                                              ResolvedRequest& out) {
  const topology::Topology& topo = view.topology();
  out = ResolvedRequest();
  out.request = &request;
  out.gpus = request.gpus_per_node;
  out.cpus = request.cpus_per_node;
  out.mem_mib = request.mem_per_node_mib;
  out.exclusive = request.exclusive;
  out.min_nodes = request.min_nodes;
  out.max_nodes = request.max_nodes_or_min();
  if (out.min_nodes < 1 || out.max_nodes < out.min_nodes) {
    return Infeasible(absl::StrCat("bad node count ", request.min_nodes, "-", request.max_nodes));
  }
  if (out.gpus < 0 || out.cpus < 0 || out.mem_mib < 0) {
    return Infeasible("negative per-node GPUs, CPUs or memory");
  }
  if (!request.partition.empty()) {
    std::optional<int> p = view.PartitionIndex(request.partition);
    if (!p) {
      return Infeasible(absl::StrCat("unknown partition '", request.partition, "'"));
    }
    out.any_partition = false;
    out.partition_mask = PartitionMask{1} << *p;
  }
  if (!request.gpu_type.empty() && out.gpus > 0) {
    std::optional<int> t = view.GpuTypeIndex(request.gpu_type);
    if (!t) {
      return Infeasible(absl::StrCat("no node has GPUs of type '", request.gpu_type, "'"));
    }
    out.gpu_type = *t;
  }
  const int n = topo.node_count();
  auto valid = [&](NodeId id) { return id.valid() && id.value() >= 0 && id.value() < n; };
  if (!request.excluded_nodes.empty()) {
    out.is_excluded.assign(n, 0);
    for (NodeId id : request.excluded_nodes) {
      if (!valid(id)) {
        return Infeasible(absl::StrCat("excluded node id ", id.value(), " unknown"));
      }
      out.is_excluded[id.value()] = 1;
    }
  }
  if (!request.required_nodes.empty()) {
    out.is_required.assign(n, 0);
    for (NodeId id : request.required_nodes) {
      if (!valid(id)) {
        return Infeasible(absl::StrCat("required node id ", id.value(), " unknown"));
      }
      if (!out.is_excluded.empty() && out.is_excluded[id.value()]) {
        return Infeasible(
            absl::StrCat("node ", topo.node_name(id), " is both required and excluded"));
      }
      if (!out.is_required[id.value()]) {
        out.required.push_back(id);
      }
      out.is_required[id.value()] = 1;
    }
    std::sort(out.required.begin(), out.required.end());
    if (static_cast<int32_t>(out.required.size()) > out.max_nodes) {
      return Infeasible(absl::StrCat(out.required.size(), " required nodes but at most ",
                                     out.max_nodes, " nodes requested"));
    }
    out.min_nodes = std::max<int32_t>(out.min_nodes, static_cast<int32_t>(out.required.size()));
  }
  out.max_switches = request.max_switches;
  if (request.max_switches > 0) {
    out.switch_deadline = request.switch_wait_start + request.max_switch_wait;
    out.switch_wait_over = now >= out.switch_deadline;
    out.switch_limit = !out.switch_wait_over;
  }
  return std::nullopt;
}

bool CannotHold(const DomainStats& s, const ResolvedRequest& r) {
  if (r.exclusive) {
    return s.idle == 0;
  }
  if (r.gpus > 0) {
    return s.max_open_free_gpus < r.gpus;
  }
  return s.open == 0;
}

void CollectEligible(const CapacityView& view, const ResolvedRequest& r, bool prune,
                     EligibleSet& out) {
  const DomainTree& tree = view.domains();
  const int n_domains = tree.size();
  out.nodes.clear();
  out.begin.assign(n_domains, 0);
  out.end.assign(n_domains, 0);
  out.required.assign(n_domains, 0);
  out.rejected.fill(0);
  out.rejects_complete = !prune;
  absl::Span<const NodeCapacity> nodes = view.nodes();
  // Groups in pre-order, so every domain's eligible nodes end up contiguous.
  for (int d = 0; d < n_domains; ++d) {
    const Domain& dom = tree.domain(d);
    if (dom.level != 0) {
      continue;
    }
    out.begin[d] = static_cast<int32_t>(out.nodes.size());
    if (!(prune && CannotHold(view.stats(d), r))) {
      for (NodeId id : tree.nodes(d)) {
        if (std::optional<RejectCause> why = Reject(nodes[id.value()], id, r)) {
          ++out.rejected[static_cast<int>(*why)];
          continue;
        }
        out.nodes.push_back(id);
        if (r.required_node(id)) {
          ++out.required[d];
        }
      }
    }
    out.end[d] = static_cast<int32_t>(out.nodes.size());
  }
  // Inner domains: slices span their first to last group; required counts add up.
  for (int d = n_domains - 1; d >= 0; --d) {
    const Domain& dom = tree.domain(d);
    if (dom.level == 0) {
      continue;
    }
    int32_t b = INT32_MAX, e = 0;
    for (int c : tree.children(d)) {
      b = std::min(b, out.begin[c]);
      e = std::max(e, out.end[c]);
      out.required[d] += out.required[c];
    }
    out.begin[d] = b == INT32_MAX ? 0 : b;
    out.end[d] = e;
  }
}

int32_t MinUnits(const DomainTree& tree, const EligibleSet& es, int d, int32_t need,
                 std::vector<int32_t>& scratch) {
  if (es.count(d) < need) {
    return -1;
  }
  if (tree.domain(d).unit >= 0) {
    return 1;  // inside a single unit
  }
  int32_t units = 0;
  int32_t have = 0;
  scratch.clear();
  for (int u : tree.units_of(d)) {
    if (es.required[u] > 0) {
      ++units;
      have += es.count(u);
    } else if (es.count(u) > 0) {
      scratch.push_back(es.count(u));
    }
  }
  if (have >= need) {
    return std::max<int32_t>(units, 1);
  }
  std::sort(scratch.begin(), scratch.end(), std::greater<>());
  for (int32_t c : scratch) {
    have += c;
    ++units;
    if (have >= need) {
      return units;
    }
  }
  return -1;
}

int32_t MostNodesInUnits(const DomainTree& tree, const EligibleSet& es, int d, int32_t k,
                         std::vector<int32_t>& scratch) {
  if (tree.domain(d).unit >= 0) {
    return k >= 1 ? es.count(d) : 0;
  }
  int32_t forced = 0;
  int32_t have = 0;
  scratch.clear();
  for (int u : tree.units_of(d)) {
    if (es.required[u] > 0) {
      ++forced;
      have += es.count(u);
    } else if (es.count(u) > 0) {
      scratch.push_back(es.count(u));
    }
  }
  if (forced > k) {
    return -1;
  }
  std::sort(scratch.begin(), scratch.end(), std::greater<>());
  for (size_t i = 0; i < scratch.size() && forced + static_cast<int32_t>(i) < k; ++i) {
    have += scratch[i];
  }
  return have;
}

void FillPlaced(const CapacityView& view, const ResolvedRequest& r, std::vector<NodeId> nodes,
                PlacementResult& result) {
  const topology::Topology& topo = view.topology();
  const DomainTree& tree = view.domains();
  std::sort(nodes.begin(), nodes.end());
  result.outcome = Outcome::kPlaced;
  result.reason = PendingReason::kNone;
  result.detail.clear();
  result.nodes.clear();
  Explanation& ex = result.explanation;
  ex.leaf_switches.clear();
  ex.blocks.clear();
  std::vector<int> units;
  for (NodeId n : nodes) {
    result.nodes.push_back({n, r.gpus});
    if (topo.has_switches() && topo.leaf_of(n).valid()) {
      ex.leaf_switches.push_back(topo.leaf_of(n));
    }
    if (topo.has_blocks() && topo.block_of(n).valid()) {
      ex.blocks.push_back(topo.block_of(n));
    }
    units.push_back(tree.domain(tree.group_of(n)).unit);
  }
  auto unique_sorted = [](auto& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  };
  unique_sorted(ex.leaf_switches);
  unique_sorted(ex.blocks);
  unique_sorted(units);
  ex.units_used = static_cast<int32_t>(units.size());
}

void DiagnoseNoPlacement(const CapacityView& view, const ResolvedRequest& r, bool topology_aware,
                         PlacementResult& result) {
  const topology::Topology& topo = view.topology();
  const DomainTree& tree = view.domains();
  EligibleSet es;
  CollectEligible(view, r, /*prune=*/false, es);
  result.nodes.clear();
  result.explanation.rejected = es.rejected;
  result.explanation.eligible_nodes = static_cast<int32_t>(es.nodes.size());

  // Required nodes first: they name the precise problem.
  for (NodeId id : r.required) {
    std::optional<RejectCause> why = Reject(view.node(id), id, r);
    if (!why) {
      continue;
    }
    const std::string what =
        absl::StrCat("required node ", topo.node_name(id), " is ", RejectCauseName(*why));
    if (IsStatic(*why)) {
      result.outcome = Outcome::kInfeasible;
      result.reason = PendingReason::kBadConstraints;
    } else if (*why == RejectCause::kDown || *why == RejectCause::kUnhealthy ||
               *why == RejectCause::kDrained) {
      result.outcome = Outcome::kWait;
      result.reason = PendingReason::kReqNodeNotAvail;
    } else {
      result.outcome = Outcome::kWait;
      result.reason = PendingReason::kResources;
    }
    result.detail = what;
    return;
  }

  // Static capacity per root: could the job ever fit one fabric (everything up and free)?
  int32_t best_static = 0, total_static = 0, best_now = 0;
  int32_t roots_with_required = 0;
  for (int root : tree.roots()) {
    int32_t fit = 0;
    for (NodeId id : tree.nodes(root)) {
      if (!StaticReject(view.node(id), id, r)) {
        ++fit;
      }
    }
    total_static += fit;
    if (es.required[root] > 0) {
      ++roots_with_required;
    }
    if (HoldsRequired(es, r, root)) {
      best_static = std::max(best_static, fit);
      best_now = std::max(best_now, es.count(root));
    }
  }
  if (!topology_aware) {
    // One fabric: the whole cluster.
    best_static = total_static;
    best_now = static_cast<int32_t>(es.nodes.size());
    roots_with_required = std::min(roots_with_required, 1);
  }
  if (roots_with_required > 1) {
    result.outcome = Outcome::kInfeasible;
    result.reason = PendingReason::kBadConstraints;
    result.detail = "the required nodes are in disconnected parts of the network";
    return;
  }
  if (best_static < r.min_nodes) {
    result.outcome = Outcome::kInfeasible;
    result.reason = PendingReason::kBadConstraints;
    result.detail = absl::StrCat("needs ", r.min_nodes, " nodes; at most ", best_static,
                                 " matching nodes are connected under one switch (", total_static,
                                 " match in the cluster)");
    return;
  }
  result.outcome = Outcome::kWait;
  result.reason = PendingReason::kResources;
  result.detail = absl::StrCat("needs ", r.min_nodes, " nodes; at most ", best_now,
                               " are eligible under one switch now (", es.nodes.size(),
                               " eligible in the cluster)");
}

int32_t TargetNodeCount(const DomainTree& tree, const EligibleSet& es, const ResolvedRequest& r) {
  if (r.max_nodes == r.min_nodes) {
    return r.min_nodes;
  }
  int32_t best = 0;
  for (int root : tree.roots()) {
    if (HoldsRequired(es, r, root)) {
      best = std::max(best, es.count(root));
    }
  }
  return std::max(r.min_nodes, std::min(r.max_nodes, best));
}

void DescribeDomain(const DomainTree& tree, int d, Explanation& ex) {
  const Domain& dom = tree.domain(d);
  ex.domain = tree.Name(d);
  ex.domain_level = dom.level;
  if (dom.kind == DomainKind::kSwitch) {
    ex.switch_id = core::SwitchId(dom.ref);
    ex.switch_level = tree.topology().level(ex.switch_id);
  } else {
    ex.switch_id = core::SwitchId();
    ex.switch_level = -1;
  }
}

}  // namespace canopy::placement
