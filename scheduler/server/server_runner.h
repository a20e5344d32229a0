// RunServer: assembles canopyd from a loaded configuration and serves until SIGINT/SIGTERM, or
// until a reconfigure (SIGHUP, or scontrol reconfigure) asks for a restart on a new
// configuration that was checked first (reconfigure.h).
#pragma once

#include <string>

#include "absl/status/status.h"
#include "common/config/cluster_config.h"

namespace canopy::server {

struct ServerOptions {
  std::string listen;     // overrides the config's HOST:PORT when set
  std::string state_dir;  // overrides the config's state directory when set
  std::string port_file;  // if set, the bound TCP port is written here once listening
  // canopyd --grpc-reflection: serve gRPC server reflection to authenticated callers even when
  // the configuration's grpc_reflection is off (reflection_service.h).
  bool grpc_reflection = false;
  // Threads that serve the clients' (synchronous) RPCs at most; past them a call is answered
  // RESOURCE_EXHAUSTED ("Server Threadpool Exhausted") instead of starting one more thread.
  // Agents' streams use the callback API and need none.
  int max_rpc_threads = 128;
};

// How the server ended, once everything it opened is closed.
struct ServerExit {
  // A reconfigure was accepted: the caller should exec canopyd again (same arguments), with
  // --listen=`bound_listen` when it had asked for port 0, so agents find it where it was.
  bool restart = false;
  std::string bound_listen;  // HOST:PORT actually listened on
};

// Returns when the daemon was asked to stop or restart, or could not start (the reason, naming
// the address, file or directory at fault).
absl::StatusOr<ServerExit> RunServer(config::ClusterConfig config, const ServerOptions& options);

}  // namespace canopy::server
