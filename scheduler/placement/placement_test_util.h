// Test helpers for placement: topologies from topology.conf text and a fluent CapacityView
// builder over hostlists ("n[1-4]"). Test-only; not part of canopy_placement.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/slurm/hostlist.h"
#include "gtest/gtest.h"
#include "scheduler/placement/capacity_view.h"
#include "scheduler/placement/result.h"
#include "scheduler/topology/readers/topology_reader.h"
#include "scheduler/topology/topology_builder.h"

namespace canopy::placement::testing {

// The placement tests' "now" (allocations' start times).
inline const absl::Time kT0 = absl::FromUnixSeconds(1'700'000'000);

inline std::vector<std::string> Expand(absl::string_view hostlist) {
  absl::StatusOr<std::vector<std::string>> names = slurm::ExpandHostlist(std::string(hostlist));
  EXPECT_TRUE(names.ok()) << names.status();
  return names.ok() ? *names : std::vector<std::string>();
}

// A topology over the nodes of `nodes_hostlist`, from topology.conf text ("" = flat).
inline std::unique_ptr<topology::Topology> MakeTopology(absl::string_view nodes_hostlist,
                                                        std::string conf) {
  config::TopologySource source;
  source.kind = config::TopologySource::Kind::kSlurmTopologyConf;
  source.origin = "test.conf";
  source.text = std::move(conf);
  topology::TopologyBuilder builder(Expand(nodes_hostlist));
  absl::Status s = topology::MakeSlurmTopologyConfReader()->Read(source, builder);
  EXPECT_TRUE(s.ok()) << s;
  absl::StatusOr<topology::Topology> topo = std::move(builder).Build();
  EXPECT_TRUE(topo.ok()) << topo.status();
  return std::make_unique<topology::Topology>(topo.ok() ? *std::move(topo) : topology::Topology());
}

// Every node starts idle: `gpus` H100s, 64 CPUs, 512 GiB, in partition "gpu".
class ViewBuilder {
 public:
  explicit ViewBuilder(const topology::Topology& topo, int gpus = 8) : topo_(topo) {
    NodeCapacity n;
    n.gpu_type = 0;
    n.total_gpus = n.free_gpus = gpus;
    n.total_cpus = n.free_cpus = 64;
    n.total_mem_mib = n.free_mem_mib = 512 * 1024;
    n.partitions = 1;
    nodes_.assign(topo.node_count(), n);
  }

  // Whole nodes held by an exclusive job.
  ViewBuilder& Busy(absl::string_view hosts) {
    return Each(hosts, [](NodeCapacity& n) {
      n.jobs = 1;
      n.exclusive = true;
      n.free_gpus = 0;
      n.free_cpus = 0;
      n.free_mem_mib = 0;
    });
  }
  // One shared job using `gpus` GPUs and 8 CPUs.
  ViewBuilder& Use(absl::string_view hosts, int gpus) {
    return Each(hosts, [gpus](NodeCapacity& n) {
      n.jobs += 1;
      n.free_gpus -= gpus;
      n.free_cpus -= 8;
    });
  }
  ViewBuilder& Down(absl::string_view hosts) {
    return Each(hosts, [](NodeCapacity& n) { n.up = false; });
  }
  ViewBuilder& Drain(absl::string_view hosts) {
    return Each(hosts, [](NodeCapacity& n) { n.drained = true; });
  }
  ViewBuilder& Unhealthy(absl::string_view hosts) {
    return Each(hosts, [](NodeCapacity& n) { n.healthy = false; });
  }
  // Also puts the nodes in partition "debug" (index 1).
  ViewBuilder& Debug(absl::string_view hosts) {
    return Each(hosts, [](NodeCapacity& n) { n.partitions |= 2; });
  }
  ViewBuilder& GpuType(absl::string_view hosts, int type) {
    return Each(hosts, [type](NodeCapacity& n) { n.gpu_type = type; });
  }

  CapacityView Build() const {
    absl::StatusOr<CapacityView> view =
        CapacityView::Build(topo_, {"gpu", "debug"}, {"h100", "a100"}, nodes_);
    EXPECT_TRUE(view.ok()) << view.status();
    return *std::move(view);
  }

 private:
  template <typename F>
  ViewBuilder& Each(absl::string_view hosts, F f) {
    for (const std::string& name : Expand(hosts)) {
      core::NodeId id = topo_.FindNode(name);
      EXPECT_TRUE(id.valid()) << name;
      if (id.valid()) {
        f(nodes_[id.value()]);
      }
    }
    return *this;
  }

  const topology::Topology& topo_;
  std::vector<NodeCapacity> nodes_;
};

inline std::vector<core::NodeId> Ids(const topology::Topology& topo, absl::string_view hosts) {
  std::vector<core::NodeId> out;
  for (const std::string& name : Expand(hosts)) {
    out.push_back(topo.FindNode(name));
  }
  return out;
}

// The placed nodes as a compressed hostlist ("n[01-04]"), "" if not placed.
inline std::string Hosts(const topology::Topology& topo, const PlacementResult& result) {
  std::vector<std::string> names;
  for (const NodeAssignment& a : result.nodes) {
    names.push_back(topo.node_name(a.node));
  }
  return slurm::CompressHostlist(names);
}

// The leaf switches used, by name, comma-separated.
inline std::string Leaves(const topology::Topology& topo, const PlacementResult& result) {
  std::string out;
  for (core::SwitchId sw : result.explanation.leaf_switches) {
    absl::StrAppend(&out, out.empty() ? "" : ",", topo.switch_name(sw));
  }
  return out;
}

// Marks a placement's nodes used, as the state would after the job starts.
inline void Start(CapacityView& view, const PlacementResult& result, bool exclusive, int cpus = 1) {
  std::vector<NodeUse> uses;
  for (const NodeAssignment& a : result.nodes) {
    uses.push_back({a.node, a.gpus, cpus, 0});
  }
  absl::Status s = view.ApplyJob(uses, exclusive, /*start=*/true);
  EXPECT_TRUE(s.ok()) << s;
}

}  // namespace canopy::placement::testing
