#include "common/rpc/controller_target.h"

#include <unistd.h>

#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/config/cluster_config.h"

namespace canopy::rpc {

absl::StatusOr<std::string> NormalizeTarget(const std::string& address) {
  if (absl::StartsWith(address, "unix:")) {
    if (address.size() <= 5) {
      return absl::InvalidArgumentError("controller address 'unix:' names no socket path");
    }
    return address;
  }
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    return absl::InvalidArgumentError(absl::StrCat("controller address '", address,
                                                   "': expected HOST:PORT (e.g. 127.0.0.1:6817)"));
  }
  std::string host = address.substr(0, colon);
  int port = 0;
  if (!absl::SimpleAtoi(address.substr(colon + 1), &port) || port <= 0 || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("controller address '", address, "': port must be a number from 1 to 65535"));
  }
  if (host == "localhost") {
    host = "127.0.0.1";
  }
  return absl::StrCat(host, ":", port);
}

namespace {

absl::StatusOr<std::string> TargetFrom(const std::string& flag_value, bool prefer_unix_socket,
                                       const std::optional<config::EnvironmentConfigFile>& file,
                                       const absl::StatusOr<config::ClusterConfig>* cfg) {
  if (!flag_value.empty()) {
    return NormalizeTarget(flag_value);
  }
  if (const char* env = std::getenv("CANOPY_CONTROLLER"); env != nullptr && *env != '\0') {
    return NormalizeTarget(env);
  }
  if (file.has_value()) {
    const std::string& var = file->variable;
    if (!cfg->ok()) {
      return absl::Status(cfg->status().code(),
                          absl::StrCat("$", var, ": ", cfg->status().message()));
    }
    if (prefer_unix_socket && !(*cfg)->unix_socket.empty() &&
        ::access((*cfg)->unix_socket.c_str(), W_OK) == 0) {
      return absl::StrCat("unix:", (*cfg)->unix_socket);
    }
    absl::StatusOr<std::string> addr = config::ControllerAddress(**cfg);
    if (!addr.ok()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "$", var, " (", file->path, ") names no controller host: ", addr.status().message()));
    }
    return NormalizeTarget(*addr);
  }
  return absl::FailedPreconditionError(
      "no controller address: pass --controller HOST:PORT, set CANOPY_CONTROLLER, or set "
      "CANOPY_CONFIG or SLURM_CONF to the cluster's config file (Canopy never looks a "
      "controller up in DNS)");
}

}  // namespace

absl::StatusOr<std::string> ResolveControllerTarget(const std::string& flag_value,
                                                    bool prefer_unix_socket) {
  absl::StatusOr<ControllerEndpoint> endpoint =
      ResolveControllerEndpoint(flag_value, prefer_unix_socket);
  if (!endpoint.ok()) {
    return endpoint.status();
  }
  return endpoint->target;
}

absl::StatusOr<ControllerEndpoint> ResolveControllerEndpoint(const std::string& flag_value,
                                                             bool prefer_unix_socket) {
  const std::optional<config::EnvironmentConfigFile> file = config::ConfigFileFromEnvironment();
  absl::StatusOr<config::ClusterConfig> cfg = absl::NotFoundError("no config");
  if (file.has_value()) {
    cfg = config::LoadClusterConfigWithoutTopology(file->path);
  }
  absl::StatusOr<std::string> target = TargetFrom(flag_value, prefer_unix_socket, file, &cfg);
  if (!target.ok()) {
    return target.status();
  }
  ControllerEndpoint endpoint;
  endpoint.target = *std::move(target);
  if (cfg.ok()) {
    endpoint.security = cfg->security;
  }
  return endpoint;
}

}  // namespace canopy::rpc
