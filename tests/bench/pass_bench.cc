// A full scheduling pass at target scale: 10,000 pending jobs on 16,384 nodes × 8 GPUs
// (512 leaves of 32, 32 spines, one core), with about half the nodes busy. Target (issue:
// simulator and benchmarks): < 100 ms per pass on one core. Results: docs/performance.md.
//   taskset -c 1 ./build/tests/bench/canopy_pass_bench
#include <random>
#include <vector>

#include "benchmark/benchmark.h"
#include "scheduler/core/job.h"
#include "scheduler/placement/registry.h"
#include "scheduler/plan/pass.h"
#include "scheduler/sim/simulator.h"
#include "scheduler/state/capacity_builder.h"
#include "tests/bench/bench_cluster.h"

namespace canopy {
namespace {

const absl::Time kNow = absl::FromUnixSeconds(1'700'000'000);

struct PassFixture {
  PassFixture() : cluster(bench::FatTreeCluster(16384, 32, 16)) {
    absl::StatusOr<placement::CapacityView> v =
        state::BuildIdleCapacity(cluster.config, *cluster.topo);
    if (!v.ok()) {
      std::abort();
    }
    view = std::make_unique<placement::CapacityView>(*std::move(v));
    std::mt19937 rng(42);
    // Half the cluster busy: random whole nodes held by exclusive jobs, fragmented per leaf.
    for (int n = 0; n < view->node_count(); ++n) {
      if (rng() % 2 == 0) {
        placement::NodeUse u{core::NodeId(n), 8, 8, 0};
        (void)view->ApplyJob({&u, 1}, true, true);
      }
    }
    // 10,000 pending jobs of Philly-like shapes: mostly 1-8 GPUs on one node, some gangs.
    for (uint32_t i = 1; i <= 10000; ++i) {
      core::Job j;
      j.id = core::JobId(i);
      j.submit_time = j.eligible_time = kNow - absl::Seconds(10000 - i);
      const int r = static_cast<int>(rng() % 100);
      if (r < 70) {
        j.resources.gpus_per_node = 1 << (rng() % 3);
      } else if (r < 85) {
        j.resources.gpus_per_node = 8;
      } else {
        j.resources.gpus_per_node = 8;
        j.resources.min_nodes = 2 << (rng() % 7);  // 2 .. 128 nodes
      }
      j.resources.cpus_per_node = j.resources.gpus_per_node;
      jobs.push_back(j);
    }
    for (const core::Job& j : jobs) {
      pending.push_back(&j);
    }
  }
  bench::BenchCluster cluster;
  std::unique_ptr<placement::CapacityView> view;
  std::vector<core::Job> jobs;
  std::vector<const core::Job*> pending;
};

PassFixture& Shared() {
  static PassFixture* f = new PassFixture();
  return *f;
}

void PassLoop(benchmark::State& state, const char* policy_name, bool min_units) {
  PassFixture& f = Shared();
  auto policy = placement::MakePlacementPolicy(policy_name);
  if (!policy.ok()) {
    std::abort();
  }
  plan::PassOptions opts;
  opts.compute_min_units = min_units;
  plan::Plan last;
  for (auto _ : state) {
    last = plan::RunPass(*f.view, f.pending, kNow, **policy, opts);
    benchmark::DoNotOptimize(last);
  }
  state.counters["placed"] = last.stats.placed;
  state.counters["policy_calls"] = last.stats.policy_calls;
  state.counters["skipped_identical"] = last.stats.skipped_identical;
  state.counters["not_reached"] = last.stats.not_reached;
}

void BM_Pass10kOn16k_Canopy(benchmark::State& s) { PassLoop(s, "placement/canopy", false); }
BENCHMARK(BM_Pass10kOn16k_Canopy)->Unit(benchmark::kMillisecond);
void BM_Pass10kOn16k_CanopyWithMinUnits(benchmark::State& s) {
  PassLoop(s, "placement/canopy", true);
}
BENCHMARK(BM_Pass10kOn16k_CanopyWithMinUnits)->Unit(benchmark::kMillisecond);
void BM_Pass10kOn16k_SlurmTree(benchmark::State& s) { PassLoop(s, "placement/slurm_tree", false); }
BENCHMARK(BM_Pass10kOn16k_SlurmTree)->Unit(benchmark::kMillisecond);
void BM_Pass10kOn16k_FirstFit(benchmark::State& s) { PassLoop(s, "placement/first_fit", false); }
BENCHMARK(BM_Pass10kOn16k_FirstFit)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace canopy

BENCHMARK_MAIN();
