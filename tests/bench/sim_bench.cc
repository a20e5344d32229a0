// Simulator speed: a synthetic 100,000-job trace on 2,048 nodes × 8 GPUs (64 leaves of 32,
// 4 spines of 16 leaves, one core), offered load 0.8 and 1.2, Philly-like job sizes, fixed seed.
// Target (issue: simulator and benchmarks): the whole replay in < 60 s on one core.
//   taskset -c 1 ./build/tests/bench/canopy_sim_bench
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "scheduler/sim/simulator.h"
#include "tests/bench/bench_cluster.h"

namespace canopy {
namespace {

std::vector<sim::TraceJob> SyntheticTrace(int jobs, int total_gpus, double load) {
  std::mt19937_64 rng(7);
  std::exponential_distribution<double> runtime(1.0 / 3600);  // mean 1 h
  std::vector<sim::TraceJob> out;
  // Mean GPUs per job from the mix below, so the arrival rate gives the wanted load.
  const double mean_gpus = 0.75 * 2.0 + 0.15 * 8 + 0.10 * 8 * 8.5;
  const double gap = mean_gpus * 3600 / (load * total_gpus);
  std::exponential_distribution<double> arrival(1.0 / gap);
  double t = 0;
  for (int i = 1; i <= jobs; ++i) {
    sim::TraceJob j;
    j.id = static_cast<uint32_t>(i);
    t += arrival(rng);
    j.submit = absl::Seconds(t);
    const int r = static_cast<int>(rng() % 100);
    if (r < 75) {
      static constexpr int kSmall[] = {1, 1, 2, 4};
      j.gpus_per_node = kSmall[rng() % 4];
    } else if (r < 90) {
      j.gpus_per_node = 8;
    } else {
      j.gpus_per_node = 8;
      j.nodes = 2 << (rng() % 4);  // 2 .. 16 nodes
    }
    j.duration = absl::Seconds(10 + runtime(rng));
    j.account = absl::StrCat("acct", i % 10);
    j.user = j.account;
    out.push_back(j);
  }
  return out;
}

void BM_Sim100kJobsOn2048Nodes(benchmark::State& state) {
  bench::BenchCluster c = bench::FatTreeCluster(2048, 32, 16);
  const std::vector<sim::TraceJob> trace =
      SyntheticTrace(100000, 2048 * 8, static_cast<double>(state.range(1)) / 100);
  sim::SimOptions opts;
  opts.policy = state.range(0) == 0 ? "canopy" : (state.range(0) == 1 ? "slurm-tree" : "first-fit");
  sim::SimMetrics m;
  for (auto _ : state) {
    absl::StatusOr<sim::SimResult> r = sim::RunSimulation(c.config, *c.topo, trace, opts);
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      return;
    }
    m = r->metrics;
  }
  state.counters["jobs"] = static_cast<double>(m.jobs);
  state.counters["events"] = static_cast<double>(m.events);
  state.counters["passes"] = static_cast<double>(m.passes);
  state.counters["util"] = m.gpu_utilization;
  state.counters["mean_wait_s"] = m.mean_wait_s;
  state.counters["min_switch_frac"] = m.min_switch_frac;
}
// Args: policy (0 = canopy, 1 = slurm-tree, 2 = first-fit), offered load in percent. At 120%
// the queue grows through the run: the worst case for pass cost.
BENCHMARK(BM_Sim100kJobsOn2048Nodes)
    ->Args({0, 80})
    ->Args({1, 80})
    ->Args({2, 80})
    ->Args({0, 120})
    ->Args({1, 120})
    ->Args({2, 120})
    ->Iterations(1)
    ->Unit(benchmark::kSecond);

}  // namespace
}  // namespace canopy

BENCHMARK_MAIN();
