// CapacityView: node capacities and exact per-domain aggregates, rebuilt or updated in place.
#include "scheduler/placement/capacity_view.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"

namespace canopy::placement {

using core::NodeId;

absl::StatusOr<CapacityView> CapacityView::Build(const topology::Topology& topology,
                                                 std::vector<std::string> partitions,
                                                 std::vector<std::string> gpu_types,
                                                 std::vector<NodeCapacity> nodes) {
  if (partitions.size() > static_cast<size_t>(kMaxPartitions)) {
    return absl::InvalidArgumentError(absl::StrCat("capacity view: ", partitions.size(),
                                                   " partitions; at most ", kMaxPartitions,
                                                   " are supported"));
  }
  CapacityView view;
  view.domains_ = std::make_shared<const DomainTree>(topology);
  view.partitions_ = std::move(partitions);
  view.gpu_types_ = std::move(gpu_types);
  if (absl::Status s = view.Rebuild(std::move(nodes)); !s.ok()) {
    return s;
  }
  return view;
}

absl::Status CapacityView::Validate(NodeId id, const NodeCapacity& n) const {
  auto bad = [&](absl::string_view what) {
    return absl::InvalidArgumentError(
        absl::StrCat("capacity view: node ", topology().node_name(id), ": ", what));
  };
  if (n.gpu_type < -1 || n.gpu_type >= static_cast<int>(gpu_types_.size())) {
    return bad(absl::StrCat("gpu_type index ", n.gpu_type, " out of range"));
  }
  if (n.total_gpus < 0 || n.free_gpus < 0 || n.free_gpus > n.total_gpus) {
    return bad(absl::StrCat("free GPUs ", n.free_gpus, " not within 0..", n.total_gpus));
  }
  if (n.total_cpus < 0 || n.free_cpus < 0 || n.free_cpus > n.total_cpus) {
    return bad(absl::StrCat("free CPUs ", n.free_cpus, " not within 0..", n.total_cpus));
  }
  if (n.total_mem_mib < 0 || n.free_mem_mib < 0 || n.free_mem_mib > n.total_mem_mib) {
    return bad(absl::StrCat("free memory ", n.free_mem_mib, " not within 0..", n.total_mem_mib));
  }
  if (n.jobs < 0) {
    return bad("negative job count");
  }
  if (partitions_.size() < static_cast<size_t>(kMaxPartitions) &&
      (n.partitions >> partitions_.size()) != 0) {
    return bad("member of a partition index beyond the partition table");
  }
  return absl::OkStatus();
}

absl::Status CapacityView::Rebuild(std::vector<NodeCapacity> nodes) {
  if (static_cast<int>(nodes.size()) != topology().node_count()) {
    return absl::InvalidArgumentError(absl::StrCat("capacity view: ", nodes.size(),
                                                   " nodes given for a topology of ",
                                                   topology().node_count()));
  }
  int max_gpus = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (absl::Status s = Validate(NodeId(static_cast<int32_t>(i)), nodes[i]); !s.ok()) {
      return s;
    }
    max_gpus = std::max(max_gpus, nodes[i].total_gpus);
  }
  nodes_ = std::move(nodes);
  hist_width_ = max_gpus + 1;
  RecomputeAll();
  return absl::OkStatus();
}

void CapacityView::RecomputeAll() {
  const DomainTree& tree = *domains_;
  const int n_domains = tree.size();
  stats_.assign(n_domains, DomainStats());
  open_hist_.assign(static_cast<size_t>(n_domains) * hist_width_, 0);
  partly_hist_.assign(static_cast<size_t>(n_domains) * hist_width_, 0);
  // Nodes into their groups, then groups into ancestors (reverse pre-order = children first).
  for (int d : tree.at_level(0)) {
    DomainStats& s = stats_[d];
    int32_t* open_h = Hist(open_hist_, d);
    int32_t* partly_h = Hist(partly_hist_, d);
    for (NodeId id : tree.nodes(d)) {
      const NodeCapacity& n = nodes_[id.value()];
      ++s.nodes;
      if (!n.usable()) {
        continue;
      }
      ++s.usable;
      if (n.jobs == 0) {
        ++s.idle;
      }
      if (!n.open()) {
        continue;
      }
      ++s.open;
      s.open_free_gpus += n.free_gpus;
      ++open_h[n.free_gpus];
      if (n.jobs > 0) {
        ++s.partly_used;
        ++partly_h[n.free_gpus];
      }
    }
  }
  for (int d = n_domains - 1; d >= 0; --d) {
    RefreshMaxima(d);
    const int p = tree.domain(d).parent;
    if (p < 0) {
      continue;
    }
    DomainStats& ps = stats_[p];
    const DomainStats& s = stats_[d];
    ps.nodes += s.nodes;
    ps.usable += s.usable;
    ps.idle += s.idle;
    ps.partly_used += s.partly_used;
    ps.open += s.open;
    ps.open_free_gpus += s.open_free_gpus;
    int32_t* po = Hist(open_hist_, p);
    int32_t* pp = Hist(partly_hist_, p);
    const int32_t* co = Hist(open_hist_, d);
    const int32_t* cp = Hist(partly_hist_, d);
    for (int g = 0; g < hist_width_; ++g) {
      po[g] += co[g];
      pp[g] += cp[g];
    }
  }
}

void CapacityView::RefreshMaxima(int d) {
  DomainStats& s = stats_[d];
  const int32_t* open_h = Hist(open_hist_, d);
  const int32_t* partly_h = Hist(partly_hist_, d);
  s.max_open_free_gpus = 0;
  s.max_partly_free_gpus = -1;
  for (int g = hist_width_ - 1; g >= 0; --g) {
    if (open_h[g] > 0) {
      s.max_open_free_gpus = g;
      break;
    }
  }
  for (int g = hist_width_ - 1; g >= 0; --g) {
    if (partly_h[g] > 0) {
      s.max_partly_free_gpus = g;
      break;
    }
  }
}

void CapacityView::Contribute(NodeId id, const NodeCapacity& n, int sign) {
  const DomainTree& tree = *domains_;
  for (int d = tree.group_of(id); d >= 0; d = tree.domain(d).parent) {
    DomainStats& s = stats_[d];
    s.nodes += sign;
    if (!n.usable()) {
      continue;
    }
    s.usable += sign;
    if (n.jobs == 0) {
      s.idle += sign;
    }
    if (!n.open()) {
      continue;
    }
    s.open += sign;
    s.open_free_gpus += sign * n.free_gpus;
    Hist(open_hist_, d)[n.free_gpus] += sign;
    if (n.jobs > 0) {
      s.partly_used += sign;
      Hist(partly_hist_, d)[n.free_gpus] += sign;
    }
  }
}

absl::Status CapacityView::UpdateNode(NodeId id, const NodeCapacity& capacity) {
  if (!id.valid() || id.value() >= node_count()) {
    return absl::InvalidArgumentError(absl::StrCat("capacity view: no node with id ", id.value()));
  }
  if (absl::Status s = Validate(id, capacity); !s.ok()) {
    return s;
  }
  if (capacity.total_gpus >= hist_width_) {
    // A node grew beyond every histogram bucket (new hardware): re-lay out everything once.
    nodes_[id.value()] = capacity;
    hist_width_ = capacity.total_gpus + 1;
    RecomputeAll();
    return absl::OkStatus();
  }
  Contribute(id, nodes_[id.value()], -1);
  nodes_[id.value()] = capacity;
  Contribute(id, capacity, +1);
  for (int d = domains_->group_of(id); d >= 0; d = domains_->domain(d).parent) {
    RefreshMaxima(d);
  }
  return absl::OkStatus();
}

absl::Status CapacityView::ApplyJob(absl::Span<const NodeUse> uses, bool exclusive, bool start) {
  const int sign = start ? -1 : +1;  // starting a job consumes free resources
  std::vector<NodeCapacity> updated;
  updated.reserve(uses.size());
  for (const NodeUse& u : uses) {
    if (!u.node.valid() || u.node.value() >= node_count()) {
      return absl::InvalidArgumentError(
          absl::StrCat("capacity view: no node with id ", u.node.value()));
    }
    NodeCapacity n = nodes_[u.node.value()];
    n.free_gpus += sign * u.gpus;
    n.free_cpus += sign * u.cpus;
    n.free_mem_mib += sign * u.mem_mib;
    n.jobs -= sign;
    if (exclusive) {
      n.exclusive = start;
    }
    if (n.free_gpus < 0 || n.free_gpus > n.total_gpus || n.free_cpus < 0 ||
        n.free_cpus > n.total_cpus || n.free_mem_mib < 0 || n.free_mem_mib > n.total_mem_mib ||
        n.jobs < 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("capacity view: job ", start ? "start" : "end", " does not fit node ",
                       topology().node_name(u.node), " (free GPUs ", n.free_gpus, "/", n.total_gpus,
                       ", CPUs ", n.free_cpus, "/", n.total_cpus, ", jobs ", n.jobs, ")"));
    }
    updated.push_back(n);
  }
  for (size_t i = 0; i < uses.size(); ++i) {
    if (absl::Status s = UpdateNode(uses[i].node, updated[i]); !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

std::optional<int> CapacityView::PartitionIndex(absl::string_view name) const {
  for (size_t i = 0; i < partitions_.size(); ++i) {
    if (partitions_[i] == name) {
      return static_cast<int>(i);
    }
  }
  return std::nullopt;
}

std::optional<int> CapacityView::GpuTypeIndex(absl::string_view name) const {
  for (size_t i = 0; i < gpu_types_.size(); ++i) {
    if (gpu_types_[i] == name) {
      return static_cast<int>(i);
    }
  }
  return std::nullopt;
}

}  // namespace canopy::placement
