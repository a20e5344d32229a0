// ParseSlurmConf: reads a Slurm slurm.conf into ClusterConfig (format notes in
// docs/formats/config.md, "slurm.conf"). The lexer (slurm_conf_lexer.h) has already split the
// text into Key=Value tokens; this file gives the keys Canopy uses their meaning, applies
// NodeName=DEFAULT / PartitionName=DEFAULT, records every other key in `unused_keys`, and reads
// topology.conf when TopologyPlugin asks for it.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/config/cluster_config.h"
#include "common/config/config_assembler.h"
#include "common/config/parse_util.h"
#include "common/config/slurm_conf_lexer.h"
#include "common/config/slurm_conf_values.h"
#include "common/slurm/hostlist.h"

namespace canopy::config {
namespace {

using internal::ConfigAssembler;
using internal::ParsedPartition;
using internal::Quote;
using internal::SlurmConfLine;
using internal::SlurmConfToken;
using internal::SlurmWhere;

constexpr absl::string_view kDefaultStateSaveLocation = "/var/spool/slurmctld";

// Lines whose first key names an object and whose other keys describe it. Canopy does not use
// these, so the whole line is recorded once under its first key.
bool IsIgnoredLineType(absl::string_view lower_key) {
  return lower_key == "nodeset" || lower_key == "downnodes" || lower_key == "frontendname";
}

// Keys are letters, digits and '_' in every Slurm version; anything else is junk (often a
// binary file or a stray character) and is better reported than recorded as an unused key.
bool IsValidKey(absl::string_view key) {
  if (key.empty()) {
    return false;
  }
  for (char c : key) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_') {
      return false;
    }
  }
  return true;
}

class SlurmConfParser {
 public:
  SlurmConfParser(absl::string_view origin, bool read_topology)
      : origin_(origin), read_topology_(read_topology) {}

  absl::StatusOr<ClusterConfig> Parse(absl::string_view text);

 private:
  absl::Status HandleLine(const SlurmConfLine& line);
  absl::Status HandleKey(const SlurmConfToken& token, int line);
  absl::Status HandleNodeLine(const std::vector<SlurmConfToken>& tokens, size_t first, int line);
  absl::Status HandlePartitionLine(const std::vector<SlurmConfToken>& tokens, size_t first,
                                   int line);
  absl::Status HandleSlurmctldHost(int line, absl::string_view value);
  absl::Status ReadTopology();

  // "slurm.conf:<line>: <message>".
  absl::Status LineError(int line, absl::string_view message) const {
    return absl::InvalidArgumentError(absl::StrCat(origin_, ":", line, ": ", message));
  }

  const std::string origin_;
  const bool read_topology_;
  ClusterConfig config_;
  internal::UnusedKeys unused_;
  ConfigAssembler assembler_{'\''};
  internal::SlurmNodeValues node_defaults_;
  internal::SlurmPartitionValues partition_defaults_;
  bool have_slurmctld_host_ = false;
  std::string control_machine_;  // pre-17.11 ControlMachine, used when SlurmctldHost is absent
  std::string control_addr_;     // pre-17.11 ControlAddr
  int topology_line_ = 0;
};

absl::StatusOr<ClusterConfig> SlurmConfParser::Parse(absl::string_view text) {
  config_.format = ConfigFormat::kSlurmConf;
  config_.path = origin_;
  config_.state_dir = std::string(kDefaultStateSaveLocation);
  absl::StatusOr<std::vector<SlurmConfLine>> lines = internal::LexSlurmConf(text, origin_);
  if (!lines.ok()) {
    return lines.status();
  }
  for (const SlurmConfLine& line : *lines) {
    if (absl::Status s = HandleLine(line); !s.ok()) {
      return s;
    }
  }
  if (assembler_.node_count() == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(origin_, ": no nodes defined (expected at least one NodeName line)"));
  }
  if (absl::Status s = assembler_.Finish(config_); !s.ok()) {
    return s;
  }
  // slurm.conf has no heartbeat key: agents report at a fraction of SlurmdTimeout, as Slurm
  // pings. The same check as the YAML loader's, which cannot fail for a derived interval.
  config_.heartbeat_interval = internal::DefaultHeartbeat(config_.node_timeout);
  if (absl::Status s = internal::CheckNodeTimeout(config_.node_timeout, config_.heartbeat_interval);
      !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(origin_, ": SlurmdTimeout: ", s.message()));
  }
  if (!have_slurmctld_host_) {
    const std::string& host = control_addr_.empty() ? control_machine_ : control_addr_;
    config_.controller_host = host == "localhost" ? "127.0.0.1" : host;
  }
  config_.unix_socket = internal::DefaultUnixSocket(config_.state_dir);
  if (absl::Status s = ReadTopology(); !s.ok()) {
    return s;
  }
  if (config_.plugstack_config.empty()) {
    config_.plugstack_config = internal::SiblingPath(origin_, "plugstack.conf");
  }
  config_.unused_keys = unused_.Take();
  return std::move(config_);
}

absl::Status SlurmConfParser::HandleLine(const SlurmConfLine& line) {
  const std::vector<SlurmConfToken>& tokens = line.tokens;
  const SlurmConfToken& first = tokens.front();
  if (!first.has_equals && absl::EqualsIgnoreCase(first.key, "include")) {
    const std::string target = tokens.size() > 1 ? tokens[1].raw : "";
    return LineError(line.line, absl::StrCat("include ", Quote(target, '\''),
                                             ": include is not supported; copy that file's "
                                             "lines into this one"));
  }
  for (size_t i = 0; i < tokens.size(); ++i) {
    const SlurmConfToken& token = tokens[i];
    if (!token.has_equals || token.key.empty()) {
      return LineError(line.line, absl::StrCat("expected Key=Value, got ", Quote(token.raw, '\'')));
    }
    if (!IsValidKey(token.key)) {
      return LineError(line.line, absl::StrCat("invalid key ", Quote(token.key, '\''),
                                               " (keys are letters, digits and '_')"));
    }
    const std::string lower = absl::AsciiStrToLower(token.key);
    // An object line (NodeName=..., PartitionName=...) takes every key after it on the line,
    // as in Slurm, so "ClusterName=x NodeName=a CPUs=2" is legal.
    if (lower == "nodename") {
      return HandleNodeLine(tokens, i, line.line);
    }
    if (lower == "partitionname") {
      return HandlePartitionLine(tokens, i, line.line);
    }
    if (IsIgnoredLineType(lower)) {
      unused_.Add(token.key);
      return absl::OkStatus();
    }
    if (absl::Status s = HandleKey(token, line.line); !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

absl::Status SlurmConfParser::HandleKey(const SlurmConfToken& token, int line) {
  const std::string lower = absl::AsciiStrToLower(token.key);
  const absl::string_view value = token.value;
  // Keys that Canopy uses are written in their documented spelling in messages.
  auto error = [&](absl::string_view field, absl::string_view expected) {
    return LineError(line,
                     absl::StrCat(field, ": expected ", expected, ", got ", Quote(value, '\'')));
  };
  if (lower == "clustername") {
    if (value.empty()) {
      return error("ClusterName", "a name");
    }
    config_.cluster_name = std::string(value);
  } else if (lower == "slurmctldhost") {
    return HandleSlurmctldHost(line, value);
  } else if (lower == "controlmachine") {
    if (value.empty()) {
      return error("ControlMachine", "a host name");
    }
    control_machine_ = std::string(value);
  } else if (lower == "controladdr") {
    if (value.empty()) {
      return error("ControlAddr", "an address");
    }
    control_addr_ = std::string(value);
  } else if (lower == "slurmctldport") {
    // A range ("6817-6818") lets Slurm spread load over several ports; Canopy listens on one.
    const std::vector<absl::string_view> parts = absl::StrSplit(value, '-');
    std::optional<int64_t> first = internal::ParseDecimal(parts[0], 65535);
    std::optional<int64_t> last =
        parts.size() == 2 ? internal::ParseDecimal(parts[1], 65535) : first;
    if (parts.size() > 2 || !first || !last || *first < 1 || *last < *first) {
      return error("SlurmctldPort", "a port (1-65535) or a range such as 6817-6818");
    }
    config_.controller_port = static_cast<int>(*first);
  } else if (lower == "statesavelocation") {
    if (value.empty()) {
      return error("StateSaveLocation", "a directory");
    }
    config_.state_dir = std::string(value);
  } else if (lower == "slurmdtimeout") {
    std::optional<int64_t> seconds = internal::ParseDecimal(value, int64_t{1} << 40);
    if (!seconds) {
      return error("SlurmdTimeout", "a number of seconds");
    }
    // Slurm: 0 means nodes are never marked DOWN for not responding.
    config_.node_timeout = *seconds == 0 ? absl::InfiniteDuration() : absl::Seconds(*seconds);
  } else if (lower == "killwait") {
    std::optional<int64_t> seconds = internal::ParseDecimal(value, int64_t{1} << 40);
    if (!seconds) {
      return error("KillWait", "a number of seconds");
    }
    config_.kill_wait = absl::Seconds(*seconds);
  } else if (lower == "batchstarttimeout") {
    std::optional<int64_t> seconds = internal::ParseDecimal(value, int64_t{1} << 40);
    if (!seconds || *seconds == 0) {
      return error("BatchStartTimeout", "a positive number of seconds");
    }
    config_.launch_timeout = absl::Seconds(*seconds);
  } else if (lower == "minjobage") {
    std::optional<int64_t> seconds = internal::ParseDecimal(value, int64_t{1} << 40);
    if (!seconds) {
      return error("MinJobAge", "a number of seconds");
    }
    config_.min_job_age = absl::Seconds(*seconds);
  } else if (lower == "slurmuser") {
    if (value.empty()) {
      return error("SlurmUser", "a user name");
    }
    config_.operators = {std::string(value)};
  } else if (lower == "authtype" || lower == "authinfo" || lower == "slurmduser") {
    const absl::string_view twin = lower == "authtype"   ? "auth_type"
                                   : lower == "authinfo" ? "auth_info"
                                                         : "slurmd_user";
    absl::StatusOr<bool> applied = ApplySecurityKey(twin, value, config_.security);
    if (!applied.ok()) {
      // The message names the YAML twin; name the key as it is written in slurm.conf.
      return LineError(line,
                       absl::StrCat(token.key, applied.status().message().substr(twin.size())));
    }
  } else if (lower == "plugstackconfig") {
    if (value.empty()) {
      return error("PlugStackConfig", "the path of a plugstack.conf");
    }
    config_.plugstack_config = internal::SiblingPath(origin_, std::string(value));
    config_.plugstack_config_explicit = true;
  } else if (lower == "prologepilogtimeout") {
    std::optional<int64_t> seconds = internal::ParseDecimal(value, int64_t{1} << 40);
    if (!seconds) {
      return error("PrologEpilogTimeout", "a number of seconds");
    }
    if (absl::Status s = internal::SetPrologEpilogTimeout(token.key, absl::Seconds(*seconds),
                                                          config_.node_scripts);
        !s.ok()) {
      return LineError(line, s.message());
    }
  } else if (lower == "plugindir") {
    if (value.empty()) {
      return error("PluginDir", "one or more directories, separated by ':'");
    }
    config_.plugin_dir = std::string(value);
  } else if (lower == "topologyplugin") {
    const std::string plugin = absl::AsciiStrToLower(value);
    if (plugin == "topology/tree" || plugin == "topology/block") {
      config_.topology_plugin = plugin;
    } else if (plugin.empty() || plugin == "topology/none" || plugin == "topology/default" ||
               plugin == "topology/flat") {
      config_.topology_plugin.clear();
    } else {
      return error("TopologyPlugin",
                   "topology/tree, topology/block or topology/flat (Canopy supports no other)");
    }
    topology_line_ = line;
  } else if (absl::StatusOr<bool> script =
                 internal::ApplyNodeScriptKey(lower, token.key, value, config_.node_scripts);
             !script.ok() || *script) {
    if (!script.ok()) {
      return LineError(line, script.status().message());
    }
  } else {
    absl::StatusOr<bool> applied =
        ApplySchedulingKey(NormalizeSchedulingKey(token.key), value, '\'', config_.scheduling);
    if (!applied.ok()) {
      return LineError(line, absl::StrCat(token.key, ": ", applied.status().message()));
    }
    if (!*applied) {
      unused_.Add(token.key);
    }
  }
  return absl::OkStatus();
}

absl::Status SlurmConfParser::HandleSlurmctldHost(int line, absl::string_view value) {
  absl::string_view host = value;
  absl::string_view addr;
  const size_t paren = value.find('(');
  if (paren != absl::string_view::npos) {
    host = value.substr(0, paren);
    if (value.back() != ')' || value.size() < paren + 3) {
      host = {};  // reported below
    } else {
      addr = value.substr(paren + 1, value.size() - paren - 2);
    }
  }
  if (host.empty() || absl::StrContains(host, ')') || absl::StrContains(addr, '(') ||
      absl::StrContains(addr, ')')) {
    return LineError(line, absl::StrCat("SlurmctldHost: expected host or host(address), got ",
                                        Quote(value, '\'')));
  }
  // Several SlurmctldHost lines list the primary first, then backups; clients start with the
  // primary, so only the first is kept.
  if (!have_slurmctld_host_) {
    have_slurmctld_host_ = true;
    const absl::string_view target = addr.empty() ? host : addr;
    config_.controller_host = target == "localhost" ? "127.0.0.1" : std::string(target);
  }
  return absl::OkStatus();
}

absl::Status SlurmConfParser::HandleNodeLine(const std::vector<SlurmConfToken>& tokens,
                                             size_t first, int line) {
  const std::string& names = tokens[first].value;
  const SlurmWhere where{origin_, line, absl::StrCat("NodeName=", internal::Printable(names))};
  if (names.empty()) {
    return LineError(line, "NodeName: expected a hostlist such as gpu[001-016], got ''");
  }
  const bool is_default = absl::EqualsIgnoreCase(names, "DEFAULT");
  internal::SlurmNodeValues values = node_defaults_;
  for (size_t i = first + 1; i < tokens.size(); ++i) {
    if (absl::Status s = internal::ApplyNodeKey(where, tokens[i], values, unused_); !s.ok()) {
      return s;
    }
  }
  if (is_default) {
    node_defaults_ = std::move(values);
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<std::string>> expanded = slurm::ExpandHostlist(names);
  if (!expanded.ok()) {
    return where.Error("", expanded.status().message());
  }
  if (expanded->empty()) {
    return where.Error("", "the hostlist names no nodes");
  }
  absl::StatusOr<NodeConfig> node = internal::BuildNode(where, values);
  if (!node.ok()) {
    return node.status();
  }
  if (values.addrs && values.addrs->size() != 1 && values.addrs->size() != expanded->size()) {
    return where.Error("NodeAddr", absl::StrCat("expected one address, or one per node (",
                                                expanded->size(), "), got ", values.addrs->size()));
  }
  std::vector<NodeConfig> nodes;
  nodes.reserve(expanded->size());
  for (size_t i = 0; i < expanded->size(); ++i) {
    nodes.push_back(*node);
    nodes.back().name = std::move((*expanded)[i]);
    if (values.addrs) {
      nodes.back().addr = (*values.addrs)[values.addrs->size() == 1 ? 0 : i];
    }
  }
  return assembler_.AddNodes(std::move(nodes), line, where.Prefix());
}

absl::Status SlurmConfParser::HandlePartitionLine(const std::vector<SlurmConfToken>& tokens,
                                                  size_t first, int line) {
  const std::string& name = tokens[first].value;
  const SlurmWhere where{origin_, line, absl::StrCat("PartitionName=", internal::Printable(name))};
  if (name.empty()) {
    return LineError(line, "PartitionName: expected a partition name, got ''");
  }
  internal::SlurmPartitionValues values = partition_defaults_;
  for (size_t i = first + 1; i < tokens.size(); ++i) {
    if (absl::Status s = internal::ApplyPartitionKey(where, tokens[i], values, unused_); !s.ok()) {
      return s;
    }
  }
  if (absl::EqualsIgnoreCase(name, "DEFAULT")) {
    partition_defaults_ = std::move(values);
    return absl::OkStatus();
  }
  ParsedPartition parsed = internal::BuildPartition(values);
  parsed.config.name = name;
  parsed.line = line;
  parsed.name_where = absl::StrCat(origin_, ":", line, ": PartitionName");
  parsed.nodes_where = values.nodes ? values.nodes->where : where.Prefix();
  parsed.default_where = absl::StrCat(where.Prefix(), ": Default");
  return assembler_.AddPartition(std::move(parsed));
}

absl::Status SlurmConfParser::ReadTopology() {
  if (config_.topology_plugin.empty()) {
    return absl::OkStatus();
  }
  const std::string path = internal::SiblingPath(origin_, "topology.conf");
  config_.topology.origin = path;
  if (!read_topology_) {
    return absl::OkStatus();  // tests: remember where it would be, leave kind kNone
  }
  absl::StatusOr<std::string> text = internal::ReadConfigFile(path);
  if (!text.ok()) {
    return absl::Status(
        text.status().code(),
        absl::StrCat(origin_, ":", topology_line_, ": TopologyPlugin=", config_.topology_plugin,
                     " needs topology.conf: ", text.status().message()));
  }
  config_.topology.kind = TopologySource::Kind::kSlurmTopologyConf;
  config_.topology.text = *std::move(text);
  config_.topology.first_line = 1;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ClusterConfig> ParseSlurmConf(const std::string& text, const std::string& origin,
                                             bool read_topology) {
  return SlurmConfParser(origin, read_topology).Parse(text);
}

}  // namespace canopy::config
