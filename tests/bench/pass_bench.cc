// A full scheduling pass at target scale: 10,000 pending jobs on 16,384 nodes × 8 GPUs
// (512 leaves of 32, 32 spines, one core), with about half the nodes busy. Target (issue:
// simulator and benchmarks): < 100 ms per pass on one core, with backfill too (issue: queue
// policy). Results: docs/performance.md.
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
    // Backfill's inputs come from their own stream, so the shapes above stay as they were.
    std::mt19937 ends(43);
    // Half the cluster busy: random whole nodes held by exclusive jobs, fragmented per leaf,
    // each ending at a random time over the next day.
    for (int n = 0; n < view->node_count(); ++n) {
      if (rng() % 2 == 0) {
        placement::NodeUse u{core::NodeId(n), 8, 8, 0};
        (void)view->ApplyJob({&u, 1}, true, true);
        shares.push_back({{core::NodeId(n), 8, 8, 0, {}}});
        running_ends.push_back(kNow + absl::Seconds(60 + ends() % (24 * 3600)));
      }
    }
    for (size_t i = 0; i < shares.size(); ++i) {
      running.push_back(
          {core::JobId(100000 + static_cast<uint32_t>(i)), shares[i], true, running_ends[i]});
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
      // Time limits as users round them: 30 min to a day, short ones most common.
      const absl::Duration limits[] = {absl::Minutes(30), absl::Hours(1), absl::Hours(2),
                                       absl::Hours(4),    absl::Hours(8), absl::Hours(24)};
      const int weights[] = {20, 25, 20, 15, 10, 10};
      int pick = static_cast<int>(ends() % 100);
      int k = 0;
      while (pick >= weights[k]) {
        pick -= weights[k++];
      }
      j.time_limit = limits[k];
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
  std::vector<std::vector<core::NodeShare>> shares;  // of the running jobs
  std::vector<absl::Time> running_ends;
  std::vector<plan::RunningJob> running;
};

PassFixture& Shared() {
  static PassFixture* f = new PassFixture();
  return *f;
}

void PassLoop(benchmark::State& state, const char* policy_name, bool min_units,
              bool backfill = false) {
  PassFixture& f = Shared();
  auto policy = placement::MakePlacementPolicy(policy_name);
  if (!policy.ok()) {
    std::abort();
  }
  plan::PassOptions opts;
  opts.compute_min_units = min_units;
  opts.backfill.enabled = backfill;  // Slurm's defaults otherwise: 1 day, 60 s, 500 jobs
  plan::Plan last;
  for (auto _ : state) {
    last = plan::RunPass(*f.view, f.running, f.pending, kNow, **policy, opts);
    benchmark::DoNotOptimize(last);
  }
  state.counters["placed"] = last.stats.placed;
  state.counters["policy_calls"] = last.stats.policy_calls;
  state.counters["skipped_identical"] = last.stats.skipped_identical;
  state.counters["not_reached"] = last.stats.not_reached;
  if (backfill) {
    state.counters["reserved"] = last.stats.reserved;
    state.counters["held_back"] = last.stats.held_back;
    state.counters["bf_policy_calls"] = last.stats.backfill_policy_calls;
  }
}

void BM_Pass10kOn16k_Canopy(benchmark::State& s) { PassLoop(s, "placement/canopy", false); }
BENCHMARK(BM_Pass10kOn16k_Canopy)->Unit(benchmark::kMillisecond);
// sched/backfill with Slurm's defaults: reservations for up to 500 jobs that cannot start.
void BM_Pass10kOn16k_CanopyBackfill(benchmark::State& s) {
  PassLoop(s, "placement/canopy", false, true);
}
BENCHMARK(BM_Pass10kOn16k_CanopyBackfill)->Unit(benchmark::kMillisecond);
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
