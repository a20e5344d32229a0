// A controller that has completed 1,000,000 jobs against a fresh one (issue: Slurm drop-in,
// accounting): finished jobs leave memory after MinJobAge, so the scheduling pass and the heap
// must stay within 10% of a fresh controller's. Both lifecycles are the real JobLifecycle on a
// 1,024-node fat tree (8 GPUs each), driven as canopyd drives it (submit, pass, LAUNCHED,
// EXITED, CLEANED_UP, ticks); only the store is left out (its rows are the database's business,
// and sacct reads them there).
//
// Each benchmark times one pass over the same 4,000-job queue on a full cluster and reports
// heap_mib (malloc's bytes in use after set-up) and jobs_in_memory. The fresh controller never
// ran 8,192 jobs at once; the one after a cluster's worth of jobs did, as the million's did, so
// the maps sized by the most jobs running at a time are the same size. Results:
// docs/performance.md.
//   taskset -c 1 ./build/tests/bench/canopy_history_bench
#include <malloc.h>

#include <memory>
#include <utility>
#include <variant>
#include <vector>

#include "absl/strings/str_format.h"
#include "benchmark/benchmark.h"
#include "scheduler/lifecycle/job_lifecycle.h"
#include "tests/bench/bench_cluster.h"

namespace canopy {
namespace {

constexpr int kNodes = 1024;
constexpr int kGpus = 8;

class StepClock final : public core::Clock {
 public:
  absl::Time Now() const override { return now_; }
  void Advance(absl::Duration d) { now_ += d; }

 private:
  absl::Time now_ = absl::FromUnixSeconds(1'800'000'000);
};

double HeapMib() {
  const struct mallinfo2 m = mallinfo2();
  return static_cast<double>(m.uordblks + m.hblkhd) / (1024.0 * 1024.0);
}

class Controller {
 public:
  Controller() {
    bench::BenchCluster cluster = bench::FatTreeCluster(kNodes, 32, 16);
    auto config = std::make_shared<const config::ClusterConfig>(cluster.config);
    std::shared_ptr<const topology::Topology> topo = std::move(cluster.topo);
    absl::StatusOr<std::unique_ptr<lifecycle::JobLifecycle>> lc =
        lifecycle::JobLifecycle::Create(config, topo, clock_);
    if (!lc.ok()) {
      std::abort();
    }
    jobs_ = *std::move(lc);
    user_.authenticated = true;
    user_.uid = 1000;
    user_.gid = 1000;
    user_.user_name = "bench";
    lifecycle::Effects e;
    for (int i = 0; i < kNodes; ++i) {
      state::NodeRecord n;
      n.id = core::NodeId(i);
      n.name = topo->node_name(n.id);
      n.cpus = 128;
      n.real_memory_mib = 2 * 1024 * 1024;
      n.gpus_configured = kGpus;
      n.ever_registered = true;
      n.connected = true;
      for (int g = 0; g < kGpus; ++g) {
        state::GpuStatus gpu;
        gpu.index = g;
        n.registration.gpus.push_back(gpu);
      }
      jobs_->NodeChanged(n, e);
    }
  }

  // Runs `count` one-GPU jobs to COMPLETED, a cluster's worth at a time (each pass starts what
  // it may; the jobs it started run 5 s), then lets MinJobAge pass so that they leave memory.
  // Returns the jobs completed.
  int64_t Churn(int64_t count) {
    const int wave = kNodes * kGpus;
    int64_t completed = 0;
    while (completed < count) {
      for (int i = 0; i < wave; ++i) {
        Submit(1, 1);
      }
      int64_t started_in_wave = 0;
      while (started_in_wave < wave) {
        const std::vector<std::pair<core::NodeId, core::JobId>> started = Schedule();
        if (started.empty()) {
          clock_.Advance(absl::Seconds(30));  // the next backfill cycle
          Tick();
          continue;
        }
        clock_.Advance(absl::Seconds(1));
        Report(started, lifecycle::JobPhase::kLaunched);
        clock_.Advance(absl::Seconds(5));
        Report(started, lifecycle::JobPhase::kExited);
        Report(started, lifecycle::JobPhase::kCleanedUp);
        Tick();
        started_in_wave += static_cast<int64_t>(started.size());
      }
      completed += started_in_wave;
    }
    clock_.Advance(absl::Seconds(301));  // MinJobAge (300 s) passes
    Tick();
    return completed;
  }

  // The queue the pass is timed on: the cluster full of 8-GPU jobs, 4,000 more waiting.
  void FillAndQueue() {
    for (int i = 0; i < kNodes + 4000; ++i) {
      Submit(1, kGpus);
    }
    for (int started = 0; started < kNodes;) {
      const auto more = Schedule();
      clock_.Advance(absl::Seconds(30));
      started += static_cast<int>(more.size());
    }
  }

  void Pass() {
    clock_.Advance(absl::Seconds(1));
    lifecycle::Effects e;
    jobs_->Schedule(e);
    benchmark::DoNotOptimize(e);
  }

  size_t jobs_in_memory() const { return jobs_->jobs().size(); }

 private:
  void Submit(int nodes, int gpus) {
    lifecycle::SubmitRequest req;
    core::JobSpec& spec = req.spec.Mutable();
    spec.min_nodes = nodes;
    spec.gpus_per_node = gpus;
    spec.script = "#!/bin/sh\ntrue\n";
    spec.time_limit = absl::Hours(1);
    lifecycle::Effects e;
    if (!jobs_->Submit(req, user_, e).ok()) {
      std::abort();
    }
  }
  void Report(const std::vector<std::pair<core::NodeId, core::JobId>>& jobs,
              lifecycle::JobPhase phase) {
    for (const auto& [node, job] : jobs) {
      lifecycle::JobReport r;
      r.job = job;
      r.phase = phase;
      r.run_id = 1;
      lifecycle::Effects e;
      jobs_->JobReported(node, r, e);
    }
  }
  void Tick() {
    lifecycle::Effects e;
    jobs_->Tick(e);
  }
  // One pass; the jobs it started and their nodes.
  std::vector<std::pair<core::NodeId, core::JobId>> Schedule() {
    lifecycle::Effects pass;
    jobs_->Schedule(pass);
    std::vector<std::pair<core::NodeId, core::JobId>> started;
    for (const lifecycle::OutgoingMessage& m : pass.messages) {
      if (const auto* launch = std::get_if<lifecycle::LaunchJob>(&m.message)) {
        started.push_back({m.node, launch->job->id});
      }
    }
    return started;
  }

  StepClock clock_;
  std::unique_ptr<lifecycle::JobLifecycle> jobs_;
  lifecycle::Caller user_;
};

void RunPasses(benchmark::State& state, int64_t completed_before) {
  const double heap_before = HeapMib();
  Controller c;
  const int64_t completed = c.Churn(completed_before);
  c.FillAndQueue();
  const double heap = HeapMib() - heap_before;
  for (auto _ : state) {
    c.Pass();
  }
  state.counters["heap_mib"] = heap;
  state.counters["jobs_in_memory"] = static_cast<double>(c.jobs_in_memory());
  state.counters["completed_before"] = static_cast<double>(completed);
}

void BM_PassFreshController(benchmark::State& state) { RunPasses(state, 0); }
BENCHMARK(BM_PassFreshController)->Unit(benchmark::kMillisecond)->MinTime(2);

// One cluster's worth of one-GPU jobs (8,192, all running at once): the hash maps sized by the
// most jobs running at a time reach their size here, so the million's heap is compared with
// this one's to show that nothing grows per job.
void BM_PassAfterOneClusterOfJobs(benchmark::State& state) { RunPasses(state, kNodes * kGpus); }
BENCHMARK(BM_PassAfterOneClusterOfJobs)->Unit(benchmark::kMillisecond)->MinTime(2);

void BM_PassAfterMillionJobs(benchmark::State& state) { RunPasses(state, 1'000'000); }
BENCHMARK(BM_PassAfterMillionJobs)->Unit(benchmark::kMillisecond)->MinTime(2);

}  // namespace
}  // namespace canopy

BENCHMARK_MAIN();
