// RunServer: assembles canopyd from a loaded configuration and serves until SIGINT/SIGTERM.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "common/config/cluster_config.h"

namespace canopy::server {

struct ServerOptions {
  std::string listen;     // overrides the config's HOST:PORT when set
  std::string state_dir;  // overrides the config's state directory when set
  std::string port_file;  // if set, the bound TCP port is written here once listening
};

// Returns when the daemon was asked to stop (OK) or could not start (the reason, naming the
// address, file or directory at fault).
absl::Status RunServer(config::ClusterConfig config, const ServerOptions& options);

}  // namespace canopy::server
