// ParseCanopyYaml: reads Canopy's own YAML config (schema and example in
// docs/formats/config.md) into ClusterConfig. yaml-cpp builds the document; YamlReader
// (yaml_values.h) reads typed fields out of it; ConfigAssembler applies the checks shared with
// slurm.conf. Unknown keys are recorded in `unused_keys` (so a newer config still loads in an
// older canopyd); a known key with a value of the wrong type is an error.
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
namespace {

using internal::YamlValue;

constexpr absl::string_view kDefaultStateDir = "/var/spool/canopy";
constexpr int64_t kIntMax = std::numeric_limits<int>::max();
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr absl::string_view kGpusForms = "a GPU count, {type, count}, or a list of {type, count}";

// Stores `*result` in `out` or returns its error; keeps the field-by-field code short.
template <typename T, typename U>
absl::Status Assign(absl::StatusOr<T> result, U& out) {
  if (!result.ok()) {
    return result.status();
  }
  out = static_cast<U>(*std::move(result));
  return absl::OkStatus();
}

class YamlConfigParser {
 public:
  YamlConfigParser(const std::string& origin, bool read_topology)
      : origin_(origin), read_topology_(read_topology), reader_(origin) {}

  // May throw YAML::Exception from yaml-cpp; ParseCanopyYaml catches it.
  absl::StatusOr<ClusterConfig> Parse(const std::string& text);

 private:
  absl::Status TopLevelEntry(const std::string& key, const YamlValue& value);
  absl::Status ControllerEntry(const std::string& key, const YamlValue& value);
  absl::Status TopologyPlugin(const YamlValue& value);
  absl::Status NodeEntry(const YamlValue& entry);
  absl::StatusOr<std::vector<std::string>> NodeNames(const YamlValue& value);
  absl::Status Gpus(const YamlValue& value, NodeConfig& node);
  absl::Status Gpu(const YamlValue& value, GpuConfig& gpu);
  absl::Status PartitionEntry(const YamlValue& entry);
  absl::Status PartitionNodes(const YamlValue& value, internal::ParsedPartition& parsed);
  absl::Status FinishTopology();

  const std::string origin_;
  const bool read_topology_;
  const internal::YamlReader reader_;
  ClusterConfig config_;
  internal::UnusedKeys unused_;
  internal::ConfigAssembler assembler_{'"'};
  bool have_unix_socket_ = false;
  bool have_heartbeat_ = false;
  bool have_topology_plugin_ = false;
  std::optional<YamlValue> topology_;                        // `topology:`, if given
  std::optional<YamlValue> topology_file_;                   // `topology_file:`, if given
  YamlValue node_timeout_{YAML::Node(), "node_timeout", 0};  // for the line in messages
};

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
  if (internal::IsCanopyOnlyKey(key)) {
    std::string text;
    if (absl::Status s = Assign(reader_.String(value), text); !s.ok()) {
      return s;
    }
    if (absl::StatusOr<bool> applied = internal::ApplyCanopyOnlyKey(key, text, config_);
        !applied.ok()) {
      return reader_.Error(value, applied.status().message().substr(key.size() + 2));
    }
    return absl::OkStatus();
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
  if (key == "prolog" || key == "epilog" || key == "task_prolog" || key == "task_epilog" ||
      key == "prolog_flags") {
    std::string text;
    if (absl::Status s = Assign(reader_.String(value), text); !s.ok()) {
      return s;
    }
    std::string normalized = key;
    std::erase(normalized, '_');
    absl::StatusOr<bool> applied =
        internal::ApplyNodeScriptKey(normalized, key, text, config_.node_scripts);
    if (!applied.ok()) {
      return reader_.Error(value, applied.status().message());
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
      return reader_.Error(value, s.message());
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

absl::Status YamlConfigParser::NodeEntry(const YamlValue& entry) {
  NodeConfig node;
  std::vector<std::string> names;
  YamlValue names_value;
  bool cpus_given = false;
  absl::Status s = reader_.ForEachEntry(
      entry, [&](const std::string& key, const YamlValue& value) -> absl::Status {
        if (key == "names") {
          names_value = value;
          return Assign(NodeNames(value), names);
        }
        if (key == "cpus") {
          cpus_given = true;
          return Assign(reader_.Int(value, 1, kIntMax, "a positive integer"), node.cpus);
        }
        // The CPU layout, as slurm.conf's Sockets, CoresPerSocket and ThreadsPerCore.
        if (key == "sockets") {
          return Assign(reader_.Int(value, 1, kIntMax, "a positive integer"), node.sockets);
        }
        if (key == "cores_per_socket") {
          return Assign(reader_.Int(value, 1, kIntMax, "a positive integer"),
                        node.cores_per_socket);
        }
        if (key == "threads_per_core") {
          return Assign(reader_.Int(value, 1, kIntMax, "a positive integer"),
                        node.threads_per_core);
        }
        if (key == "memory_mib") {
          return Assign(reader_.Int(value, 1, kInt64Max, "a positive number of MiB"),
                        node.real_memory_mib);
        }
        if (key == "gpus") {
          return Gpus(value, node);
        }
        if (key == "weight") {
          return Assign(reader_.Int(value, 0, kIntMax, "a non-negative integer"), node.weight);
        }
        if (key == "features") {
          return Assign(reader_.StringList(value), node.features);
        }
        unused_.Add(absl::StrCat("nodes.", key));
        return absl::OkStatus();
      });
  if (!s.ok()) {
    return s;
  }
  if (names.empty()) {
    return reader_.Error(entry, "names: required (a hostlist such as gpu[001-016])");
  }
  if (node.sockets > 0 || node.cores_per_socket > 0 || node.threads_per_core > 0) {
    // As in slurm.conf: a layout given in part counts one for the rest, and gives the CPU
    // count when cpus is not given.
    node.boards = 1;
    node.sockets = std::max(node.sockets, 1);
    node.cores_per_socket = std::max(node.cores_per_socket, 1);
    node.threads_per_core = std::max(node.threads_per_core, 1);
    // Each factor is at most INT_MAX: check after each product to avoid overflow.
    int64_t cpus = node.sockets;
    for (int64_t factor : {int64_t{node.cores_per_socket}, int64_t{node.threads_per_core}}) {
      cpus = cpus > kIntMax ? cpus : cpus * factor;
    }
    if (!cpus_given) {
      if (cpus > kIntMax) {
        return reader_.Error(entry,
                             "cpus: sockets x cores_per_socket x threads_per_core is too large");
      }
      node.cpus = static_cast<int>(cpus);
    }
  }
  std::vector<NodeConfig> nodes;
  nodes.reserve(names.size());
  for (std::string& name : names) {
    nodes.push_back(node);
    nodes.back().name = std::move(name);
  }
  return assembler_.AddNodes(std::move(nodes), names_value.line, reader_.Where(names_value));
}

absl::StatusOr<std::vector<std::string>> YamlConfigParser::NodeNames(const YamlValue& value) {
  absl::StatusOr<std::string> expression = reader_.String(value);
  if (!expression.ok()) {
    return expression.status();
  }
  if (expression->empty()) {
    return reader_.Expected(value, "a hostlist such as gpu[001-016]");
  }
  absl::StatusOr<std::vector<std::string>> names = slurm::ExpandHostlist(*expression);
  if (!names.ok()) {
    return reader_.Error(value, names.status().message());
  }
  if (names->empty()) {
    return reader_.Expected(value, "a hostlist such as gpu[001-016]");
  }
  return names;
}

absl::Status YamlConfigParser::Gpus(const YamlValue& value, NodeConfig& node) {
  // Three spellings: `gpus: 8`, `gpus: {type: h100, count: 8}`, and a list of the latter for
  // nodes with more than one kind of GPU.
  std::vector<GpuConfig> gpus;
  const YAML::Node& n = value.node;
  if (n.IsDefined() && n.IsScalar()) {
    GpuConfig gpu;
    if (absl::Status s = Assign(reader_.Int(value, 0, kIntMax, kGpusForms), gpu.count); !s.ok()) {
      return s;
    }
    gpus.push_back(std::move(gpu));
  } else if (n.IsDefined() && n.IsMap()) {
    GpuConfig gpu;
    if (absl::Status s = Gpu(value, gpu); !s.ok()) {
      return s;
    }
    gpus.push_back(std::move(gpu));
  } else if (n.IsDefined() && n.IsSequence()) {
    absl::Status s = reader_.ForEachElement(value, [&](const YamlValue& element) -> absl::Status {
      GpuConfig gpu;
      if (absl::Status s = Gpu(element, gpu); !s.ok()) {
        return s;
      }
      for (const GpuConfig& seen : gpus) {
        if (seen.type == gpu.type) {
          return reader_.Error(
              YamlValue{element.node, element.path + ".type", element.line},
              absl::StrCat("GPU type ", internal::Quote(gpu.type, '"'), " is listed twice"));
        }
      }
      gpus.push_back(std::move(gpu));
      return absl::OkStatus();
    });
    if (!s.ok()) {
      return s;
    }
  } else {
    return reader_.Expected(value, kGpusForms);
  }
  node.gpus.clear();
  for (GpuConfig& gpu : gpus) {
    if (gpu.count > 0) {
      node.gpus.push_back(std::move(gpu));
    }
  }
  return absl::OkStatus();
}

absl::Status YamlConfigParser::Gpu(const YamlValue& value, GpuConfig& gpu) {
  bool have_count = false;
  absl::Status s = reader_.ForEachEntry(
      value, [&](const std::string& key, const YamlValue& field) -> absl::Status {
        if (key == "type") {
          return Assign(reader_.String(field), gpu.type);
        }
        if (key == "count") {
          have_count = true;
          return Assign(reader_.Int(field, 0, kIntMax, "a non-negative integer"), gpu.count);
        }
        unused_.Add(absl::StrCat("nodes.gpus.", key));
        return absl::OkStatus();
      });
  if (s.ok() && !have_count) {
    return reader_.Error(value, "count: required (the number of GPUs of this type)");
  }
  return s;
}

absl::Status YamlConfigParser::PartitionEntry(const YamlValue& entry) {
  internal::ParsedPartition parsed;
  PartitionConfig& p = parsed.config;
  YamlValue name_value{entry.node, entry.path + ".name", entry.line};
  YamlValue nodes_value;
  YamlValue default_value;
  absl::Status s = reader_.ForEachEntry(
      entry, [&](const std::string& key, const YamlValue& value) -> absl::Status {
        if (key == "name") {
          name_value = value;
          return Assign(reader_.String(value), p.name);
        }
        if (key == "nodes") {
          nodes_value = value;
          return PartitionNodes(value, parsed);
        }
        if (key == "default") {
          default_value = value;
          return Assign(reader_.Bool(value), p.is_default);
        }
        if (key == "max_time") {
          return Assign(reader_.SlurmTime(value, /*allow_none=*/false), p.max_time);
        }
        if (key == "default_time") {
          return Assign(reader_.SlurmTime(value, /*allow_none=*/true), p.default_time);
        }
        if (key == "max_nodes") {
          if (value.node.IsDefined() && value.node.IsScalar() &&
              (absl::EqualsIgnoreCase(value.node.Scalar(), "UNLIMITED") ||
               absl::EqualsIgnoreCase(value.node.Scalar(), "INFINITE"))) {
            p.max_nodes = -1;
            return absl::OkStatus();
          }
          return Assign(reader_.Int(value, 0, kInt64Max, "a non-negative integer or UNLIMITED"),
                        p.max_nodes);
        }
        if (key == "state") {
          std::string state;
          if (absl::Status s = Assign(reader_.String(value), state); !s.ok()) {
            return s;
          }
          state = absl::AsciiStrToUpper(state);
          if (state != "UP" && state != "DOWN" && state != "DRAIN" && state != "INACTIVE") {
            return reader_.Expected(value, "UP, DOWN, DRAIN or INACTIVE");
          }
          p.up = state == "UP";
          return absl::OkStatus();
        }
        absl::StatusOr<bool> policy =
            internal::ReadPartitionPolicyKey(reader_, key, value, p.policy);
        if (!policy.ok()) {
          return policy.status();
        }
        if (!*policy) {
          unused_.Add(absl::StrCat("partitions.", key));
        }
        return absl::OkStatus();
      });
  if (!s.ok()) {
    return s;
  }
  if (p.name.empty()) {
    return reader_.Error(name_value, "required (a partition name such as gpu)");
  }
  parsed.line = name_value.line;
  parsed.name_where = reader_.Where(name_value);
  parsed.nodes_where = reader_.Where(nodes_value);
  parsed.default_where = reader_.Where(default_value);
  return assembler_.AddPartition(std::move(parsed));
}

absl::Status YamlConfigParser::PartitionNodes(const YamlValue& value,
                                              internal::ParsedPartition& parsed) {
  absl::StatusOr<std::string> expression = reader_.String(value);
  if (!expression.ok()) {
    return expression.status();
  }
  if (absl::EqualsIgnoreCase(*expression, "ALL")) {
    parsed.all_nodes = true;
    return absl::OkStatus();
  }
  if (expression->empty()) {
    return absl::OkStatus();  // a partition without nodes, as Slurm allows
  }
  absl::StatusOr<std::vector<std::string>> names = slurm::ExpandHostlist(*expression);
  if (!names.ok()) {
    return reader_.Error(value, names.status().message());
  }
  parsed.config.nodes = *std::move(names);
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

}  // namespace

absl::StatusOr<ClusterConfig> ParseCanopyYaml(const std::string& text, const std::string& origin,
                                              bool read_topology) {
  // yaml-cpp reports syntax errors (and deep nesting) by throwing; no exception may leave this
  // library (STYLE.md §6).
  try {
    return YamlConfigParser(origin, read_topology).Parse(text);
  } catch (const YAML::Exception& e) {
    std::string where = origin;
    if (e.mark.line >= 0) {
      absl::StrAppend(&where, ":", e.mark.line + 1);
    }
    return absl::InvalidArgumentError(absl::StrCat(where, ": invalid YAML: ", e.msg));
  }
}

}  // namespace canopy::config
