// End to end over gRPC on loopback: a real canopyd (the 16,384-node fat tree of
// tests/data/clusters/fat-tree-16k, no agents, so every job stays queued) and clients that
// submit 1-node jobs through its unix socket. Every answer comes only after the job is committed
// to SQLite (synchronous=FULL), so the rate is the durable submit rate.
//
//   ./build/tests/bench/canopy_submit_bench                  # 8 client threads
//   ./build/tests/bench/canopy_submit_bench --benchmark_filter=Rss
//   CANOPY_BENCH_CANOPYD=/path/to/other/canopyd ./build/tests/bench/canopy_submit_bench
//
// Targets (issue: simulator and benchmarks): > 5,000 durable submits/s from 8 client threads;
// canopyd's RSS < 1 GiB with 16,384 nodes and 100,000 jobs queued. CANOPY_BENCH_CLUSTER
// overrides the slurm.conf.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "benchmark/benchmark.h"
#include "canopy/v1/controller.grpc.pb.h"
#include "grpcpp/create_channel.h"
#include "tests/testing/subprocess.h"

namespace canopy {
namespace {

std::string ClusterConf() {
  const char* env = std::getenv("CANOPY_BENCH_CLUSTER");
  return env != nullptr ? env : CANOPY_TEST_DATA_DIR "/clusters/fat-tree-16k/slurm.conf";
}

// CANOPY_BENCH_CANOPYD runs another build's canopyd, to compare two in one session.
std::string CanopydPath() {
  const char* env = std::getenv("CANOPY_BENCH_CANOPYD");
  return env != nullptr && *env != '\0' ? env : CANOPYD_PATH;
}

// One canopyd for the whole program.
class Daemon {
 public:
  Daemon() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "canopy-bench-XXXXXX").string();
    dir_ = mkdtemp(tmpl.data());
    // The cluster's files, with room for every job the benchmarks submit: MaxJobCount's default
    // (10,000) would refuse the rest, and a refusal is no durable submit.
    const std::filesystem::path source = ClusterConf();
    for (const char* name : {"slurm.conf", "topology.conf", "canopy.conf"}) {
      if (std::filesystem::exists(source.parent_path() / name)) {
        std::filesystem::copy_file(source.parent_path() / name, dir_ + "/" + name);
      }
    }
    std::ofstream(dir_ + "/slurm.conf", std::ios::app) << "\nMaxJobCount=4000000\n";
    absl::StatusOr<testing::Subprocess> p = testing::Subprocess::Start(
        {CanopydPath(), "--config", dir_ + "/slurm.conf", "--listen", "127.0.0.1:0", "--state_dir",
         dir_ + "/state", "--port_file", dir_ + "/port", "--log_level", "warn"},
        {}, dir_ + "/canopyd.log");
    if (!p.ok()) {
      std::abort();
    }
    process_.emplace(*std::move(p));
    testing::WaitUntil([&] { return std::filesystem::exists(dir_ + "/port"); }, absl::Seconds(120));
    channel_ = grpc::CreateChannel(absl::StrCat("unix:", dir_, "/state/canopyd.sock"),
                                   grpc::InsecureChannelCredentials());
  }
  ~Daemon() {
    process_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::shared_ptr<grpc::Channel> channel() { return channel_; }
  // canopyd's resident set, MiB.
  double RssMib() const {
    std::ifstream status(absl::StrCat("/proc/", process_->pid(), "/status"));
    std::string line;
    while (std::getline(status, line)) {
      if (line.rfind("VmRSS:", 0) == 0) {
        double kb = 0;
        (void)absl::SimpleAtod(
            absl::StripAsciiWhitespace(absl::StripSuffix(absl::string_view(line).substr(6), "kB")),
            &kb);
        return kb / 1024;
      }
    }
    return 0;
  }

 private:
  std::string dir_;
  std::optional<testing::Subprocess> process_;
  std::shared_ptr<grpc::Channel> channel_;
};

Daemon& TheDaemon() {
  static Daemon* daemon = new Daemon();  // killed at exit by the OS-level cleanup below
  return *daemon;
}

canopy::v1::SubmitJobRequest OneNodeJob() {
  canopy::v1::SubmitJobRequest req;
  canopy::v1::JobSpec* spec = req.mutable_spec();
  spec->set_name("bench");
  spec->set_script("#!/bin/sh\nsrun python train.py\n");
  spec->set_min_nodes(1);
  spec->set_gpus_per_node(1);
  spec->set_work_dir("/tmp");
  spec->set_submit_dir("/tmp");
  spec->set_requeue(true);
  return req;
}

bool Submit(canopy::v1::Controller::Stub& stub, const canopy::v1::SubmitJobRequest& req) {
  grpc::ClientContext ctx;
  canopy::v1::SubmitJobResponse resp;
  const grpc::Status s = stub.SubmitJob(&ctx, req, &resp);
  if (!s.ok()) {
    static std::atomic<bool> told{false};
    if (!told.exchange(true)) {  // a benchmark that only fails must say why, once
      std::fprintf(stderr, "submit failed: %d %s\n", static_cast<int>(s.error_code()),
                   s.error_message().c_str());
    }
  }
  return s.ok();
}

// Sustained durable submits per second; one RPC per iteration, per client thread.
void BM_DurableSubmit(benchmark::State& state) {
  auto stub = canopy::v1::Controller::NewStub(TheDaemon().channel());
  const canopy::v1::SubmitJobRequest req = OneNodeJob();
  int64_t failed = 0;
  for (auto _ : state) {
    if (!Submit(*stub, req)) {
      ++failed;
    }
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["failed"] = static_cast<double>(failed);
}
BENCHMARK(BM_DurableSubmit)->Threads(8)->Threads(32)->UseRealTime()->MinTime(5.0);

// Durable jobs per second through SubmitJobs, batches of state.range(0) jobs from one client:
// each answer comes once its whole batch is committed.
void BM_DurableSubmitJobsBatch(benchmark::State& state) {
  auto stub = canopy::v1::Controller::NewStub(TheDaemon().channel());
  canopy::v1::SubmitJobsRequest batch;
  for (int64_t i = 0; i < state.range(0); ++i) {
    *batch.add_jobs() = OneNodeJob();
  }
  int64_t failed = 0;
  for (auto _ : state) {
    grpc::ClientContext ctx;
    canopy::v1::SubmitJobsResponse resp;
    const grpc::Status s = stub->SubmitJobs(&ctx, batch, &resp);
    if (!s.ok()) {
      std::fprintf(stderr, "SubmitJobs failed: %s\n", s.error_message().c_str());
      failed += state.range(0);
      continue;
    }
    for (const auto& r : resp.results()) {
      failed += r.code() != 0 ? 1 : 0;
    }
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.counters["failed"] = static_cast<double>(failed);
}
// One client waits for each batch's answer before sending the next, so the owner thread and the
// store take each batch in turn; with 4 clients (a portal serving several users, a workflow
// engine's workers) one batch is admitted while the one before is committed.
BENCHMARK(BM_DurableSubmitJobsBatch)->Arg(1000)->Iterations(200)->UseRealTime();
BENCHMARK(BM_DurableSubmitJobsBatch)->Arg(1000)->Iterations(50)->Threads(4)->UseRealTime();

// The ceiling any RPC reaches here: the no-op Ping over the same socket, 8 client threads.
void BM_Ping(benchmark::State& state) {
  auto stub = canopy::v1::Controller::NewStub(TheDaemon().channel());
  int64_t failed = 0;
  for (auto _ : state) {
    grpc::ClientContext ctx;
    canopy::v1::PingResponse resp;
    if (!stub->Ping(&ctx, canopy::v1::PingRequest(), &resp).ok()) {
      ++failed;
    }
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["failed"] = static_cast<double>(failed);
}
BENCHMARK(BM_Ping)->Threads(8)->UseRealTime()->MinTime(5.0);

// Keeps up to `depth` calls of one client thread in flight on gRPC's callback client API, as a
// portal or workflow engine with many jobs to submit would, instead of waiting for each answer.
class Pipeline {
 public:
  explicit Pipeline(int depth) : depth_(depth) {}
  ~Pipeline() { Drain(); }

  // `start(done)` starts one call whose completion runs done(ok); waits first while `depth`
  // calls are in flight.
  template <typename Start>
  void Issue(Start start) {
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](Pipeline* p)
               ABSL_EXCLUSIVE_LOCKS_REQUIRED(p->mu_) { return p->in_flight_ < p->depth_; },
          this));
      ++in_flight_;
    }
    start([this](bool ok) {
      absl::MutexLock lock(&mu_);
      --in_flight_;
      failed_ += ok ? 0 : 1;
    });
  }
  // Returns once every call has answered; the number that failed.
  int64_t Drain() {
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(
        +[](Pipeline* p) ABSL_EXCLUSIVE_LOCKS_REQUIRED(p->mu_) { return p->in_flight_ == 0; },
        this));
    return failed_;
  }

 private:
  const int depth_;
  absl::Mutex mu_;
  int in_flight_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t failed_ ABSL_GUARDED_BY(mu_) = 0;
};

// What one call in flight owns until its answer.
template <typename Response>
struct Call {
  grpc::ClientContext context;
  Response response;
};

// One client thread of a pipelined benchmark: state.range(0) calls in flight, each started by
// `start(stub, call, done)` (the answers of the last calls, at most that many per thread, come
// after the clock stops).
template <typename Response, typename Start>
void RunPipelined(benchmark::State& state, Start start) {
  auto stub = canopy::v1::Controller::NewStub(TheDaemon().channel());
  Pipeline pipeline(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    pipeline.Issue([&](auto done) {
      auto* call = new Call<Response>;
      start(*stub, call, [call, done](grpc::Status s) {
        done(s.ok());
        delete call;
      });
    });
  }
  state.counters["failed"] = static_cast<double>(pipeline.Drain());
  state.SetItemsProcessed(state.iterations());
}

// Durable submits per second from 8 client threads with state.range(0) calls in flight each.
void BM_PipelinedSubmit(benchmark::State& state) {
  const canopy::v1::SubmitJobRequest req = OneNodeJob();
  RunPipelined<canopy::v1::SubmitJobResponse>(state, [&](auto& stub, auto* call, auto done) {
    stub.async()->SubmitJob(&call->context, &req, &call->response, std::move(done));
  });
}
BENCHMARK(BM_PipelinedSubmit)->Arg(16)->Threads(8)->UseRealTime()->MinTime(5.0);

// The ceiling for BM_PipelinedSubmit: Ping with as many calls in flight.
void BM_PipelinedPing(benchmark::State& state) {
  const canopy::v1::PingRequest req;
  RunPipelined<canopy::v1::PingResponse>(state, [&](auto& stub, auto* call, auto done) {
    stub.async()->Ping(&call->context, &req, &call->response, std::move(done));
  });
}
BENCHMARK(BM_PipelinedPing)->Arg(16)->Threads(8)->UseRealTime()->MinTime(5.0);

// Fills the queue to 100,000 jobs (8 threads) and reports canopyd's RSS.
void BM_RssWith100kQueuedJobs(benchmark::State& state) {
  constexpr int kJobs = 100'000;
  for (auto _ : state) {
    auto stub = canopy::v1::Controller::NewStub(TheDaemon().channel());
    const canopy::v1::SubmitJobRequest req = OneNodeJob();
    grpc::ClientContext ctx;
    canopy::v1::ListJobsRequest list;
    canopy::v1::ListJobsResponse jobs;
    (void)stub->ListJobs(&ctx, list, &jobs);
    std::vector<std::thread> threads;
    const int missing = std::max(0, kJobs - jobs.jobs_size());
    for (int t = 0; t < 8; ++t) {
      threads.emplace_back([&, t] {
        auto s = canopy::v1::Controller::NewStub(TheDaemon().channel());
        for (int i = t; i < missing; i += 8) {
          Submit(*s, req);
        }
      });
    }
    for (std::thread& t : threads) {
      t.join();
    }
    absl::SleepFor(absl::Seconds(2));  // a pass over the full queue has run
    state.counters["rss_mib"] = TheDaemon().RssMib();
    state.counters["jobs"] = kJobs;
  }
}
BENCHMARK(BM_RssWith100kQueuedJobs)->Iterations(1)->UseRealTime()->Unit(benchmark::kSecond);

}  // namespace
}  // namespace canopy

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  // Stop canopyd (the Subprocess kills its process group).
  delete &canopy::TheDaemon();
  return 0;
}
