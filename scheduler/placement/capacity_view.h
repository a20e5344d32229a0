// CapacityView: what placement may know about each node right now, plus per-domain aggregates.
//
// The state layer (or a test, or the simulator) fills one NodeCapacity per node; placement only
// reads the view. Aggregates per domain of the DomainTree (usable / idle / partly used node counts
// and a histogram of free GPUs) let policies skip whole leaves without touching their nodes. They
// are kept exact under incremental updates: UpdateNode and ApplyJob touch only the changed nodes
// and their ancestors (O(depth × max GPUs per node) each). Rebuild recomputes everything in
// O(nodes + domains × max GPUs per node).
//
// The view refers to the Topology it was built for, which must outlive it. Copies share the
// immutable DomainTree. Not thread-safe for writes; concurrent const use is safe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "scheduler/core/ids.h"
#include "scheduler/placement/domain_tree.h"
#include "scheduler/topology/topology.h"

namespace canopy::placement {

// Bit i set = member of partition i of CapacityView::partitions(). Hence at most 64 partitions.
using PartitionMask = uint64_t;
inline constexpr int kMaxPartitions = 64;

// One node as placement sees it. Plain value; the state layer derives it from its records.
struct NodeCapacity {
  bool up = true;          // responding and not DOWN
  bool healthy = true;     // no failed health check / GPU fault that blocks new work
  bool drained = false;    // DRAIN / DRAINING: no new work
  int32_t jobs = 0;        // jobs holding resources here ("has any allocation" = jobs > 0)
  bool exclusive = false;  // held whole by an exclusive job: nothing else may start here
  int32_t gpu_type = -1;   // index into CapacityView::gpu_types(); -1 = no typed GPUs
  int32_t total_gpus = 0;
  int32_t free_gpus = 0;
  int32_t total_cpus = 0;
  int32_t free_cpus = 0;
  int64_t total_mem_mib = 0;
  int64_t free_mem_mib = 0;
  PartitionMask partitions = 0;

  bool usable() const { return up && healthy && !drained; }
  // Usable and open to more work.
  bool open() const { return usable() && !exclusive; }
  bool idle() const { return usable() && jobs == 0; }
  bool partly_used() const { return open() && jobs > 0; }
};

// Per-domain aggregates over the domain's nodes.
struct DomainStats {
  int32_t nodes = 0;
  int32_t usable = 0;
  int32_t idle = 0;
  int32_t partly_used = 0;
  int32_t open = 0;
  int64_t open_free_gpus = 0;         // sum of free GPUs on open nodes
  int32_t max_open_free_gpus = 0;     // most free GPUs on one open node
  int32_t max_partly_free_gpus = -1;  // most free GPUs on one partly used node; -1 if none
};

// What one job holds on one node; ApplyJob adds or removes a set of these.
struct NodeUse {
  core::NodeId node;
  int32_t gpus = 0;
  int32_t cpus = 0;
  int64_t mem_mib = 0;
};

class CapacityView {
 public:
  // Builds the view. `partitions` and `gpu_types` are the name tables NodeCapacity::partitions
  // and ::gpu_type index into. InvalidArgument if nodes.size() != topology.node_count(), more than
  // kMaxPartitions partitions, a gpu_type index out of range, or negative/over-total counts.
  static absl::StatusOr<CapacityView> Build(const topology::Topology& topology,
                                            std::vector<std::string> partitions,
                                            std::vector<std::string> gpu_types,
                                            std::vector<NodeCapacity> nodes);

  // Replaces every node and recomputes all aggregates, keeping the name tables and the domain
  // tree (the "full rebuild"; what a snapshot refresh costs). Same errors as Build.
  absl::Status Rebuild(std::vector<NodeCapacity> nodes);

  // Replaces one node; O(depth × max GPUs per node). InvalidArgument for a bad id or values.
  absl::Status UpdateNode(core::NodeId node, const NodeCapacity& capacity);

  // A job starts (`start` = true) or ends on `uses`: free GPUs/CPUs/memory and the job count of
  // each node move by the given amounts; `exclusive` marks/unmarks the nodes as held whole.
  // All-or-nothing: FailedPrecondition (nothing changed) if a node would go below zero or above
  // its totals. Touches only those nodes and their ancestors.
  absl::Status ApplyJob(absl::Span<const NodeUse> uses, bool exclusive, bool start);

  const topology::Topology& topology() const { return domains_->topology(); }
  const DomainTree& domains() const { return *domains_; }
  int node_count() const { return static_cast<int>(nodes_.size()); }
  const NodeCapacity& node(core::NodeId node) const { return nodes_[node.value()]; }
  absl::Span<const NodeCapacity> nodes() const { return nodes_; }
  const DomainStats& stats(int domain) const { return stats_[domain]; }

  absl::Span<const std::string> partitions() const { return partitions_; }
  absl::Span<const std::string> gpu_types() const { return gpu_types_; }
  // Index of a partition / GPU type name, or nullopt. O(count).
  std::optional<int> PartitionIndex(absl::string_view name) const;
  std::optional<int> GpuTypeIndex(absl::string_view name) const;

 private:
  CapacityView() = default;
  absl::Status Validate(core::NodeId id, const NodeCapacity& n) const;
  void RecomputeAll();
  // Adds (sign = +1) or removes (-1) one node's contribution along its path to the root.
  void Contribute(core::NodeId node, const NodeCapacity& n, int sign);
  void RefreshMaxima(int domain);
  int32_t* Hist(std::vector<int32_t>& h, int domain) { return &h[domain * hist_width_]; }

  std::shared_ptr<const DomainTree> domains_;
  std::vector<std::string> partitions_;
  std::vector<std::string> gpu_types_;
  std::vector<NodeCapacity> nodes_;
  std::vector<DomainStats> stats_;
  int hist_width_ = 1;                // max GPUs on any node + 1
  std::vector<int32_t> open_hist_;    // per domain: open nodes by free GPUs
  std::vector<int32_t> partly_hist_;  // per domain: partly used nodes by free GPUs
};

}  // namespace canopy::placement
