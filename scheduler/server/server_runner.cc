#include "scheduler/server/server_runner.h"

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/auth/tls_credentials.h"
#include "common/config/canopy_conf.h"
#include "common/log/absl_format.h"
#include "common/log/setup.h"
#include "common/metrics/metrics_endpoint.h"
#include "common/os/hostname.h"
#include "common/os/systemd_notify.h"
#include "common/rpc/message_limits.h"
#include "grpcpp/health_check_service_interface.h"
#include "grpcpp/resource_quota.h"
#include "grpcpp/server_builder.h"
#include "scheduler/core/clock.h"
#include "scheduler/persistence/sqlite_history_reader.h"
#include "scheduler/persistence/sqlite_store.h"
#include "scheduler/server/agent_service.h"
#include "scheduler/server/audit_log.h"
#include "scheduler/server/controller.h"
#include "scheduler/server/controller_service.h"
#include "scheduler/server/daemon_setup.h"
#include "scheduler/server/denial_log.h"
#include "scheduler/server/reconfigure.h"
#include "scheduler/server/reflection_service.h"
#include "scheduler/server/snapshot_metrics.h"
#include "scheduler/server/unix_peer_listener.h"
#include "scheduler/topology/load_topology.h"
#include "scheduler/web/web_server.h"
#include "spdlog/spdlog.h"

namespace canopy::server {
namespace {

// Blocks SIGINT/SIGTERM/SIGHUP/SIGUSR2 in this thread (and every thread it starts later, gRPC's
// included), so that the main thread's sigwait receives them instead of a handler running
// anywhere. (The mask survives the exec of a reconfigure, which blocks them again anyway.)
sigset_t BlockStopSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  sigaddset(&set, SIGUSR2);  // logrotate: reopen --log-file
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  return set;
}

absl::Status WritePortFile(const std::string& path, int port) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    out << port << "\n";
    if (!out) {
      return absl::PermissionDeniedError(absl::StrCat("cannot write ", tmp));
    }
  }
  // Rename so a reader never sees a half-written file.
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    return absl::PermissionDeniedError(absl::StrCat("cannot write ", path, ": ", ec.message()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ServerExit> RunServer(config::ClusterConfig config, const ServerOptions& options) {
  const sigset_t stop_signals = BlockStopSignals();

  if (!options.state_dir.empty()) {
    config.state_dir = options.state_dir;
    config.unix_socket = absl::StrCat(options.state_dir, "/canopyd.sock");
  }
  std::string listen = options.listen;
  if (listen.empty()) {
    absl::StatusOr<std::string> addr = config::ControllerAddress(config);
    if (!addr.ok()) {
      return absl::FailedPreconditionError(absl::StrCat(
          config.path, ": no address to listen on (set the controller host, or pass --listen)"));
    }
    listen = *addr;
  }
  if (absl::Status s = config::CheckSecurity(config.security, listen.substr(0, listen.rfind(':')));
      !s.ok()) {
    return s;
  }
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> server_credentials =
      auth::ServerCredentials(config.security);
  if (!server_credentials.ok()) {
    return server_credentials.status();
  }

  absl::StatusOr<topology::Topology> topo = topology::LoadTopology(config);
  if (!topo.ok()) {
    return topo.status();
  }
  auto topology = std::make_shared<const topology::Topology>(*std::move(topo));

  absl::StatusOr<os::UniqueFd> lock = LockStateDir(config.state_dir);
  if (!lock.ok()) {
    return lock.status();
  }
  const std::string db_path = absl::StrCat(config.state_dir, "/canopy.db");
  absl::StatusOr<std::unique_ptr<persistence::SqliteStore>> store =
      persistence::SqliteStore::Open(db_path, topology);
  if (!store.ok()) {
    return store.status();
  }
  // The unix socket is ours (we hold the state-dir lock), so Listen() may remove a leftover file
  // from a killed canopyd. canopyd accepts on it itself to learn each caller's uid/gid/pid.
  const std::string socket_path = config.unix_socket;
  absl::StatusOr<std::unique_ptr<UnixPeerListener>> peers = UnixPeerListener::Listen(socket_path);
  if (!peers.ok()) {
    return peers.status();
  }

  auto shared_config = std::make_shared<const config::ClusterConfig>(std::move(config));
  core::SystemClock clock;
  absl::StatusOr<std::unique_ptr<Controller>> controller =
      Controller::Create(shared_config, topology, *std::move(store), &clock);
  if (!controller.ok()) {
    return controller.status();
  }
  // Prometheus: what the controller counts, and its state read from snapshots at each scrape.
  std::unique_ptr<ControllerMetrics> controller_metrics;
  std::unique_ptr<metrics::MetricsEndpoint> exporter;
  if (!shared_config->metrics_listen.empty()) {
    controller_metrics = std::make_unique<ControllerMetrics>(absl::StrCat(db_path, "-wal"));
    (*controller)->set_metrics(controller_metrics.get());
    absl::StatusOr<std::unique_ptr<metrics::MetricsEndpoint>> started =
        metrics::MetricsEndpoint::Start(
            "metrics_listen", shared_config->metrics_listen,
            {std::make_shared<SnapshotMetrics>([c = controller->get()] { return c->Snapshot(); }),
             controller_metrics->Collectable()});
    if (!started.ok()) {
      return started.status();
    }
    exporter = *std::move(started);
  }
  (*controller)->Start();

  ControllerServiceImpl controller_service(controller->get(), os::Hostname(false), peers->get());
  // scontrol reconfigure checks the new file in the caller's thread, then hands the restart to
  // the main thread below, as SIGHUP does.
  controller_service.SetReconfigure(options.state_dir, [] { kill(getpid(), SIGHUP); });
  // sacct reads the database on a connection of its own (WAL: never blocks the owner's writes).
  absl::StatusOr<std::unique_ptr<persistence::SqliteHistoryReader>> history =
      persistence::SqliteHistoryReader::Open(db_path);
  if (!history.ok()) {
    (*controller)->Stop();
    return history.status();
  }
  controller_service.SetHistory(history->get());
  absl::StatusOr<std::unique_ptr<AuditLog>> audit =
      AuditLog::Open(absl::StrCat(shared_config->state_dir, "/audit.log"));
  if (!audit.ok()) {
    (*controller)->Stop();
    return audit.status();
  }
  controller_service.SetAuditLog(audit->get());
  controller_service.SetMaxWaitingSubmissions(options.max_rpc_threads);
  AgentServiceImpl agent_service(controller->get());
  std::unique_ptr<web::WebServer> web_view;
  if (const std::string& w = shared_config->web_listen; !w.empty()) {
    absl::StatusOr<std::unique_ptr<web::WebServer>> started =
        config::IsLoopbackListenAddress(w) || shared_config->web_allow_remote
            ? web::WebServer::Start("web_listen", w, &controller_service)
            : absl::FailedPreconditionError(absl::StrCat(
                  "web_listen: ", w,
                  " is reachable from other machines, and the cluster view needs no login; "
                  "set web_allow_remote: true to serve it there anyway (anonymous readers see "
                  "what anonymous gRPC callers do: no jobs under PrivateData=jobs)"));
    if (!started.ok()) {
      (*controller)->Stop();
      return started.status();
    }
    web_view = *std::move(started);
    spdlog::info("cluster view on http://{}:{}/", w.substr(0, w.rfind(':')), web_view->port());
  }

  grpc::EnableDefaultHealthCheckService(true);
  config::ClusterConfig::ReflectionAccess reflection_access = shared_config->grpc_reflection;
  if (options.grpc_reflection &&
      reflection_access == config::ClusterConfig::ReflectionAccess::kOff) {
    reflection_access = config::ClusterConfig::ReflectionAccess::kAuthenticated;
  }
  ReflectionService reflection(
      reflection_access, &controller_service.authenticator(),
      {canopy::v1::Controller::service_full_name(), canopy::v1::AgentService::service_full_name(),
       "grpc.health.v1.Health", grpc::reflection::v1alpha::ServerReflection::service_full_name()});
  grpc::ServerBuilder builder;
  grpc::ResourceQuota quota("canopyd");
  quota.SetMaxThreads(options.max_rpc_threads);
  builder.SetResourceQuota(quota);
  // gRPC's sync server keeps at most MAX_POLLERS idle threads and starts a thread whenever no
  // idle one is left: with its default (2) and a handful of concurrent clients it started and
  // ended a thread for nearly every call. Idle threads cost a stack each and nothing else.
  builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::MIN_POLLERS, 2);
  builder.SetSyncServerOption(grpc::ServerBuilder::SyncServerOption::MAX_POLLERS,
                              std::min(options.max_rpc_threads, 64));
  int tcp_port = 0;
  builder.AddListeningPort(listen, *server_credentials, &tcp_port);
  // Agents ping every 20 s to notice dead connections; accept that (gRPC's default would answer
  // pings more often than every 5 minutes with GOAWAY "too_many_pings", dropping 64 nodes).
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 10000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  // Explicit, above what the submit checks allow, so those answer first and in words.
  builder.SetMaxReceiveMessageSize(
      rpc::MaxRequestBytes(shared_config->scheduling.scheduler.parameters.max_script_size));
  builder.SetMaxSendMessageSize(rpc::kMaxReplyBytes);
  builder.RegisterService(&controller_service);
  builder.RegisterService(&agent_service);
  if (reflection_access != config::ClusterConfig::ReflectionAccess::kOff) {
    builder.RegisterService(&reflection);
  }
  std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>> creators;
  creators.push_back(std::make_unique<DenialLogInterceptorFactory>());
  if (controller_metrics != nullptr) {
    creators.push_back(std::make_unique<RpcMetricsInterceptorFactory>(controller_metrics.get()));
  }
  builder.experimental().SetInterceptorCreators(std::move(creators));
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || tcp_port == 0) {
    (*controller)->Stop();
    return absl::UnavailableError(absl::StrCat(
        "cannot listen on ", listen, " (address in use, or not an address of this machine?)"));
  }
  // Local connections queued since Listen() are served from here on.
  (*peers)->Start(server.get());
  server->GetHealthCheckService()->SetServingStatus(true);
  const std::string bound = listen.substr(0, listen.rfind(':'));
  spdlog::info("canopyd {} for cluster {}: {} nodes, listening on {}:{} and unix:{}, state in {}",
               CANOPY_VERSION, shared_config->cluster_name, shared_config->nodes.size(), bound,
               tcp_port, socket_path, shared_config->state_dir);
  if (exporter != nullptr) {
    const std::string& m = shared_config->metrics_listen;
    spdlog::info("Prometheus metrics on http://{}:{}/metrics", m.substr(0, m.rfind(':')),
                 exporter->port());
  }
  if (!options.port_file.empty()) {
    if (absl::Status s = WritePortFile(options.port_file, tcp_port); !s.ok()) {
      spdlog::error("{}", s.message());
    }
  }

  canopy::os::NotifyReady(
      absl::StrCat("serving ", shared_config->nodes.size(), " nodes on ", bound, ":", tcp_port));
  // Under systemd's watchdog (WatchdogSec=): a keep-alive only while the owner thread still runs
  // commands, so a controller stuck there is restarted rather than kept.
  std::atomic<bool> watchdog_stop{false};
  std::thread watchdog;
  if (const absl::Duration interval = canopy::os::WatchdogInterval();
      interval > absl::ZeroDuration()) {
    watchdog = std::thread([&, interval] {
      while (!watchdog_stop.load()) {
        if ((*controller)->OwnerResponds(interval / 3)) {
          canopy::os::NotifyWatchdog();
        }
        absl::SleepFor(interval / 3);
      }
    });
  }

  ServerExit exit;
  exit.bound_listen = absl::StrCat(bound, ":", tcp_port);
  while (true) {
    int signal_number = 0;
    sigwait(&stop_signals, &signal_number);
    if (signal_number == SIGUSR2) {
      log::ReopenLogFile();
      continue;
    }
    if (signal_number != SIGHUP) {
      spdlog::info("received {}, shutting down", strsignal(signal_number));
      break;
    }
    absl::StatusOr<ReconfigurePlan> plan =
        PrepareReconfigure(*shared_config, options.state_dir, *(*controller)->Snapshot());
    if (!plan.ok()) {
      spdlog::error("reconfigure refused, still running on the old configuration: {}",
                    plan.status().message());
      continue;
    }
    for (const std::string& change : plan->changes) {
      spdlog::info("reconfigure: {}", change);
    }
    spdlog::info("reconfigure: restarting on {} ({} change(s)); every job is in the database",
                 shared_config->path, plan->changes.size());
    canopy::os::NotifyReloading();  // the restarted canopyd says READY=1
    exit.restart = true;
    break;
  }
  if (!exit.restart) {
    canopy::os::NotifyStopping();
  }
  watchdog_stop = true;
  if (watchdog.joinable()) {
    watchdog.join();
  }
  server->GetHealthCheckService()->SetServingStatus(false);
  // No new local connections (this also removes the socket file); while the server still runs,
  // as Stop() requires.
  (*peers)->Stop();
  // Controller first: it closes the agents' streams, so the server's shutdown has nothing
  // long-lived to wait for.
  (*controller)->Stop();
  // Submissions the controller answered may still wait for their audit records: written, and
  // their calls ended, before the server goes (nothing is audited once the controller stopped).
  controller_service.SetAuditLog(nullptr);
  audit->reset();
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  return exit;
}

}  // namespace canopy::server
