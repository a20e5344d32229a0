#include "common/config/canopy_conf.h"

#include <filesystem>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/config/parse_util.h"
#include "common/config/yaml_values.h"
#include "yaml-cpp/yaml.h"

namespace canopy::config {

absl::Status CheckListenAddress(absl::string_view field, absl::string_view value) {
  const size_t colon = value.rfind(':');
  int port = -1;
  bool host_ok = colon != absl::string_view::npos && colon > 0;
  if (host_ok) {
    const absl::string_view host = value.substr(0, colon);
    const bool bracketed = host.front() == '[';
    host_ok = bracketed ? host.size() > 2 && host.back() == ']'
                        : host.find_first_of(":[] \t/") == absl::string_view::npos;
    if (!absl::SimpleAtoi(value.substr(colon + 1), &port) || port > 65535) {
      port = -1;
    }
  }
  if (!host_ok || port < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(field,
                     ": expected HOST:PORT (a host name or address, [v6 address], and a port "
                     "0-65535), got '",
                     value, "'"));
  }
  return absl::OkStatus();
}

bool IsLoopbackListenAddress(absl::string_view listen) {
  const absl::string_view host = listen.substr(0, listen.rfind(':'));
  return host == "localhost" || host == "[::1]" || absl::StartsWith(host, "127.");
}

namespace internal {

bool IsCanopyOnlyKey(absl::string_view key) {
  return key == "metrics_listen" || key == "agent_metrics_listen" || key == "web_listen" ||
         key == "web_allow_remote" || key == "grpc_reflection" || IsSecurityKey(key);
}

absl::StatusOr<bool> ApplyCanopyOnlyKey(absl::string_view key, absl::string_view value,
                                        ClusterConfig& config) {
  std::string* address = key == "metrics_listen"         ? &config.metrics_listen
                         : key == "agent_metrics_listen" ? &config.agent_metrics_listen
                         : key == "web_listen"           ? &config.web_listen
                                                         : nullptr;
  if (address != nullptr) {
    if (absl::Status s = CheckListenAddress(key, value); !s.ok()) {
      return s;
    }
    *address = std::string(value);
    return true;
  }
  if (key == "web_allow_remote") {
    if (value == "true" || value == "yes") {
      config.web_allow_remote = true;
    } else if (value == "false" || value == "no") {
      config.web_allow_remote = false;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat(key, ": expected true or false, got '", value, "'"));
    }
    return true;
  }
  if (key == "grpc_reflection") {
    using Access = ClusterConfig::ReflectionAccess;
    if (value == "off") {
      config.grpc_reflection = Access::kOff;
    } else if (value == "authenticated") {
      config.grpc_reflection = Access::kAuthenticated;
    } else if (value == "everyone") {
      config.grpc_reflection = Access::kEveryone;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat(key, ": expected off, authenticated or everyone, got '", value, "'"));
    }
    return true;
  }
  return ApplySecurityKey(key, value, config.security);
}

namespace {

// heartbeat_interval: the YAML's key, for a cluster configured with slurm.conf (which has no key
// for it), under the same check against the node timeout (SlurmdTimeout).
absl::Status ApplyHeartbeatInterval(const YamlReader& reader, const YamlValue& value,
                                    ClusterConfig& config) {
  absl::StatusOr<absl::Duration> interval = reader.Duration(value, absl::Milliseconds(1));
  if (!interval.ok()) {
    return interval.status();
  }
  if (absl::Status s = CheckNodeTimeout(config.node_timeout, *interval); !s.ok()) {
    return reader.Error(value, absl::StrCat("slurm.conf's SlurmdTimeout ", s.message()));
  }
  config.heartbeat_interval = *interval;
  return absl::OkStatus();
}

}  // namespace

absl::Status ReadCanopyConfBeside(const std::string& slurm_conf_path, ClusterConfig& config) {
  const std::string path = SiblingPath(slurm_conf_path, "canopy.conf");
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return absl::OkStatus();
  }
  absl::StatusOr<std::string> text = ReadConfigFile(path);
  if (!text.ok()) {
    return text.status();
  }
  const YamlReader reader(path);
  YAML::Node root;
  try {
    root = YAML::Load(*text);
  } catch (const YAML::Exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ":", e.mark.line + 1, ": not valid YAML: ", e.msg));
  }
  if (!root.IsDefined() || root.IsNull()) {
    return absl::OkStatus();  // empty, or comments only
  }
  return reader.ForEachEntry(
      reader.Root(root), [&](const std::string& key, const YamlValue& value) -> absl::Status {
        if (key == "heartbeat_interval") {
          return ApplyHeartbeatInterval(reader, value, config);
        }
        absl::StatusOr<std::string> text = reader.String(value);
        if (!text.ok()) {
          return text.status();
        }
        absl::StatusOr<bool> applied = ApplyCanopyOnlyKey(key, *text, config);
        if (!applied.ok()) {
          return reader.Error(value, applied.status().message().substr(key.size() + 2));
        }
        if (!*applied) {
          config.unused_keys.push_back(key);
        }
        return absl::OkStatus();
      });
}

}  // namespace internal
}  // namespace canopy::config
