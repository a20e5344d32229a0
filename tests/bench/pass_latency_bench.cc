// The API's latency while scheduling passes run (issue #16, item 7): p50 and p99 of SubmitJob and
// ListJobs on a controller holding 16,384 nodes and about 10,000 pending jobs, with sched/backfill
// passing over the whole queue every bf_interval (1 s here, 30 s by default, so that a minute
// holds sixty such passes).
//
// The controller is canopyd's own (server::Controller: owner thread, StoreWriter, SQLite with
// synchronous=FULL in a temporary directory) and ListJobs is the service's own handler; the
// gRPC transport is left out (docs/performance.md has its cost). It links canopyd's allocator and
// its setting (CMake's canopyd_allocator), so the heap behaves as canopyd's. The 16,384 agents
// are stand-ins inside this process: each node's stream confirms a launch at once and reports the
// job's end after a run of 10 to 100 s, so capacity comes and goes and every backfill pass starts
// jobs.
// Jobs have the pass benchmark's shapes (pass_bench.cc): 70% one node with 1/2/4 GPUs, 15% one
// node with 8, 15% gangs of 2 to 128 nodes.
//
// Two probes run for 60 s: two threads each submitting one job every 40 ms (about the rate jobs
// end, so the queue stays near 10,000), each submission timed until it is durable; and a thread
// asking every 50 ms for one job by id (squeue -j, as workflow engines poll).
//   ./build/tests/bench/canopy_pass_latency_bench
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <memory>
#include <mutex>
#include <queue>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "benchmark/benchmark.h"
#include "canopy/v1/agent.pb.h"
#include "common/config/cluster_config.h"
#include "scheduler/core/clock.h"
#include "scheduler/persistence/sqlite_store.h"
#include "scheduler/server/agent_outbox.h"
#include "scheduler/server/controller.h"
#include "scheduler/server/controller_metrics.h"
#include "scheduler/server/controller_service.h"
#include "scheduler/topology/load_topology.h"
#include "spdlog/spdlog.h"

namespace canopy {
namespace {

constexpr absl::Duration kProbeTime = absl::Seconds(60);
constexpr int kQueuedJobs = 10000;

lifecycle::Caller User(uint32_t uid, const std::string& name) {
  lifecycle::Caller c;
  c.authenticated = true;
  c.uid = uid;
  c.gid = uid;
  c.user_name = name;
  c.via = "unix socket";
  return c;
}

// The stand-in agents: every node's stream ends up here. Launches are confirmed by the driver
// thread (never from inside Send, which runs on the owner thread) and jobs end after their run.
class StandInAgents {
 public:
  explicit StandInAgents(server::Controller* controller) : controller_(controller) {}
  ~StandInAgents() { Stop(); }

  class Sink final : public server::AgentStreamSink {
   public:
    Sink(StandInAgents* agents, int node) : agents_(agents), node_(node) {}
    void Send(canopy::v1::ControllerMessage message) override {
      if (message.has_launch_job()) {
        agents_->Launched(node_, message.launch_job().job().job_id(),
                          message.launch_job().job().run_id());
      }
    }
    void Close(grpc::Status) override {}

   private:
    StandInAgents* agents_;
    int node_;
  };

  // Registers every node of the configuration and waits until the controller took them all.
  void RegisterAll(const config::ClusterConfig& config) {
    std::atomic<int> left{static_cast<int>(config.nodes.size())};
    absl::Notification all;
    for (size_t i = 0; i < config.nodes.size(); ++i) {
      const config::NodeConfig& n = config.nodes[i];
      sinks_.push_back(std::make_unique<Sink>(this, static_cast<int>(i)));
      outboxes_.push_back(std::make_shared<server::AgentOutbox>(sinks_.back().get()));
      state::NodeRegistration reg;
      reg.hostname = n.name;
      reg.cpus = n.cpus;
      reg.real_memory_mib = n.real_memory_mib;
      for (const config::GpuConfig& type : n.gpus) {
        for (int g = 0; g < type.count; ++g) {
          state::GpuStatus gpu;
          gpu.index = static_cast<int>(reg.gpus.size());
          reg.gpus.push_back(gpu);
        }
      }
      controller_->AgentRegistered(
          n.name, reg, {}, outboxes_.back(), [&](absl::StatusOr<server::Controller::Registered> r) {
            if (!r.ok()) {
              std::fprintf(stderr, "register: %s\n", r.status().ToString().c_str());
              std::abort();
            }
            if (left.fetch_sub(1) == 1) {
              all.Notify();
            }
          });
    }
    all.WaitForNotification();
    driver_ = std::thread([this] { Drive(); });
  }

  void Stop() {
    stop_ = true;
    if (driver_.joinable()) {
      driver_.join();
    }
  }

 private:
  struct Run {
    absl::Time end;
    int node;
    uint32_t job;
    uint32_t run_id;
    bool operator>(const Run& o) const { return end > o.end; }
  };

  void Launched(int node, uint32_t job, uint32_t run_id) {
    absl::MutexLock lock(&mu_);
    launched_.push_back({absl::InfinitePast(), node, job, run_id});
  }

  void Report(const Run& run, lifecycle::JobPhase phase) {
    lifecycle::JobReport r;
    r.job = core::JobId(run.job);
    r.run_id = run.run_id;
    r.phase = phase;
    controller_->AgentJobStatus(r, outboxes_[run.node]);
  }

  void Drive() {
    std::mt19937 rng(7);
    std::priority_queue<Run, std::vector<Run>, std::greater<Run>> running;
    while (!stop_) {
      std::vector<Run> launched;
      {
        absl::MutexLock lock(&mu_);
        launched.swap(launched_);
      }
      const absl::Time now = absl::Now();
      for (Run& run : launched) {
        Report(run, lifecycle::JobPhase::kLaunched);
        run.end = now + absl::Seconds(10 + rng() % 91);
        running.push(run);
      }
      while (!running.empty() && running.top().end <= now) {
        Report(running.top(), lifecycle::JobPhase::kExited);
        Report(running.top(), lifecycle::JobPhase::kCleanedUp);
        running.pop();
      }
      absl::SleepFor(absl::Milliseconds(10));
    }
  }

  server::Controller* const controller_;
  std::vector<std::unique_ptr<Sink>> sinks_;
  std::vector<std::shared_ptr<server::AgentOutbox>> outboxes_;
  absl::Mutex mu_;
  std::vector<Run> launched_ ABSL_GUARDED_BY(mu_);
  std::atomic<bool> stop_{false};
  std::thread driver_;
};

// A job of the pass benchmark's shapes.
lifecycle::SubmitRequest RandomJob(std::mt19937& rng) {
  lifecycle::SubmitRequest req;
  req.spec.Mutable().script = "#!/bin/sh\ntrue\n";
  req.spec.Mutable().min_nodes = 1;
  const int r = static_cast<int>(rng() % 100);
  if (r < 70) {
    req.spec.Mutable().gpus_per_node = 1 << (rng() % 3);
  } else if (r < 85) {
    req.spec.Mutable().gpus_per_node = 8;
  } else {
    req.spec.Mutable().gpus_per_node = 8;
    req.spec.Mutable().min_nodes = 2 << (rng() % 7);  // 2 .. 128 nodes
  }
  const absl::Duration limits[] = {absl::Minutes(30), absl::Hours(1), absl::Hours(2),
                                   absl::Hours(4),    absl::Hours(8), absl::Hours(24)};
  req.spec.Mutable().time_limit = limits[rng() % 6];
  return req;
}

double Percentile(std::vector<double>& v, double p) {
  if (v.empty()) {
    return 0;
  }
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

// Sum and count of canopy_pass_seconds for `kind` ("backfill" or "main").
std::pair<double, double> PassSeconds(server::ControllerMetrics& metrics, const std::string& kind) {
  for (const prometheus::MetricFamily& family : metrics.registry()->Collect()) {
    if (family.name != "canopy_scheduler_pass_duration_seconds") {
      continue;
    }
    for (const prometheus::ClientMetric& m : family.metric) {
      for (const prometheus::ClientMetric::Label& l : m.label) {
        if (l.name == "kind" && l.value == kind) {
          return {m.histogram.sample_sum, static_cast<double>(m.histogram.sample_count)};
        }
      }
    }
  }
  return {0, 0};
}

void BM_ApiLatencyDuringPasses(benchmark::State& state) {
  spdlog::set_level(spdlog::level::warn);  // as canopyd runs at scale: a line per job costs
  const std::string dir = absl::StrCat(std::filesystem::temp_directory_path().string(),
                                       "/canopy-pass-latency-", getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  absl::StatusOr<config::ClusterConfig> loaded =
      config::LoadClusterConfig(CANOPY_TEST_DATA_DIR "/clusters/fat-tree-16k/slurm.conf");
  if (!loaded.ok()) {
    state.SkipWithError(loaded.status().ToString().c_str());
    return;
  }
  loaded->scheduling.scheduler.max_job_count = 1'000'000;
  loaded->scheduling.scheduler.backfill = true;
  loaded->scheduling.scheduler.parameters.bf_interval = absl::Seconds(1);
  auto config = std::make_shared<const config::ClusterConfig>(*std::move(loaded));
  absl::StatusOr<topology::Topology> topo = topology::LoadTopology(*config);
  if (!topo.ok()) {
    state.SkipWithError(topo.status().ToString().c_str());
    return;
  }
  auto topology = std::make_shared<const topology::Topology>(*std::move(topo));
  auto store = persistence::SqliteStore::Open(dir + "/canopy.db", topology);
  if (!store.ok()) {
    state.SkipWithError(store.status().ToString().c_str());
    return;
  }
  core::SystemClock clock;
  auto controller = server::Controller::Create(config, topology, *std::move(store), &clock);
  if (!controller.ok()) {
    state.SkipWithError(controller.status().ToString().c_str());
    return;
  }
  server::ControllerMetrics metrics(dir + "/canopy.db-wal");
  (*controller)->set_metrics(&metrics);
  (*controller)->set_backfill_off_owner(state.range(0) != 0);
  (*controller)->Start();
  server::ControllerServiceImpl service(controller->get(), "bench", nullptr);
  StandInAgents agents(controller->get());
  agents.RegisterAll(*config);

  // The queue: what fits runs, about 10,000 more wait.
  std::mt19937 rng(42);
  const lifecycle::Caller crowd = User(2000, "crowd");
  auto submit_batch = [&](int n) {
    std::vector<std::pair<lifecycle::SubmitRequest, lifecycle::Caller>> batch;
    for (int i = 0; i < n; ++i) {
      batch.emplace_back(RandomJob(rng), crowd);
    }
    std::promise<void> done;
    (*controller)->SubmitJobs(std::move(batch), [&](auto answers) {
      if (!answers.ok()) {
        std::fprintf(stderr, "SubmitJobs: %s\n", answers.status().ToString().c_str());
        std::abort();
      }
      done.set_value();
    });
    done.get_future().wait();
  };
  auto pending = [&] {
    int n = 0;
    (*controller)->Snapshot()->ForEachJob([&](const core::Job& j) {
      n += j.state == core::JobState::kPending ? 1 : 0;
    });
    return n;
  };
  while (pending() < kQueuedJobs) {
    submit_batch(1000);
    absl::SleepFor(absl::Seconds(1.5));  // a backfill pass starts what fits
  }
  const auto [backfill_sum0, backfill_count0] = PassSeconds(metrics, "backfill");

  for (auto _ : state) {
    std::vector<double> submit_ms[2];
    std::vector<double> list_ms;
    std::atomic<bool> stop{false};
    std::atomic<uint32_t> last_job{0};
    std::vector<std::thread> probes;
    for (int t = 0; t < 2; ++t) {
      probes.emplace_back([&, t] {
        std::mt19937 mine(100 + t);
        const lifecycle::Caller probe = User(3000 + t, absl::StrCat("probe", t));
        while (!stop) {
          const absl::Time start = absl::Now();
          std::promise<absl::StatusOr<lifecycle::SubmitAnswer>> answer;
          (*controller)
              ->SubmitJob(RandomJob(mine), probe, [&](absl::StatusOr<lifecycle::SubmitAnswer> a) {
                answer.set_value(std::move(a));
              });
          absl::StatusOr<lifecycle::SubmitAnswer> a = answer.get_future().get();
          submit_ms[t].push_back(absl::ToDoubleMilliseconds(absl::Now() - start));
          if (a.ok()) {
            last_job = a->job_id.value();
          }
          absl::SleepFor(absl::Milliseconds(40) - (absl::Now() - start));
        }
      });
    }
    probes.emplace_back([&] {
      const lifecycle::Caller probe = User(3000, "probe0");
      while (!stop) {
        const absl::Time start = absl::Now();
        canopy::v1::ListJobsRequest request;
        request.add_job_ids(last_job.load());
        canopy::v1::ListJobsResponse response;
        (void)service.ListJobsFor(probe, &request, &response);
        list_ms.push_back(absl::ToDoubleMilliseconds(absl::Now() - start));
        absl::SleepFor(absl::Milliseconds(50) - (absl::Now() - start));
      }
    });
    absl::SleepFor(kProbeTime);
    stop = true;
    for (std::thread& t : probes) {
      t.join();
    }
    std::vector<double> submits = submit_ms[0];
    submits.insert(submits.end(), submit_ms[1].begin(), submit_ms[1].end());
    state.counters["submits"] = static_cast<double>(submits.size());
    state.counters["submit_p50_ms"] = Percentile(submits, 0.50);
    state.counters["submit_p99_ms"] = Percentile(submits, 0.99);
    state.counters["submit_max_ms"] = submits.empty() ? 0 : submits.back();
    state.counters["list_p50_ms"] = Percentile(list_ms, 0.50);
    state.counters["list_p99_ms"] = Percentile(list_ms, 0.99);
    state.counters["list_max_ms"] = list_ms.empty() ? 0 : list_ms.back();
  }
  const auto [backfill_sum, backfill_count] = PassSeconds(metrics, "backfill");
  const double passes = backfill_count - backfill_count0;
  state.counters["backfill_passes"] = passes;
  state.counters["backfill_pass_ms"] =
      passes > 0 ? 1000 * (backfill_sum - backfill_sum0) / passes : 0;
  state.counters["pending"] = pending();
  agents.Stop();
  (*controller)->Stop();
  std::filesystem::remove_all(dir);
}
// 0: the backfill pass plans on the owner thread; 1: on a planner thread of its own.
BENCHMARK(BM_ApiLatencyDuringPasses)
    ->Arg(0)
    ->Arg(1)
    ->Iterations(1)
    ->Unit(benchmark::kSecond)
    ->UseRealTime();

}  // namespace
}  // namespace canopy

BENCHMARK_MAIN();
