// The agent's Spawn of one trivial job process (/bin/true with a batch script's 40 variables),
// from the request to the reaper's exit callback: what every job and step task pays on the node
// before its own work. Arg 1: with SLURM_TASK_PID written by the child (as jobs are started),
// arg 0 without, interleaved in one run so that the difference holds on a noisy machine:
//   taskset -c 1 ./build/tests/bench/canopy_spawn_bench
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "agent/runtime/child_reaper.h"
#include "agent/runtime/spawn.h"
#include "common/slurm/job_environment.h"

namespace canopy::agent::runtime {
namespace {

void BM_SpawnTrivialJob(benchmark::State& state) {
  absl::StatusOr<std::unique_ptr<ChildReaper>> reaper = ChildReaper::Create();
  if (!reaper.ok()) {
    state.SkipWithError(std::string(reaper.status().message()).c_str());
    return;
  }
  SpawnRequest req;
  req.argv = {"/bin/true"};
  req.env = {"PATH=/usr/bin:/bin"};
  for (int i = 0; i < 39; ++i) {
    req.env.push_back(absl::StrCat("SLURM_VARIABLE_", i, "=value-", i));
  }
  if (state.range(0) != 0) {
    req.pid_variable = slurm::kTaskPidVariable;
  }
  req.work_dir = "/";
  req.stdin_path = "/dev/null";
  req.stdout_path = "/dev/null";
  req.stderr_path = "/dev/null";
  for (auto _ : state) {
    absl::Notification exited;
    absl::StatusOr<pid_t> pid = Spawn(req, **reaper, [&](int) { exited.Notify(); });
    if (!pid.ok()) {
      state.SkipWithError(std::string(pid.status().message()).c_str());
      return;
    }
    exited.WaitForNotification();
  }
}
BENCHMARK(BM_SpawnTrivialJob)->Arg(0)->Arg(1)->Repetitions(5)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace canopy::agent::runtime

BENCHMARK_MAIN();
