// canopy-agent: registers this host (or many virtual nodes) with canopyd and keeps one stream
// per node open.
//
//   canopy-agent --controller 127.0.0.1:6817
//   canopy-agent --virtual-nodes 'gpu[001-016]' --gpu_provider fake    (demos, tests, scale runs)
//
// The controller address comes from --controller, else $CANOPY_CONTROLLER, else the cluster
// config ($CANOPY_CONFIG or $SLURM_CONF). With a config, virtual nodes report the CPUs, memory
// and GPU count configured for them (like slurmd's config_overrides), so a laptop can host a
// 16-node H100 cluster.
#include <pthread.h>
#include <pwd.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <memory>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "agent/runtime/cgroup.h"
#include "agent/runtime/cgroup_v1.h"
#include "agent/runtime/child_reaper.h"
#include "agent/runtime/job_limits.h"
#include "agent/server/agent_metrics.h"
#include "agent/server/agent_setup.h"
#include "agent/server/agent_spank.h"
#include "agent/server/node_session.h"
#include "common/config/canopy_conf.h"
#include "common/log/setup.h"
#include "common/metrics/metrics_endpoint.h"
#include "common/os/gnu_flags.h"
#include "common/os/release_mutexes.h"
#include "common/os/systemd_notify.h"
#include "common/os/thread_name.h"
#include "common/rpc/controller_target.h"
#include "spdlog/spdlog.h"

ABSL_FLAG(std::string, controller, "", "controller address HOST:PORT or unix:/path");
ABSL_FLAG(std::string, virtual_nodes, "",
          "host these nodes in this process (hostlist, e.g. 'gpu[001-016]'), one stream each");
ABSL_FLAG(std::string, node_name, "", "this node's name (default: the short host name)");
ABSL_FLAG(std::string, tls_cert, "",
          "this host's certificate (PEM) for TLS to canopyd; default: the config's "
          "tls_agent_cert. It must name the host's nodes (docs/security.md)");
ABSL_FLAG(std::string, tls_key, "", "the key of --tls_cert; default: the config's tls_agent_key");
ABSL_FLAG(std::string, gpu_provider, "auto",
          "auto (NVML if present, else none; fake for virtual nodes), nvml, fake, none");
ABSL_FLAG(int, fake_gpus, -1,
          "GPUs per node for the fake provider (default: as configured, else 8)");
ABSL_FLAG(std::string, fake_gpu_model, "NVIDIA H100 80GB HBM3", "model name of fake GPUs");
ABSL_FLAG(std::string, fake_gpu_faults, "",
          "file of injected GPU faults for the fake provider: lines 'NODE INDEX REASON'");
ABSL_FLAG(std::string, fake_gpu_device_files, "",
          "character devices standing for the fake GPUs' device files, which jobs may open only "
          "for their own GPUs: a pattern, %n the node's name, %d the GPU index");
ABSL_FLAG(int, cpus, 0, "CPUs to report (default: as configured for virtual nodes, else real)");
ABSL_FLAG(int64_t, memory_mib, 0, "memory to report in MiB (default: as configured / real)");
ABSL_FLAG(std::string, spool_dir, "",
          "where batch scripts are written (default: /var/spool/canopy as root, else "
          "$TMPDIR/canopy-agent-<uid>); virtual nodes get one subdirectory each");
ABSL_FLAG(std::string, log_level, "info", "trace, debug, info, warn, error");
ABSL_FLAG(std::string, log_format, "text",
          "text, or json: one JSON object per line (time, level, program, msg) for log shippers");
ABSL_FLAG(std::string, log_file, "",
          "write the log to this file instead of stderr; SIGUSR2 reopens it (logrotate)");
ABSL_FLAG(std::string, metrics_listen, "",
          "HOST:PORT to serve Prometheus metrics of the hosted nodes and their GPUs on "
          "(/metrics; port 0: any free port); default: the config's agent_metrics_listen, else "
          "none");
ABSL_FLAG(uint32_t, min_job_uid, 1000,
          "as root, run no job of a uid below this (system accounts), nor of a uid this node does "
          "not know");
ABSL_FLAG(bool, allow_root_jobs, false, "as root, also run jobs submitted by root");
ABSL_FLAG(std::string, spank_task_helper, "",
          "the SPANK task helper tasks start through when plugstack.conf names plugins "
          "(default: canopy-spank-task beside this program)");

int main(int argc, char** argv) {
  canopy::os::SwitchOffMutexDeadlockDetection();
  absl::SetProgramUsageMessage(
      "the Canopy node agent.\n  canopy-agent [--controller HOST:PORT] [--virtual-nodes EXPR]");
  absl::FlagsUsageConfig usage_config;  // --version: the program and Canopy's version
  usage_config.version_string = [] { return absl::StrCat("canopy-agent ", CANOPY_VERSION, "\n"); };
  absl::SetFlagsUsageConfig(usage_config);
  canopy::os::AcceptDashedFlags(argc, argv);  // --state-dir as well as --state_dir
  absl::ParseCommandLine(argc, argv);
  if (std::string error; !canopy::log::SetUpLogging("canopy-agent", absl::GetFlag(FLAGS_log_level),
                                                    absl::GetFlag(FLAGS_log_format),
                                                    absl::GetFlag(FLAGS_log_file), error)) {
    std::fprintf(stderr, "canopy-agent: %s\n", error.c_str());
    return 2;
  }

  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGUSR2);  // logrotate: reopen --log-file
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  absl::StatusOr<std::string> target =
      canopy::rpc::ResolveControllerTarget(absl::GetFlag(FLAGS_controller), false);
  if (!target.ok()) {
    std::fprintf(stderr, "canopy-agent: %s\n", std::string(target.status().message()).c_str());
    return 1;
  }

  canopy::agent::AgentOptions options;
  options.virtual_nodes = absl::GetFlag(FLAGS_virtual_nodes);
  options.node_name = absl::GetFlag(FLAGS_node_name);
  options.tls_cert = absl::GetFlag(FLAGS_tls_cert);
  options.tls_key = absl::GetFlag(FLAGS_tls_key);
  options.gpu_provider = absl::GetFlag(FLAGS_gpu_provider);
  options.fake_gpus = absl::GetFlag(FLAGS_fake_gpus);
  options.fake_gpu_model = absl::GetFlag(FLAGS_fake_gpu_model);
  options.fake_gpu_faults = absl::GetFlag(FLAGS_fake_gpu_faults);
  options.fake_gpu_device_files = absl::GetFlag(FLAGS_fake_gpu_device_files);
  options.cpus = absl::GetFlag(FLAGS_cpus);
  options.memory_mib = absl::GetFlag(FLAGS_memory_mib);
  options.spool_dir = absl::GetFlag(FLAGS_spool_dir);
  options.min_job_uid = absl::GetFlag(FLAGS_min_job_uid);
  options.allow_root_jobs = absl::GetFlag(FLAGS_allow_root_jobs);
  if (options.spool_dir.empty()) {
    options.spool_dir = canopy::agent::DefaultSpoolDir();
  }
  const std::optional<canopy::config::ClusterConfig> config = canopy::agent::FindClusterConfig();
  // The site's SPANK plugins, in slurmd's place: slurm_spank_init now, slurmd_exit at the end.
  absl::StatusOr<std::unique_ptr<canopy::agent::AgentSpank>> spank =
      canopy::agent::AgentSpank::Start(config, absl::GetFlag(FLAGS_spank_task_helper));
  if (!spank.ok()) {
    std::fprintf(stderr, "canopy-agent: %s\n", std::string(spank.status().message()).c_str());
    return 1;
  }
  options.spank = (*spank)->settings();
  options.scripts = (*spank)->scripts();

  // One reaper for every node's jobs (it makes this process their subreaper).
  absl::StatusOr<std::unique_ptr<canopy::agent::runtime::ChildReaper>> reaper =
      canopy::agent::runtime::ChildReaper::Create();
  if (!reaper.ok()) {
    std::fprintf(stderr, "canopy-agent: %s\n", std::string(reaper.status().message()).c_str());
    return 1;
  }
  // Job cgroups live under canopy-agent-<pid> in the agent's own (delegated) cgroup: the pid
  // keeps several agents on one host (tests, virtual clusters) apart.
  std::unique_ptr<canopy::agent::runtime::Cgroup> agent_cgroup;
  if (absl::StatusOr<std::string> root = canopy::agent::runtime::Cgroup::FindDelegatedRoot();
      root.ok()) {
    // Jobs of an agent that died here (kill -9, crash) were requeued or ended by the controller
    // meanwhile: whatever of them still runs must go before this agent takes new work.
    canopy::agent::runtime::Cgroup::SweepDeadAgents(*root);
    // And their job limits' directories in the v1 hierarchies of a hybrid host.
    for (const char* controller : {"memory", "cpuset"}) {
      if (absl::StatusOr<std::string> v1 = canopy::agent::runtime::FindCgroupV1Root(controller);
          v1.ok()) {
        canopy::agent::runtime::Cgroup::SweepDeadAgents(*v1);
      }
    }
    // Jobs' memory and CPU limits need the controllers passed down from the agent's cgroup.
    // cgroup v2 allows that only from a cgroup with no process of its own (the hierarchy's
    // root aside), and enabling a threaded controller (cpuset) in one that has processes makes
    // its subtree threaded, where no job's cgroup could take a process: so the agent first
    // moves itself into a leaf when it has the cgroup to itself, and else passes nothing down.
    bool may_pass = canopy::agent::runtime::Cgroup::InHierarchyRoot();
    if (!may_pass) {
      absl::StatusOr<std::string> leaf = canopy::agent::runtime::Cgroup::MoveSelfToLeaf(*root);
      may_pass = leaf.ok();
      if (leaf.ok()) {
        spdlog::info("moved the agent into {} so that {} can pass controllers to jobs", *leaf,
                     *root);
      } else {
        spdlog::info("the agent stays in {}: {}", *root, std::string(leaf.status().message()));
      }
    }
    std::vector<std::string> on;
    if (may_pass) {
      on = canopy::agent::runtime::EnableCgroupControllers(*root);
    }
    if (on.size() < 2) {
      spdlog::info(
          "cgroup v2 controllers passed to jobs from {}: {} (memory and cpuset are "
          "needed for jobs' memory and CPU limits; v1 hierarchies are used where "
          "mounted)",
          *root, on.empty() ? "none" : absl::StrJoin(on, ", "));
    }
    absl::StatusOr<std::unique_ptr<canopy::agent::runtime::Cgroup>> cg =
        canopy::agent::runtime::Cgroup::Create(*root, absl::StrCat("canopy-agent-", getpid()));
    if (cg.ok()) {
      agent_cgroup = *std::move(cg);
      options.cgroup_parent = agent_cgroup->path();
      spdlog::info("job cgroups: under {}", options.cgroup_parent);
    } else {
      spdlog::info("job cgroups unavailable ({}); jobs are tracked by process group only",
                   std::string(cg.status().message()));
    }
  } else {
    spdlog::info("job cgroups unavailable ({}); jobs are tracked by process group only",
                 std::string(root.status().message()));
  }

  absl::StatusOr<std::vector<std::unique_ptr<canopy::agent::NodeSession>>> sessions =
      canopy::agent::CreateSessions(*target, options, config, reaper->get());
  if (!sessions.ok()) {
    std::fprintf(stderr, "canopy-agent: %s\n", std::string(sessions.status().message()).c_str());
    return 1;
  }
  if (geteuid() != 0) {
    const passwd* pw = getpwuid(geteuid());
    spdlog::warn("not running as root: jobs run as {}",
                 pw != nullptr ? std::string(pw->pw_name) : absl::StrCat("uid ", geteuid()));
  }
  spdlog::info("canopy-agent {}: {} node(s), controller {}", CANOPY_VERSION, sessions->size(),
               *target);
  // The hosted nodes' and their GPUs' figures for Prometheus.
  std::string metrics_listen = absl::GetFlag(FLAGS_metrics_listen);
  const char* metrics_field = "--metrics_listen";
  if (metrics_listen.empty() && config.has_value()) {
    metrics_listen = config->agent_metrics_listen;
    metrics_field = "agent_metrics_listen";
  }
  std::unique_ptr<canopy::metrics::MetricsEndpoint> metrics_endpoint;
  if (!metrics_listen.empty()) {
    absl::Status valid = canopy::config::CheckListenAddress(metrics_field, metrics_listen);
    std::vector<canopy::agent::NodeSession*> hosted;
    for (auto& s : *sessions) {
      s->set_collect_telemetry(true);
      hosted.push_back(s.get());
    }
    absl::StatusOr<std::unique_ptr<canopy::metrics::MetricsEndpoint>> endpoint =
        valid.ok() ? canopy::metrics::MetricsEndpoint::Start(
                         metrics_field, metrics_listen,
                         {std::make_shared<canopy::agent::AgentMetrics>(std::move(hosted))})
                   : absl::StatusOr<std::unique_ptr<canopy::metrics::MetricsEndpoint>>(valid);
    if (!endpoint.ok()) {
      std::fprintf(stderr, "canopy-agent: %s\n", std::string(endpoint.status().message()).c_str());
      return 1;
    }
    metrics_endpoint = *std::move(endpoint);
    spdlog::info("Prometheus metrics on http://{}:{}/metrics",
                 metrics_listen.substr(0, metrics_listen.rfind(':')), metrics_endpoint->port());
  }
  for (auto& s : *sessions) {
    s->Start();
  }

  // Fencing has a thread of its own: nothing the ticker waits on (a GPU query, a stream write)
  // may hold back the kill of jobs the controller is about to run elsewhere.
  std::atomic<bool> stopping{false};
  std::thread fencer([&sessions, &stopping] {
    canopy::os::NameThisThread("fencer");
    while (!stopping.load()) {
      for (auto& s : *sessions) {
        s->CheckFence();
      }
      absl::SleepFor(absl::Milliseconds(100));
    }
  });
  // The main thread is the ticker: heartbeats and GPU health checks for every session, and the
  // place where a stop signal is received.
  const timespec tick = {0, 200 * 1000 * 1000};
  canopy::os::NotifyReady(absl::StrCat(sessions->size(), " node(s), controller ", *target));
  // systemd's watchdog (WatchdogSec=, far above the tick) hears from the ticker itself: a
  // ticker stuck in a GPU query stops the keep-alives.
  const bool watchdog = canopy::os::WatchdogInterval() > absl::ZeroDuration();
  while (true) {
    const int sig = sigtimedwait(&stop_signals, nullptr, &tick);
    if (sig == SIGINT || sig == SIGTERM) {
      spdlog::info("received {}, disconnecting", strsignal(sig));
      canopy::os::NotifyStopping();
      break;
    }
    if (sig == SIGUSR2) {
      canopy::log::ReopenLogFile();
    }
    if (watchdog) {
      canopy::os::NotifyWatchdog();
    }
    // Heartbeats keep time on the monotonic clock, as the fence does: a step of the wall clock
    // must not hold them back (the controller would mark the node DOWN and the agent fence).
    const absl::Time now = canopy::agent::MonotonicNow();
    for (auto& s : *sessions) {
      s->Tick(now);
    }
  }
  stopping.store(true);
  fencer.join();
  // Stop() also kills each node's jobs: a restarted agent does not re-adopt them.
  for (auto& s : *sessions) {
    s->Stop();
  }
  sessions->clear();  // before agent_cgroup and the reaper, which the sessions use
  // The nodes' job-limit directories are gone with the sessions; their parent in each v1
  // hierarchy was made by whichever node came first and left while the others were in it.
  for (const char* controller : {"memory", "cpuset"}) {
    if (absl::StatusOr<std::string> v1 = canopy::agent::runtime::FindCgroupV1Root(controller);
        v1.ok()) {
      rmdir(absl::StrCat(*v1, "/canopy-agent-", getpid()).c_str());
    }
  }
  return 0;
}
