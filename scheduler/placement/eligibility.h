// The placement framework's shared walk: request resolution, the per-node filter, eligible nodes
// per domain, unit counting, and the diagnosis of a job that cannot start.
//
// Policies (canopy, first_fit, slurm_tree) differ only in how they choose among eligible nodes;
// everything that decides *whether* a node may take the job lives here, so all policies agree
// on eligibility and on the reasons they report (STYLE.md §4: walk in the framework, judgement in
// the policies). Pure functions; thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "absl/types/span.h"
#include "scheduler/placement/capacity_view.h"
#include "scheduler/placement/request.h"
#include "scheduler/placement/result.h"

namespace canopy::placement {

// A request with names resolved against the view and node lists turned into flags.
struct ResolvedRequest {
  const PlacementRequest* request = nullptr;
  bool any_partition = true;
  PartitionMask partition_mask = 0;
  int32_t gpu_type = -1;  // -1 = any
  int32_t gpus = 0;       // per node
  int32_t cpus = 0;
  int64_t mem_mib = 0;
  bool exclusive = false;
  int32_t min_nodes = 1;
  int32_t max_nodes = 1;
  std::vector<core::NodeId> required;  // ascending, unique
  std::vector<uint8_t> is_required;    // per NodeId; empty when no node is required
  std::vector<uint8_t> is_excluded;    // per NodeId; empty when no node is excluded
  // --switches: `switch_limit` is true while K applies (K > 0 and the wait has not run out).
  int32_t max_switches = 0;
  bool switch_limit = false;
  bool switch_wait_over = false;
  absl::Time switch_deadline = absl::InfiniteFuture();

  bool required_node(core::NodeId n) const {
    return !is_required.empty() && is_required[n.value()] != 0;
  }
};

// Resolves `request`. Returns a kInfeasible result (kBadConstraints) when it can never be met as
// written: bad counts, unknown partition or GPU type, an unknown, excluded or surplus required
// node. Otherwise nullopt, with `out` filled.
std::optional<PlacementResult> ResolveRequest(const CapacityView& view,
                                              const PlacementRequest& request, absl::Time now,
                                              ResolvedRequest& out);

// The static part of the filter: what no state change can fix (partition, -x, GPU type, totals).
inline std::optional<RejectCause> StaticReject(const NodeCapacity& n, core::NodeId id,
                                               const ResolvedRequest& r) {
  if (!r.any_partition && (n.partitions & r.partition_mask) == 0) {
    return RejectCause::kNotInPartition;
  }
  if (!r.is_excluded.empty() && r.is_excluded[id.value()]) {
    return RejectCause::kExcluded;
  }
  if (r.gpus > 0) {
    if (r.gpu_type >= 0 && n.gpu_type != r.gpu_type) {
      return RejectCause::kGpuType;
    }
    if (n.total_gpus < r.gpus) {
      return RejectCause::kTooFewGpus;
    }
  }
  if (n.total_cpus < r.cpus) {
    return RejectCause::kTooFewCpus;
  }
  if (n.total_mem_mib < r.mem_mib) {
    return RejectCause::kTooLittleMemory;
  }
  return std::nullopt;
}

// The whole filter: may this node take one node's share of the job now? O(1).
inline std::optional<RejectCause> Reject(const NodeCapacity& n, core::NodeId id,
                                         const ResolvedRequest& r) {
  if (!n.up) {
    return RejectCause::kDown;
  }
  if (!n.healthy) {
    return RejectCause::kUnhealthy;
  }
  if (n.drained) {
    return RejectCause::kDrained;
  }
  if (std::optional<RejectCause> s = StaticReject(n, id, r)) {
    return s;
  }
  if (n.exclusive) {
    return RejectCause::kHeldExclusive;
  }
  if (r.exclusive && n.jobs > 0) {
    return RejectCause::kNotIdle;
  }
  if (n.free_gpus < r.gpus) {
    return RejectCause::kGpusBusy;
  }
  if (n.free_cpus < r.cpus) {
    return RejectCause::kCpusBusy;
  }
  if (n.free_mem_mib < r.mem_mib) {
    return RejectCause::kMemoryBusy;
  }
  return std::nullopt;
}

// True if the domain's aggregates prove that no node in it can take the job (so its nodes need
// not be looked at). Never true for a domain holding an eligible node.
bool CannotHold(const DomainStats& s, const ResolvedRequest& r);

// Eligible nodes of one request, per domain.
struct EligibleSet {
  std::vector<core::NodeId> nodes;  // in DomainTree::node_order() order
  std::vector<int32_t> begin;       // per domain: its eligible nodes are nodes[begin, end)
  std::vector<int32_t> end;
  std::vector<int32_t> required;  // per domain: required nodes inside (all eligible)
  std::array<int32_t, kRejectCauseCount> rejected{};
  bool rejects_complete = false;  // false if aggregates let some groups be skipped

  int32_t count(int d) const { return end[d] - begin[d]; }
  absl::Span<const core::NodeId> of(int d) const {
    return absl::MakeConstSpan(nodes).subspan(begin[d], end[d] - begin[d]);
  }
};

// Fills `out` (reusing its buffers). With `prune`, level-0 domains that CannotHold the job are
// skipped without visiting their nodes. O(visited nodes + domains).
void CollectEligible(const CapacityView& view, const ResolvedRequest& r, bool prune,
                     EligibleSet& out);

// Fewest units under domain `d` whose eligible nodes number at least `need`, counting every unit
// holding a required node; -1 if even all of them are too few. `scratch` is reused.
// O(units under d × log).
int32_t MinUnits(const DomainTree& tree, const EligibleSet& es, int d, int32_t need,
                 std::vector<int32_t>& scratch);

// Most eligible nodes that `k` units under `d` can give (units with required nodes first);
// -1 if the required nodes alone need more than k units.
int32_t MostNodesInUnits(const DomainTree& tree, const EligibleSet& es, int d, int32_t k,
                         std::vector<int32_t>& scratch);

// True if domain `d` holds every required node.
inline bool HoldsRequired(const EligibleSet& es, const ResolvedRequest& r, int d) {
  return es.required[d] == static_cast<int32_t>(r.required.size());
}

// Fills a kPlaced result from the chosen nodes: assignments in NodeId order, and the leaf
// switches, blocks and units they use.
void FillPlaced(const CapacityView& view, const ResolvedRequest& r, std::vector<core::NodeId> nodes,
                PlacementResult& result);

// Explains why no placement was found: required nodes (ReqNodeNotAvail / Resources /
// BadConstraints), a job larger than any fabric can ever hold (kInfeasible, BadConstraints), or
// busy resources (kWait, Resources). `topology_aware` = false treats the whole cluster as one
// fabric (for topology-blind policies). Re-scans the view without pruning so the reject counts
// are complete. O(nodes).
void DiagnoseNoPlacement(const CapacityView& view, const ResolvedRequest& r, bool topology_aware,
                         PlacementResult& result);

// The node count to place: the most in [min_nodes, max_nodes] that one root domain holding every
// required node can give now (min_nodes if none can).
int32_t TargetNodeCount(const DomainTree& tree, const EligibleSet& es, const ResolvedRequest& r);

// Fills the explanation's domain fields (name, switch and level) for domain `d`.
void DescribeDomain(const DomainTree& tree, int d, Explanation& ex);

// Tie-break key for domains of one level: kind, then the switch/block/node id ("lowest id").
inline std::pair<int, int32_t> TieKey(const DomainTree& tree, int d) {
  return {static_cast<int>(tree.domain(d).kind), tree.domain(d).ref};
}

}  // namespace canopy::placement
