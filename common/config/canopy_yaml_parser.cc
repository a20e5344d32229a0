// ParseCanopyYaml: reads Canopy's own YAML config (schema and example in
// docs/formats/config.md) into ClusterConfig. yaml-cpp builds the document; YamlReader
// (yaml_values.h) reads typed fields out of it; ConfigAssembler applies the checks shared with
// slurm.conf. Unknown keys are recorded in `unused_keys` (so a newer config still loads in an
// older canopyd); a known key with a value of the wrong type is an error.
#include "common/config/canopy_yaml_parser.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "common/config/canopy_conf.h"
#include "common/config/cluster_config.h"
#include "common/config/config_assembler.h"
#include "common/config/parse_util.h"
#include "common/config/yaml_policy.h"
#include "common/config/yaml_values.h"
#include "common/slurm/hostlist.h"
#include "yaml-cpp/yaml.h"

namespace canopy::config {
namespace internal {
namespace {

constexpr absl::string_view kDefaultStateDir = "/var/spool/canopy";

}  // namespace

absl::StatusOr<ClusterConfig> YamlConfigParser::Parse(const std::string& text) {
  config_.format = ConfigFormat::kCanopyYaml;
  config_.path = origin_;
  config_.state_dir = std::string(kDefaultStateDir);
  if (const int line = internal::SecondYamlDocumentLine(text); line > 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        origin_, ":", line,
        ": expected a single YAML document; found a second one ('---') or text that is not "
        "YAML"));
  }
  const YamlValue root = reader_.Root(YAML::Load(text));
  if (!root.node.IsDefined() || root.node.IsNull()) {
    return reader_.Error(root,
                         "the file is empty; expected a mapping of settings (cluster_name, "
                         "nodes, partitions, ...)");
  }
  if (!root.node.IsMap()) {
    return reader_.Expected(root, "a mapping of settings at the top level");
  }
  if (absl::Status s = reader_.ForEachEntry(root,
                                            [this](const std::string& key, const YamlValue& value) {
                                              return TopLevelEntry(key, value);
                                            });
      !s.ok()) {
    return s;
  }
  if (assembler_.node_count() == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(origin_, ": nodes: expected at least one node entry"));
  }
  if (!have_heartbeat_) {
    config_.heartbeat_interval = internal::DefaultHeartbeat(config_.node_timeout);
  }
  if (absl::Status s = internal::CheckNodeTimeout(config_.node_timeout, config_.heartbeat_interval);
      !s.ok()) {
    return reader_.Error(node_timeout_, s.message());
  }
  if (absl::Status s = assembler_.Finish(config_); !s.ok()) {
    return s;
  }
  if (!have_unix_socket_) {
    config_.unix_socket = internal::DefaultUnixSocket(config_.state_dir);
  }
  if (absl::Status s = FinishTopology(); !s.ok()) {
    return s;
  }
  if (config_.plugstack_config.empty()) {
    config_.plugstack_config = internal::SiblingPath(origin_, "plugstack.conf");
  }
  config_.unused_keys = unused_.Take();
  return std::move(config_);
}

absl::Status YamlConfigParser::TopLevelEntry(const std::string& key, const YamlValue& value) {
  if (key == "cluster_name") {
    if (absl::Status s = Assign(reader_.String(value), config_.cluster_name); !s.ok()) {
      return s;
    }
    return config_.cluster_name.empty() ? reader_.Expected(value, "a name") : absl::OkStatus();
  }
  if (key == "controller") {
    return reader_.ForEachEntry(
        value, [this](const std::string& k, const YamlValue& v) { return ControllerEntry(k, v); });
  }
  if (key == "state_dir") {
    if (absl::Status s = Assign(reader_.String(value), config_.state_dir); !s.ok()) {
      return s;
    }
    return config_.state_dir.empty() ? reader_.Expected(value, "a directory") : absl::OkStatus();
  }
  if (key == "node_timeout") {
    node_timeout_ = value;
    return Assign(reader_.Duration(value, absl::Seconds(1)), config_.node_timeout);
  }
  if (key == "heartbeat_interval") {
    have_heartbeat_ = true;
    return Assign(reader_.Duration(value, absl::Milliseconds(1)), config_.heartbeat_interval);
  }
  if (key == "kill_wait") {
    return Assign(reader_.Duration(value, absl::ZeroDuration()), config_.kill_wait);
  }
  if (key == "launch_timeout") {
    return Assign(reader_.Duration(value, absl::Seconds(1)), config_.launch_timeout);
  }
  if (key == "min_job_age") {
    return Assign(reader_.Duration(value, absl::ZeroDuration()), config_.min_job_age);
  }
  if (key == "operators") {
    return Assign(reader_.StringList(value), config_.operators);
  }
  if (key == "plugstack_config") {
    std::string path;
    if (absl::Status s = Assign(reader_.String(value), path); !s.ok()) {
      return s;
    }
    if (path.empty()) {
      return reader_.Expected(value, "the path of a plugstack.conf");
    }
    config_.plugstack_config = internal::SiblingPath(origin_, path);
    config_.plugstack_config_explicit = true;
    return absl::OkStatus();
  }
  // Text keys that one function applies for both front doors: the node scripts, and the
  // settings Slurm has no key for (canopy_conf.h). Their messages start with the key, which
  // the reader's prefix already names.
  const bool node_script = key == "prolog" || key == "epilog" || key == "task_prolog" ||
                           key == "task_epilog" || key == "prolog_flags";
  if (node_script || internal::IsCanopyOnlyKey(key)) {
    std::string text;
    if (absl::Status s = Assign(reader_.String(value), text); !s.ok()) {
      return s;
    }
    std::string normalized = key;
    std::erase(normalized, '_');
    absl::StatusOr<bool> applied =
        node_script ? internal::ApplyNodeScriptKey(normalized, key, text, config_.node_scripts)
                    : internal::ApplyCanopyOnlyKey(key, text, config_);
    if (!applied.ok()) {
      return reader_.Error(value, absl::StripPrefix(applied.status().message(), key + ": "));
    }
    return absl::OkStatus();
  }
  if (key == "prolog_epilog_timeout") {
    absl::Duration timeout;
    if (absl::Status s = Assign(reader_.Duration(value, absl::ZeroDuration()), timeout); !s.ok()) {
      return s;
    }
    if (absl::Status s = internal::SetPrologEpilogTimeout(key, timeout, config_.node_scripts);
        !s.ok()) {
      return reader_.Error(value, absl::StripPrefix(s.message(), key + ": "));
    }
    return absl::OkStatus();
  }
  if (key == "plugin_dir") {
    if (absl::Status s = Assign(reader_.String(value), config_.plugin_dir); !s.ok()) {
      return s;
    }
    return config_.plugin_dir.empty()
               ? reader_.Expected(value, "one or more directories, separated by ':'")
               : absl::OkStatus();
  }
  if (key == "nodes") {
    return reader_.ForEachElement(value, [this](const YamlValue& e) { return NodeEntry(e); });
  }
  if (key == "partitions") {
    return reader_.ForEachElement(value, [this](const YamlValue& e) { return PartitionEntry(e); });
  }
  if (key == "topology_plugin") {
    return TopologyPlugin(value);
  }
  if (key == "topology") {
    if (!value.node.IsDefined() || value.node.IsNull()) {
      return reader_.Expected(value, "a topology description");
    }
    topology_ = value;
    return absl::OkStatus();
  }
  if (key == "topology_file") {
    std::string path;
    if (absl::Status s = Assign(reader_.String(value), path); !s.ok()) {
      return s;
    }
    if (path.empty()) {
      return reader_.Expected(value, "a path to a topology.conf");
    }
    topology_file_ = value;
    return absl::OkStatus();
  }
  if (internal::IsPolicySection(key)) {
    return internal::ReadPolicyEntry(reader_, origin_, key, value, config_.scheduling, unused_);
  }
  unused_.Add(key);
  return absl::OkStatus();
}

absl::Status YamlConfigParser::ControllerEntry(const std::string& key, const YamlValue& value) {
  if (key == "host") {
    if (absl::Status s = Assign(reader_.String(value), config_.controller_host); !s.ok()) {
      return s;
    }
    if (config_.controller_host == "localhost") {
      config_.controller_host = "127.0.0.1";  // as for SlurmctldHost: one address, not ::1 too
    }
    return absl::OkStatus();
  }
  if (key == "port") {
    return Assign(reader_.Int(value, 1, 65535, "a port number (1-65535)"), config_.controller_port);
  }
  if (key == "unix_socket") {
    have_unix_socket_ = true;
    if (absl::Status s = Assign(reader_.String(value), config_.unix_socket); !s.ok()) {
      return s;
    }
    return config_.unix_socket.empty() ? reader_.Expected(value, "a socket path")
                                       : absl::OkStatus();
  }
  unused_.Add(value.path);
  return absl::OkStatus();
}

absl::Status YamlConfigParser::TopologyPlugin(const YamlValue& value) {
  std::string plugin;
  if (absl::Status s = Assign(reader_.String(value), plugin); !s.ok()) {
    return s;
  }
  plugin = absl::AsciiStrToLower(plugin);
  if (plugin == "topology/flat" || plugin == "topology/none" || plugin == "topology/default") {
    plugin.clear();
  } else if (plugin != "topology/tree" && plugin != "topology/block") {
    return reader_.Expected(value, "topology/tree, topology/block or topology/flat");
  }
  config_.topology_plugin = plugin;
  have_topology_plugin_ = true;
  return absl::OkStatus();
}

absl::Status YamlConfigParser::FinishTopology() {
  if (topology_ && topology_file_) {
    return reader_.Error(*topology_file_,
                         "give either topology (inline) or topology_file, not both");
  }
  if (!have_topology_plugin_ && (topology_ || topology_file_)) {
    config_.topology_plugin = "topology/tree";
  }
  if (topology_) {
    // The topology readers own the format of this section; it is handed over as text so this
    // library does not depend on them.
    YAML::Emitter emitter;
    emitter << topology_->node;
    if (!emitter.good()) {
      return reader_.Error(*topology_, absl::StrCat("cannot re-emit: ", emitter.GetLastError()));
    }
    config_.topology.kind = TopologySource::Kind::kYaml;
    config_.topology.origin = origin_;
    config_.topology.text = emitter.c_str();
    config_.topology.first_line = std::max(1, topology_->line);
    return absl::OkStatus();
  }
  if (topology_file_) {
    const std::string path = internal::SiblingPath(origin_, topology_file_->node.Scalar());
    config_.topology.origin = path;
    if (!read_topology_) {
      return absl::OkStatus();  // tests: remember where it would be, leave kind kNone
    }
    absl::StatusOr<std::string> text = internal::ReadConfigFile(path);
    if (!text.ok()) {
      return absl::Status(text.status().code(), absl::StrCat(reader_.Where(*topology_file_), ": ",
                                                             text.status().message()));
    }
    config_.topology.kind = TopologySource::Kind::kSlurmTopologyConf;
    config_.topology.text = *std::move(text);
    config_.topology.first_line = 1;
  }
  return absl::OkStatus();
}

}  // namespace internal

absl::StatusOr<ClusterConfig> ParseCanopyYaml(const std::string& text, const std::string& origin,
                                              bool read_topology) {
  // yaml-cpp reports syntax errors (and deep nesting) by throwing; no exception may leave this
  // library (STYLE.md §6).
  try {
    return internal::YamlConfigParser(origin, read_topology).Parse(text);
  } catch (const YAML::Exception& e) {
    std::string where = origin;
    if (e.mark.line >= 0) {
      absl::StrAppend(&where, ":", e.mark.line + 1);
    }
    return absl::InvalidArgumentError(absl::StrCat(where, ": invalid YAML: ", e.msg));
  }
}

}  // namespace canopy::config
