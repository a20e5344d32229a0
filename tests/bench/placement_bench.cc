// Placement at target scale: a 3-level fat tree of 16,384 nodes x 8 GPUs (512 leaves of 32
// nodes, 32 spines of 16 leaves, one core) with about half the nodes busy in a fragmented
// pattern. Targets (issue: topology + placement): a 128-node gang < 1 ms median, a 1-GPU job
// < 50 us, a full rebuild of the capacity view < 5 ms, on one core. Results: docs/performance.md.
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "benchmark/benchmark.h"
#include "scheduler/placement/capacity_view.h"
#include "scheduler/placement/registry.h"
#include "scheduler/topology/topology_builder.h"
#include "tests/bench/bench_cluster.h"

namespace canopy::placement {
namespace {

constexpr int kNodes = 16384;
constexpr int kLeafSize = 32;
constexpr int kLeavesPerSpine = 16;
const absl::Time kNow = absl::FromUnixSeconds(1'700'000'000);

// The 3-level fat tree of the issue: 16,384 nodes, leaves of 32, spines of 16 leaves.
std::unique_ptr<topology::Topology> FatTree() {
  return bench::FatTreeCluster(kNodes, kLeafSize, kLeavesPerSpine).topo;
}

// About half the nodes busy: every leaf gets between 8 and 24 whole-node (exclusive) jobs at
// random positions, and one free node in 16 carries a small shared job. Fixed seed.
std::vector<NodeCapacity> FragmentedNodes(const topology::Topology& topo) {
  std::mt19937 rng(42);
  NodeCapacity idle;
  idle.gpu_type = 0;
  idle.total_gpus = idle.free_gpus = 8;
  idle.total_cpus = idle.free_cpus = 128;
  idle.total_mem_mib = idle.free_mem_mib = 2 * 1024 * 1024;
  idle.partitions = 1;
  std::vector<NodeCapacity> nodes(topo.node_count(), idle);
  for (topology::SwitchId leaf : topo.leaves()) {
    std::vector<core::NodeId> members(topo.leaf_nodes(leaf).begin(), topo.leaf_nodes(leaf).end());
    std::shuffle(members.begin(), members.end(), rng);
    const int busy = 8 + static_cast<int>(rng() % 17);
    for (int i = 0; i < static_cast<int>(members.size()); ++i) {
      NodeCapacity& n = nodes[members[i].value()];
      if (i < busy) {
        n.jobs = 1;
        n.exclusive = true;
        n.free_gpus = n.free_cpus = 0;
        n.free_mem_mib = 0;
      } else if (rng() % 16 == 0) {
        const int used = 1 + static_cast<int>(rng() % 7);
        n.jobs = 1;
        n.free_gpus -= used;
        n.free_cpus -= 8 * used;
      }
    }
  }
  return nodes;
}

struct Fixture {
  Fixture() : topo(FatTree()), nodes(FragmentedNodes(*topo)) {
    absl::StatusOr<CapacityView> v = CapacityView::Build(*topo, {"gpu"}, {"h100"}, nodes);
    if (!v.ok()) {
      std::abort();
    }
    view = std::make_unique<CapacityView>(*std::move(v));
  }
  std::unique_ptr<topology::Topology> topo;
  std::vector<NodeCapacity> nodes;
  std::unique_ptr<CapacityView> view;
};

Fixture& Shared() {
  static Fixture* fixture = new Fixture();
  return *fixture;
}

PlacementRequest Gang(int nodes) {
  PlacementRequest r;
  r.min_nodes = nodes;
  r.gpus_per_node = 8;
  r.exclusive = true;
  r.partition = "gpu";
  return r;
}

void PlaceLoop(benchmark::State& state, absl::string_view policy_name,
               const PlacementRequest& req) {
  Fixture& f = Shared();
  auto policy = MakePlacementPolicy(policy_name);
  if (!policy.ok()) {
    std::abort();
  }
  int placed = 0;
  int units = 0;
  for (auto _ : state) {
    PlacementResult r = (*policy)->Place(*f.view, req, kNow);
    placed += r.placed() ? 1 : 0;
    units = r.explanation.units_used;
    benchmark::DoNotOptimize(r);
  }
  state.counters["placed"] = benchmark::Counter(placed, benchmark::Counter::kAvgIterations);
  state.counters["leaves"] = units;
}

void BM_CanopyGang(benchmark::State& state) {
  PlaceLoop(state, "placement/canopy", Gang(static_cast<int>(state.range(0))));
}
BENCHMARK(BM_CanopyGang)->Arg(128)->Arg(8)->Arg(1024)->Unit(benchmark::kMicrosecond);

void BM_CanopyOneGpu(benchmark::State& state) {
  PlacementRequest r;
  r.gpus_per_node = 1;
  r.cpus_per_node = 8;
  r.partition = "gpu";
  PlaceLoop(state, "placement/canopy", r);
}
BENCHMARK(BM_CanopyOneGpu)->Unit(benchmark::kMicrosecond);

void BM_SlurmTreeGang(benchmark::State& state) {
  PlaceLoop(state, "placement/slurm_tree", Gang(static_cast<int>(state.range(0))));
}
BENCHMARK(BM_SlurmTreeGang)->Arg(128)->Unit(benchmark::kMicrosecond);

void BM_FirstFitGang(benchmark::State& state) {
  PlaceLoop(state, "placement/first_fit", Gang(static_cast<int>(state.range(0))));
}
BENCHMARK(BM_FirstFitGang)->Arg(128)->Unit(benchmark::kMicrosecond);

// The full rebuild: every node's capacity replaced and all aggregates recomputed.
void BM_RebuildCapacityView(benchmark::State& state) {
  Fixture& f = Shared();
  CapacityView view = *f.view;
  for (auto _ : state) {
    std::vector<NodeCapacity> copy = f.nodes;
    absl::Status s = view.Rebuild(std::move(copy));
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_RebuildCapacityView)->Unit(benchmark::kMicrosecond);

// Building from scratch, including the domain tree derived from the topology.
void BM_BuildCapacityView(benchmark::State& state) {
  Fixture& f = Shared();
  for (auto _ : state) {
    absl::StatusOr<CapacityView> v = CapacityView::Build(*f.topo, {"gpu"}, {"h100"}, f.nodes);
    benchmark::DoNotOptimize(v);
  }
}
BENCHMARK(BM_BuildCapacityView)->Unit(benchmark::kMicrosecond);

// Incremental: a 128-node job starts and ends (two updates of 128 nodes each).
void BM_ApplyJobStartEnd(benchmark::State& state) {
  Fixture& f = Shared();
  CapacityView view = *f.view;
  auto policy = MakePlacementPolicy("placement/canopy");
  PlacementResult placed = (*policy)->Place(view, Gang(128), kNow);
  std::vector<NodeUse> uses;
  for (const NodeAssignment& a : placed.nodes) {
    uses.push_back({a.node, 8, 128, 0});
  }
  for (auto _ : state) {
    absl::Status s1 = view.ApplyJob(uses, true, true);
    absl::Status s2 = view.ApplyJob(uses, true, false);
    benchmark::DoNotOptimize(s1);
    benchmark::DoNotOptimize(s2);
  }
}
BENCHMARK(BM_ApplyJobStartEnd)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace canopy::placement

BENCHMARK_MAIN();
