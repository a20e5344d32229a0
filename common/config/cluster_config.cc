// LoadClusterConfig and ControllerAddress; the parsers live in slurm_conf_parser.cc and
// canopy_yaml_parser.cc.
#include "common/config/cluster_config.h"

#include <cstdlib>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/config/canopy_conf.h"
#include "common/config/parse_util.h"

namespace canopy::config {

namespace {

absl::StatusOr<ClusterConfig> Load(const std::string& path, bool read_topology) {
  absl::StatusOr<std::string> text = internal::ReadConfigFile(path);
  if (!text.ok()) {
    return text.status();
  }
  const std::string lower = absl::AsciiStrToLower(path);
  if (absl::EndsWith(lower, ".yaml") || absl::EndsWith(lower, ".yml")) {
    return ParseCanopyYaml(*text, path, read_topology);
  }
  absl::StatusOr<ClusterConfig> config = ParseSlurmConf(*text, path, read_topology);
  if (config.ok()) {
    // What slurm.conf has no key for.
    if (absl::Status s = internal::ReadCanopyConfBeside(path, *config); !s.ok()) {
      return s;
    }
  }
  return config;
}

}  // namespace

absl::StatusOr<ClusterConfig> LoadClusterConfig(const std::string& path) {
  return Load(path, /*read_topology=*/true);
}

absl::StatusOr<ClusterConfig> LoadClusterConfigWithoutTopology(const std::string& path) {
  return Load(path, /*read_topology=*/false);
}

absl::StatusOr<std::string> ControllerAddress(const ClusterConfig& config) {
  if (config.controller_host.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        config.path.empty() ? std::string("the cluster config") : config.path,
        " names no controller host (set SlurmctldHost in slurm.conf or controller.host in "
        "Canopy YAML)"));
  }
  // An IPv6 literal needs brackets before ":PORT" (gRPC target syntax, RFC 3986).
  if (absl::StrContains(config.controller_host, ':') && config.controller_host.front() != '[') {
    return absl::StrCat("[", config.controller_host, "]:", config.controller_port);
  }
  return absl::StrCat(config.controller_host, ":", config.controller_port);
}

std::optional<EnvironmentConfigFile> ConfigFileFromEnvironment() {
  for (const char* var : {"CANOPY_CONFIG", "SLURM_CONF"}) {
    const char* path = std::getenv(var);
    if (path != nullptr && *path != '\0') {
      return EnvironmentConfigFile{var, path};
    }
  }
  return std::nullopt;
}

}  // namespace canopy::config
