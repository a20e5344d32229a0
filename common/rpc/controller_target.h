// Where the controller is, for canopy-agent and canopyctl. Never uses DNS to discover one: the
// address comes from a flag, the environment, or the cluster's config file, and with none of
// those the caller gets an error saying how to supply one. Thread-safe.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "common/config/security_config.h"

namespace canopy::rpc {

// The gRPC target to dial, in order of precedence:
//   1. `flag_value` (--controller HOST:PORT or unix:/path),
//   2. $CANOPY_CONTROLLER,
//   3. the config named by $CANOPY_CONFIG, else $SLURM_CONF: its controller host and port, or,
//      when `prefer_unix_socket` and the controller's unix socket exists and is writable
//      there, that socket (local clients are identified by it).
// "localhost" is turned into 127.0.0.1. InvalidArgument for a malformed address,
// FailedPrecondition when nothing names a controller, the config's error when it is broken.
absl::StatusOr<std::string> ResolveControllerTarget(const std::string& flag_value,
                                                    bool prefer_unix_socket);

// The controller's address and how to talk to it: the target as above, and the security
// settings (AuthType, TLS) of the cluster config that $CANOPY_CONFIG or $SLURM_CONF names,
// defaults (auth/none, no TLS) without one (or when the address comes from the flag or
// $CANOPY_CONTROLLER and the config does not load).
struct ControllerEndpoint {
  std::string target;
  config::SecurityConfig security;
};
absl::StatusOr<ControllerEndpoint> ResolveControllerEndpoint(const std::string& flag_value,
                                                             bool prefer_unix_socket);

// Checks and normalises "HOST:PORT" / "[v6]:PORT" / "unix:/path".
absl::StatusOr<std::string> NormalizeTarget(const std::string& address);

}  // namespace canopy::rpc
