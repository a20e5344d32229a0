// canopyd: the Canopy controller.
//
//   canopyd --config /etc/canopy/canopy.yaml
//   canopyd --config /etc/slurm/slurm.conf      (listens on SlurmctldHost:SlurmctldPort and keeps
//                                              its state in StateSaveLocation)
//
// Start-up order: config -> topology -> state dir lock -> database -> controller -> gRPC.
// SIGINT/SIGTERM stop it cleanly; kill -9 loses nothing that was acknowledged. SIGHUP (or
// scontrol reconfigure) re-reads the config: when the new one is good, canopyd stops cleanly
// and execs itself again with the same arguments and pid (reconfigure.h).
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/config/cluster_config.h"
#include "common/log/setup.h"
#include "common/os/gnu_flags.h"
#include "common/os/release_mutexes.h"
#include "scheduler/server/daemon_setup.h"
#include "scheduler/server/server_runner.h"
#include "spdlog/spdlog.h"

ABSL_FLAG(std::string, config, "",
          "Canopy YAML (*.yaml) or Slurm slurm.conf; default $CANOPY_CONFIG, then $SLURM_CONF");
ABSL_FLAG(std::string, listen, "",
          "TCP address to listen on, HOST:PORT (port 0 = any free port); default from the config");
ABSL_FLAG(std::string, state_dir, "", "directory for the database and socket; default from config");
ABSL_FLAG(std::string, port_file, "", "write the TCP port actually bound to this file (tests)");
ABSL_FLAG(std::string, log_level, "info", "trace, debug, info, warn, error");
ABSL_FLAG(std::string, log_format, "text",
          "text, or json: one JSON object per line (time, level, program, msg) for log shippers");
ABSL_FLAG(std::string, log_file, "",
          "write the log to this file instead of stderr; SIGUSR2 reopens it (logrotate)");
ABSL_FLAG(int, max_rpc_threads, 128,
          "threads serving clients' RPCs at most; a call beyond them is refused with "
          "RESOURCE_EXHAUSTED (clients retry) rather than starting one more thread");
ABSL_FLAG(bool, grpc_reflection, false,
          "serve gRPC server reflection (grpcurl without the .proto files) to authenticated "
          "callers (unix socket, MUNGE, TLS client certificate) even where the configuration's "
          "grpc_reflection is off");

namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "canopyd: %s\n", message.c_str());
  return 1;
}

// Replaces this process with canopyd again, with the arguments it started with, and --listen
// pinned to the port it had when that was chosen by the kernel (port 0), so agents and clients
// that know the port find the new process there. Returns only if exec fails.
int Restart(const std::vector<std::string>& original_argv, const std::string& bound_listen) {
  // Blocked signals stay pending across exec. A SIGHUP that came while stopping asked for what
  // this restart does anyway: drop it. A SIGINT/SIGTERM asked canopyd to stop: do that instead.
  sigset_t hup;
  sigemptyset(&hup);
  sigaddset(&hup, SIGHUP);
  const timespec zero{};
  while (sigtimedwait(&hup, nullptr, &zero) > 0) {
  }
  sigset_t pending;
  sigpending(&pending);
  if (sigismember(&pending, SIGTERM) == 1 || sigismember(&pending, SIGINT) == 1) {
    spdlog::info("asked to stop while restarting for reconfigure; stopped");
    return 0;
  }
  std::vector<std::string> args = original_argv;
  const std::string listen = absl::GetFlag(FLAGS_listen);
  if (!listen.empty() && listen.ends_with(":0")) {
    args.push_back(absl::StrCat("--listen=", bound_listen));
  }
  std::vector<char*> c_args;
  for (std::string& a : args) {
    c_args.push_back(a.data());
  }
  c_args.push_back(nullptr);
  spdlog::default_logger()->flush();
  execv("/proc/self/exe", c_args.data());
  return Fail(absl::StrCat("cannot restart after reconfigure (exec /proc/self/exe: ",
                           std::strerror(errno), "); start canopyd again"));
}

}  // namespace

int main(int argc, char** argv) {
  canopy::os::SwitchOffMutexDeadlockDetection();
  const std::vector<std::string> original_argv(argv, argv + argc);
  absl::SetProgramUsageMessage(
      "the Canopy controller.\n  canopyd --config FILE [--listen HOST:PORT] [--state_dir DIR]");
  absl::FlagsUsageConfig usage_config;  // --version: the program and Canopy's version
  usage_config.version_string = [] { return absl::StrCat("canopyd ", CANOPY_VERSION, "\n"); };
  absl::SetFlagsUsageConfig(usage_config);
  canopy::os::AcceptDashedFlags(argc, argv);  // --state-dir as well as --state_dir
  absl::ParseCommandLine(argc, argv);
  if (std::string error; !canopy::log::SetUpLogging("canopyd", absl::GetFlag(FLAGS_log_level),
                                                    absl::GetFlag(FLAGS_log_format),
                                                    absl::GetFlag(FLAGS_log_file), error)) {
    std::fprintf(stderr, "canopyd: %s\n", error.c_str());
    return 2;
  }

  absl::StatusOr<std::string> config_path =
      canopy::server::ResolveConfigPath(absl::GetFlag(FLAGS_config));
  if (!config_path.ok()) {
    return Fail(std::string(config_path.status().message()));
  }
  absl::StatusOr<canopy::config::ClusterConfig> config =
      canopy::config::LoadClusterConfig(*config_path);
  if (!config.ok()) {
    return Fail(std::string(config.status().message()));
  }
  if (!config->unused_keys.empty()) {
    spdlog::info("{}: keys Canopy does not use (accepted, ignored): {}", config->path,
                 absl::StrJoin(config->unused_keys, ", "));
  }

  canopy::server::ServerOptions options;
  options.listen = absl::GetFlag(FLAGS_listen);
  options.state_dir = absl::GetFlag(FLAGS_state_dir);
  options.port_file = absl::GetFlag(FLAGS_port_file);
  options.grpc_reflection = absl::GetFlag(FLAGS_grpc_reflection);
  options.max_rpc_threads = absl::GetFlag(FLAGS_max_rpc_threads);
  if (options.max_rpc_threads < 4) {
    return Fail(absl::StrCat("--max_rpc_threads=", options.max_rpc_threads,
                             ": at least 4 are needed (the default is 128)"));
  }
  absl::StatusOr<canopy::server::ServerExit> exit =
      canopy::server::RunServer(*std::move(config), options);
  if (!exit.ok()) {
    return Fail(std::string(exit.status().message()));
  }
  if (exit->restart) {
    return Restart(original_argv, exit->bound_listen);
  }
  return 0;
}
