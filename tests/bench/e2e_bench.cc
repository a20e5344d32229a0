// End to end (issue #16, item 6): trivial jobs, the request `sbatch -o /dev/null --wrap true`
// sends (built by sbatch's own code), submitted by 8 client threads to a real canopyd over its
// unix socket, each through sbatch's own client with a connection of its own, as 8 sbatch
// processes would, and run by a real canopy-agent hosting the demo-16 cluster's 16 nodes
// (64 CPUs each: up to 1,024 such jobs at once). Measured: jobs completed per second, sustained
// over a window after a warm-up, and the CPU time canopyd, the agent and the jobs themselves took.
//
// In the same run, first, the machine's ceiling for this work: 8 threads that do nothing but
// posix_spawn the same script (/bin/sh and its `true`) and wait for it. No scheduler can run
// more jobs per second than that, whatever it does between them.
//
//   ./build/tests/bench/canopy_e2e_bench              # CANOPY_E2E_SECONDS=20 by default
//   CANOPY_E2E_AGENT=/path/to/older/canopy-agent ./build/tests/bench/canopy_e2e_bench
//   CANOPY_E2E_CANOPYD=/path/to/older/canopyd ./build/tests/bench/canopy_e2e_bench
//   CANOPY_E2E_SPOOL=/mnt/other-fs/spool ./build/tests/bench/canopy_e2e_bench   # the agent's spool
//   SLURM_COMPARE_CONF=/path/to/slurm.conf ./build/tests/bench/canopy_e2e_bench
//   CANOPY_E2E_NO_CLI=1 ./build/tests/bench/canopy_e2e_bench   # (set at all) stop after the API's
//                                                              # figures
//   CANOPY_CLI_TRANSPORT=grpc ./build/tests/bench/canopy_e2e_bench  # the submitters (and the
//                                                    # command-line part's sbatch and squeue) on
//                                                    # gRPC's client runtime (before 2026-12-07)
//
// Then the same jobs through the command line, as a script would submit them: 8 threads each
// running `sbatch -o /dev/null --wrap true` one after another (Canopy's sbatch, then, with
// SLURM_COMPARE_CONF naming a running Slurm on this machine, Slurm's /usr/bin/sbatch), the jobs
// in the controller counted by squeue.
//
// The submitters keep about 2,048 jobs in the controller (queued or running), so every CPU of
// the 16 nodes has a job waiting; a submission refused because the controller is full is
// retried after a millisecond. Not a Google Benchmark: one long run, one line per measure.
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "canopy/v1/controller.pb.h"
#include "common/slurm/sbatch_options.h"
#include "ctl/client/controller_client.h"
#include "ctl/sbatch/job_spec.h"
#include "tests/testing/subprocess.h"

extern char** environ;

namespace canopy {
namespace {

constexpr int kClientThreads = 8;
constexpr int64_t kKeepInController = 2048;

int Seconds() {
  const char* env = std::getenv("CANOPY_E2E_SECONDS");
  int seconds = 20;
  return env != nullptr && absl::SimpleAtoi(env, &seconds) && seconds > 0 ? seconds : 20;
}

[[noreturn]] void Die(const std::string& why) {
  std::fprintf(stderr, "e2e_bench: %s\n", why.c_str());
  std::exit(1);
}

// Where the agent writes batch scripts: CANOPY_E2E_SPOOL (another filesystem: a tmpfs, a
// journaled ext4) or the run's own directory.
std::string SpoolDir(const std::string& run_dir) {
  const char* env = std::getenv("CANOPY_E2E_SPOOL");
  return env != nullptr && *env != '\0' ? std::string(env) : run_dir + "/spool";
}

// The agent to run: CANOPY_E2E_AGENT (another build's, to compare two in one session) or this
// build's.
std::string AgentPath() {
  const char* env = std::getenv("CANOPY_E2E_AGENT");
  return env != nullptr && *env != '\0' ? std::string(env) : std::string(CANOPY_AGENT_PATH);
}

// The controller to run: CANOPY_E2E_CANOPYD (another build's, or a script that execs one: its
// CPU is read from the process started) or this build's.
std::string CanopydPath() {
  const char* env = std::getenv("CANOPY_E2E_CANOPYD");
  return env != nullptr && *env != '\0' ? std::string(env) : std::string(CANOPYD_PATH);
}

// CPU seconds a process has used (utime + stime) and those of its reaped children.
struct CpuTimes {
  double self = 0;
  double children = 0;
};
CpuTimes CpuOf(pid_t pid) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/stat"));
  std::string text((std::istreambuf_iterator<char>(in)), {});
  // Fields after the command name, which is in parentheses and may hold spaces.
  const size_t close = text.rfind(')');
  if (close == std::string::npos) {
    return {};
  }
  std::vector<std::string> f = absl::StrSplit(text.substr(close + 2), ' ');
  auto field = [&](int n) {  // n as numbered in proc(5)
    double v = 0;
    (void)absl::SimpleAtod(f[static_cast<size_t>(n - 3)], &v);
    return v / static_cast<double>(sysconf(_SC_CLK_TCK));
  };
  return {field(14) + field(15), field(16) + field(17)};
}

// The ceiling: `threads` threads each spawning `script` and waiting for it, for `seconds`.
double SpawnCeiling(const std::string& script, int threads, absl::Duration seconds) {
  std::atomic<int64_t> done{0};
  const absl::Time end = absl::Now() + seconds;
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      char* argv[] = {const_cast<char*>(script.c_str()), nullptr};
      while (absl::Now() < end) {
        pid_t pid;
        if (posix_spawn(&pid, script.c_str(), nullptr, nullptr, argv, environ) != 0) {
          Die("posix_spawn " + script + " failed");
        }
        int status;
        waitpid(pid, &status, 0);
        ++done;
      }
    });
  }
  const absl::Time start = absl::Now();
  for (std::thread& w : workers) {
    w.join();
  }
  return static_cast<double>(done.load()) / absl::ToDoubleSeconds(absl::Now() - start);
}

// What sbatch -o /dev/null --wrap true submits, from sbatch's own option parser and spec builder.
canopy::v1::SubmitJobRequest WrapTrueRequest(const std::string& work_dir) {
  const std::vector<std::string> args = {"-o", "/dev/null", "--wrap", "true"};
  ctl::sbatch::SubmitContext context;
  context.script = ctl::sbatch::WrapScript("true");
  context.default_name = "wrap";
  context.cwd = work_dir;
  context.env = {{"PATH", "/usr/bin:/bin"}, {"HOME", work_dir}};
  context.now = absl::Now();
  context.short_hostname = "localhost";
  context.caller_uid = getuid();
  absl::StatusOr<slurm::SbatchOptions> options =
      slurm::ParseSbatch(context.script, args, context.env, {});
  if (!options.ok()) {
    Die(std::string(options.status().message()));
  }
  absl::StatusOr<canopy::v1::JobSpec> spec = ctl::sbatch::BuildJobSpec(*options, context);
  if (!spec.ok()) {
    Die(std::string(spec.status().message()));
  }
  canopy::v1::SubmitJobRequest request;
  *request.mutable_spec() = *std::move(spec);
  return request;
}

// Jobs the controller still holds as queued or running.
int64_t ActiveJobs(ctl::client::ControllerClient& client) {
  canopy::v1::ListJobsRequest req;
  for (canopy::v1::JobState s : {canopy::v1::JOB_STATE_PENDING, canopy::v1::JOB_STATE_CONFIGURING,
                                 canopy::v1::JOB_STATE_RUNNING, canopy::v1::JOB_STATE_COMPLETING}) {
    req.add_states(s);
  }
  // Only the count is used: ask for ids, as a poller would, so that what the sampler costs
  // canopyd (4 lists a second of some 2,000 jobs) stays small beside the jobs it measures.
  req.mutable_read_mask()->add_paths("job_id");
  const absl::StatusOr<canopy::v1::ListJobsResponse> resp = client.ListJobs(req);
  if (!resp.ok()) {
    Die("ListJobs: " + std::string(resp.status().message()));
  }
  return resp->jobs_size();
}

// Jobs completed over `window`, after a 5 s warm-up: `completed` (jobs submitted that the
// controller no longer holds) is sampled every `poll`; `at_start` and `at_end` run as the window
// opens and closes (CPU times, submission counts).
struct Window {
  double jobs = 0;
  double seconds = 0;
};
Window MeasureWindow(absl::FunctionRef<int64_t()> completed, absl::Duration window,
                     absl::Duration poll, absl::FunctionRef<void()> at_start,
                     absl::FunctionRef<void()> at_end) {
  absl::SleepFor(absl::Seconds(5));
  const int64_t done_at_start = completed();
  at_start();
  const absl::Time start = absl::Now();
  int64_t done_now = done_at_start;
  while (absl::Now() - start < window) {
    absl::SleepFor(poll);
    done_now = completed();
  }
  Window w{static_cast<double>(done_now - done_at_start),
           absl::ToDoubleSeconds(absl::Now() - start)};
  at_end();
  return w;
}

// A system driven through its command line.
struct CliRun {
  std::string label;
  std::string sbatch;
  std::string squeue;
  std::map<std::string, std::string> env;
};

// Jobs the system's squeue lists as queued or running.
int64_t CliActiveJobs(const CliRun& run) {
  const testing::CommandResult r =
      testing::RunCommand({run.squeue, "-h", "-t", "PD,CF,R,CG", "-o", "%i"}, run.env);
  if (r.exit_code != 0) {
    Die(absl::StrCat(run.label, ": squeue failed: ", r.err));
  }
  return static_cast<int64_t>(std::count(r.out.begin(), r.out.end(), '\n'));
}

// 8 threads running sbatch one after another for the warm-up and the window; prints the rate of
// completed jobs over the window.
void MeasureCli(const CliRun& run, absl::Duration window) {
  // What an earlier measure left running ends first.
  testing::WaitUntil([&] { return CliActiveJobs(run) == 0; }, absl::Seconds(120));
  std::atomic<int64_t> submitted{0};
  std::atomic<int64_t> active{0};
  std::atomic<bool> stop{false};
  std::atomic<int64_t> failed{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < kClientThreads; ++t) {
    clients.emplace_back([&] {
      while (!stop.load()) {
        if (active.load() >= kKeepInController) {
          absl::SleepFor(absl::Milliseconds(10));
          continue;
        }
        const testing::CommandResult r = testing::RunCommand(
            {run.sbatch, "-o", "/dev/null", "--wrap", "true"}, run.env, absl::Seconds(120));
        if (r.exit_code == 0) {
          ++submitted;
          ++active;
        } else if (failed++ == 0) {
          std::fprintf(stderr, "%s: sbatch failed (%d): %s\n", run.label.c_str(), r.exit_code,
                       r.err.c_str());
        }
      }
    });
  }
  auto completed = [&] {
    const int64_t before = submitted.load();
    const int64_t now_active = CliActiveJobs(run);
    active = now_active;
    return before - now_active;
  };
  int64_t submitted_in_window = 0;
  const Window w = MeasureWindow(
      completed, window, absl::Milliseconds(500), [&] { submitted_in_window = -submitted.load(); },
      [&] { submitted_in_window += submitted.load(); });
  stop = true;
  for (std::thread& c : clients) {
    c.join();
  }
  std::printf(
      "%s: %d threads running `sbatch -o /dev/null --wrap true`: %.0f submitted/s, %.0f "
      "jobs/s completed (%lld failed submissions)\n",
      run.label.c_str(), kClientThreads, submitted_in_window / w.seconds, w.jobs / w.seconds,
      static_cast<long long>(failed.load()));
  std::fflush(stdout);
}

int Run() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "canopy-e2e-XXXXXX").string();
  const std::string dir = mkdtemp(tmpl.data());
  chmod(dir.c_str(), 0755);
  const absl::Duration window = absl::Seconds(Seconds());
  const canopy::v1::SubmitJobRequest request = WrapTrueRequest(dir);

  // 1. The ceiling, with the very script the agent will run.
  const std::string script = dir + "/script";
  std::ofstream(script) << request.spec().script();
  chmod(script.c_str(), 0755);
  const double ceiling = SpawnCeiling(script, kClientThreads, absl::Seconds(5));
  std::printf("ceiling: %d threads spawning the wrap script and waiting: %.0f/s\n", kClientThreads,
              ceiling);
  std::fflush(stdout);

  // 2. canopyd and one agent with the 16 nodes. MaxJobCount is raised: finished jobs stay in the
  // controller for MinJobAge (300 s), and the default 10,000 would refuse submissions.
  for (const char* name : {"slurm.conf", "topology.conf"}) {
    std::filesystem::copy_file(absl::StrCat(CANOPY_TEST_DATA_DIR, "/clusters/demo-16/", name),
                               dir + "/" + name);
  }
  std::ofstream(dir + "/slurm.conf", std::ios::app) << "\nMaxJobCount=1000000\n";
  absl::StatusOr<testing::Subprocess> started = testing::Subprocess::Start(
      {CanopydPath(), "--config", dir + "/slurm.conf", "--listen", "127.0.0.1:0", "--state_dir",
       dir + "/state", "--port_file", dir + "/port", "--log_level", "warn"},
      {}, dir + "/canopyd.log");
  if (!started.ok()) {
    Die(std::string(started.status().message()));
  }
  std::optional<testing::Subprocess> canopyd(*std::move(started));
  if (!testing::WaitUntil([&] { return std::filesystem::exists(dir + "/port"); },
                          absl::Seconds(60))) {
    Die("canopyd did not start: see " + dir + "/canopyd.log");
  }
  std::string port;
  std::ifstream(dir + "/port") >> port;
  std::vector<std::string> agent_argv = {AgentPath(),       "--controller", "127.0.0.1:" + port,
                                         "--virtual_nodes", "gpu[001-016]", "--spool_dir",
                                         SpoolDir(dir),     "--log_level",  "warn"};
  if (geteuid() == 0) {
    agent_argv.push_back("--allow_root_jobs");
  }
  started = testing::Subprocess::Start(agent_argv, {{"SLURM_CONF", dir + "/slurm.conf"}},
                                       dir + "/agent.log");
  if (!started.ok()) {
    Die(std::string(started.status().message()));
  }
  std::optional<testing::Subprocess> agent(*std::move(started));
  // The benchmark speaks to canopyd as the command line does (ctl/client): each thread, as an
  // sbatch process would, with a connection of its own (CANOPY_CLI_TRANSPORT=grpc: through
  // gRPC's client runtime instead, as before 2026-12-07).
  const std::string controller = absl::StrCat("unix:", dir, "/state/canopyd.sock");
  absl::StatusOr<ctl::client::ControllerClient> sampler =
      ctl::client::ControllerClient::Connect(controller);
  if (!sampler.ok()) {
    Die("connecting to canopyd: " + std::string(sampler.status().message()));
  }
  const bool up = testing::WaitUntil(
      [&] {
        const absl::StatusOr<canopy::v1::ListNodesResponse> resp =
            sampler->ListNodes(canopy::v1::ListNodesRequest());
        if (!resp.ok()) {
          return false;
        }
        int idle = 0;
        for (const canopy::v1::Node& n : resp->nodes()) {
          idle += n.state() == canopy::v1::NODE_STATE_IDLE ? 1 : 0;
        }
        return idle == 16;
      },
      absl::Seconds(60));
  if (!up) {
    Die("the agent's 16 nodes did not come up: see " + dir + "/agent.log");
  }

  // 3. Eight submitters, a sampler of the controller's active jobs.
  std::atomic<int64_t> submitted{0};
  std::atomic<int64_t> active{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> clients;
  for (int t = 0; t < kClientThreads; ++t) {
    clients.emplace_back([&] {
      absl::StatusOr<ctl::client::ControllerClient> client =
          ctl::client::ControllerClient::Connect(controller);
      if (!client.ok()) {
        Die("connecting to canopyd: " + std::string(client.status().message()));
      }
      while (!stop.load()) {
        // Only the sampler's view of the controller, so a little over the mark at times.
        if (active.load() >= kKeepInController) {
          absl::SleepFor(absl::Milliseconds(1));
          continue;
        }
        const absl::StatusOr<canopy::v1::SubmitJobResponse> resp = client->SubmitJob(request);
        if (resp.ok()) {
          ++submitted;
          ++active;  // until the sampler looks again
        } else if (absl::IsResourceExhausted(resp.status())) {
          absl::SleepFor(absl::Milliseconds(1));
        } else {
          Die("SubmitJob: " + std::string(resp.status().message()));
        }
      }
    });
  }
  auto completed = [&] {
    const int64_t before = submitted.load();
    const int64_t now_active = ActiveJobs(*sampler);
    active = now_active;
    return before - now_active;  // a job submitted meanwhile counts as active: never over
  };
  CpuTimes canopyd_start, agent_start, canopyd_end, agent_end, bench_start, bench_end;
  const Window w = MeasureWindow(
      completed, window, absl::Milliseconds(250),
      [&] {
        canopyd_start = CpuOf(canopyd->pid());
        agent_start = CpuOf(agent->pid());
        bench_start = CpuOf(getpid());
      },
      [&] {
        canopyd_end = CpuOf(canopyd->pid());
        agent_end = CpuOf(agent->pid());
        bench_end = CpuOf(getpid());
      });
  stop = true;
  for (std::thread& c : clients) {
    c.join();
  }
  const double jobs = w.jobs;
  const double elapsed = w.seconds;
  if (jobs <= 0) {
    Die("no job completed in the window: see " + dir + "/agent.log and canopyd.log");
  }
  const double rate = jobs / elapsed;
  std::printf(
      "end to end: %d submitting threads, 16 nodes: %.0f jobs/s completed (%.0f in %.1f s)"
      ", %.0f%% of the ceiling\n",
      kClientThreads, rate, jobs, elapsed, 100 * rate / ceiling);
  const double per_job = 1e3 / jobs;
  if (std::getenv("CANOPY_E2E_AGENT") != nullptr) {
    std::printf("agent: %s\n", AgentPath().c_str());
  }
  if (std::getenv("CANOPY_E2E_CANOPYD") != nullptr) {
    std::printf("canopyd: %s\n", CanopydPath().c_str());
  }
  std::printf(
      "CPU per job: canopyd %.2f ms, canopy-agent %.2f ms, the jobs' processes %.2f ms, the "
      "submitters and sampler (this process) %.2f ms\n",
      (canopyd_end.self - canopyd_start.self) * per_job,
      (agent_end.self - agent_start.self) * per_job,
      (agent_end.children - agent_start.children) * per_job,
      (bench_end.self - bench_start.self) * per_job);
  // 4. The command line: Canopy's sbatch, then Slurm's when one runs here (not in A/B runs of
  // the API path alone, CANOPY_E2E_NO_CLI).
  if (std::getenv("CANOPY_E2E_NO_CLI") == nullptr) {
    const std::string bin = dir + "/bin";
    std::filesystem::create_directories(bin);
    if (testing::RunCommand({CANOPYCTL_PATH, "install-links", bin}).exit_code != 0) {
      Die("canopyctl install-links failed");
    }
    CliRun canopy_cli{"Canopy (its sbatch)",
                      bin + "/sbatch",
                      bin + "/squeue",
                      {{"SLURM_CONF", dir + "/slurm.conf"},
                       {"CANOPY_CONTROLLER", absl::StrCat("unix:", dir, "/state/canopyd.sock")}}};
    MeasureCli(canopy_cli, window);
    if (const char* slurm_conf = std::getenv("SLURM_COMPARE_CONF"); slurm_conf != nullptr) {
      MeasureCli(CliRun{"Slurm (/usr/bin/sbatch)",
                        "/usr/bin/sbatch",
                        "/usr/bin/squeue",
                        {{"SLURM_CONF", slurm_conf}}},
                 window);
    }
  }
  // Leave nothing behind: the processes die with their Subprocess (whole process groups).
  agent.reset();
  canopyd.reset();
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return 0;
}

}  // namespace
}  // namespace canopy

int main() { return canopy::Run(); }
