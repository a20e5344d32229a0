// NodeName and PartitionName keys of slurm.conf; see slurm_conf_values.h.
#include "common/config/slurm_conf_values.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/config/parse_util.h"
#include "common/slurm/hostlist.h"
#include "common/slurm/time_format.h"

namespace canopy::config::internal {
namespace {

constexpr absl::string_view kTimeForms =
    "a Slurm time (MINUTES, MINUTES:SECONDS, HOURS:MINUTES:SECONDS, DAYS-HOURS, "
    "DAYS-HOURS:MINUTES, DAYS-HOURS:MINUTES:SECONDS or UNLIMITED)";

absl::Status Expected(const SlurmWhere& where, absl::string_view field, absl::string_view expected,
                      absl::string_view got) {
  return where.Error(field, absl::StrCat("expected ", expected, ", got ", Quote(got, '\'')));
}

// Parses an integer in [min, kIntMax] into `out`; `expected` names the accepted range.
absl::Status ParseInt(const SlurmWhere& where, absl::string_view field, absl::string_view value,
                      int64_t min, absl::string_view expected, std::optional<int>& out) {
  std::optional<int64_t> parsed = ParseDecimal(value, kIntMax);
  if (!parsed || *parsed < min) {
    return Expected(where, field, expected, value);
  }
  out = static_cast<int>(*parsed);
  return absl::OkStatus();
}

// Slurm's booleans (s_p_handle_boolean): YES/NO, TRUE/FALSE, UP/DOWN, 1/0, any case.
std::optional<bool> ParseBool(absl::string_view value) {
  const std::string lower = absl::AsciiStrToLower(value);
  if (lower == "yes" || lower == "true" || lower == "up" || lower == "1") {
    return true;
  }
  if (lower == "no" || lower == "false" || lower == "down" || lower == "0") {
    return false;
  }
  return std::nullopt;
}

// Splits at commas that are not inside parentheses, so "gpu:2(S:0,1),mps:100" gives two
// entries.
std::vector<absl::string_view> SplitTopLevelCommas(absl::string_view value) {
  std::vector<absl::string_view> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < value.size(); ++i) {
    if (value[i] == '(') {
      ++depth;
    } else if (value[i] == ')' && depth > 0) {
      --depth;
    } else if (value[i] == ',' && depth == 0) {
      parts.push_back(value.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(value.substr(start));
  return parts;
}

bool IsDigits(absl::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::string SlurmWhere::Prefix() const {
  if (subject.empty()) {
    return absl::StrCat(origin, ":", line);
  }
  return absl::StrCat(origin, ":", line, ": ", subject);
}

absl::Status SlurmWhere::Error(absl::string_view field, absl::string_view message) const {
  if (field.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(Prefix(), ": ", message));
  }
  return absl::InvalidArgumentError(absl::StrCat(Prefix(), ": ", field, ": ", message));
}

absl::StatusOr<std::vector<GpuConfig>> ParseGres(const SlurmWhere& where, absl::string_view value,
                                                 UnusedKeys& unused) {
  std::vector<GpuConfig> gpus;
  const std::string lower_value = absl::AsciiStrToLower(value);
  if (lower_value.empty() || lower_value == "none" || lower_value == "(null)") {
    return gpus;  // how scontrol prints "no GRES"; sites paste it back into slurm.conf
  }
  constexpr absl::string_view kForm = "name[:type][:count] entries separated by commas";
  for (absl::string_view entry : SplitTopLevelCommas(value)) {
    const absl::string_view original = entry;
    // "(S:0-1)" is socket affinity, which Canopy does not use.
    if (const size_t paren = entry.find('('); paren != absl::string_view::npos) {
      if (entry.back() != ')') {
        return Expected(where, "Gres", kForm, original);
      }
      entry = entry.substr(0, paren);
    }
    std::vector<absl::string_view> parts = absl::StrSplit(entry, ':');
    const absl::string_view name = parts[0];
    if (name.empty()) {
      return Expected(where, "Gres", kForm, original);
    }
    if (!absl::EqualsIgnoreCase(name, "gpu")) {
      unused.Add(absl::StrCat("gres/", Printable(name)));
      continue;
    }
    // Remaining fields: [type][:no_consume][:count]; a numeric last field is the count.
    std::vector<absl::string_view> rest;
    for (size_t i = 1; i < parts.size(); ++i) {
      if (!absl::EqualsIgnoreCase(parts[i], "no_consume")) {
        rest.push_back(parts[i]);
      }
    }
    if (rest.size() > 2 || std::find(rest.begin(), rest.end(), "") != rest.end()) {
      return Expected(where, "Gres", "gpu[:type]:count", original);
    }
    GpuConfig gpu;
    gpu.count = 1;
    absl::string_view count_text;
    if (rest.size() == 2) {
      gpu.type = std::string(rest[0]);
      count_text = rest[1];
    } else if (rest.size() == 1) {
      if (IsDigits(rest[0])) {
        count_text = rest[0];
      } else {
        gpu.type = std::string(rest[0]);
      }
    }
    if (!count_text.empty()) {
      std::optional<int64_t> count = ParseDecimal(count_text, kIntMax);
      if (!count) {
        return Expected(where, "Gres", "gpu[:type]:count with a whole-number count", original);
      }
      gpu.count = static_cast<int>(*count);
    }
    for (const GpuConfig& seen : gpus) {
      if (seen.type == gpu.type) {
        return where.Error("Gres", absl::StrCat("gpu type ", Quote(gpu.type, '\''),
                                                " is listed twice in ", Quote(value, '\'')));
      }
    }
    if (gpu.count > 0) {
      gpus.push_back(std::move(gpu));
    }
  }
  return gpus;
}

absl::Status ApplyNodeKey(const SlurmWhere& where, const SlurmConfToken& token,
                          SlurmNodeValues& values, UnusedKeys& unused) {
  if (!token.has_equals || token.key.empty()) {
    return where.Error("", absl::StrCat("expected Key=Value, got ", Quote(token.raw, '\'')));
  }
  const std::string key = absl::AsciiStrToLower(token.key);
  const absl::string_view value = token.value;
  constexpr absl::string_view kPositive = "a positive integer";
  if (key == "cpus" || key == "procs") {  // Procs is the pre-2.x spelling of CPUs
    return ParseInt(where, "CPUs", value, 1, kPositive, values.cpus);
  }
  if (key == "boards") {
    return ParseInt(where, "Boards", value, 1, kPositive, values.boards);
  }
  if (key == "sockets") {
    return ParseInt(where, "Sockets", value, 1, kPositive, values.sockets);
  }
  if (key == "socketsperboard") {
    return ParseInt(where, "SocketsPerBoard", value, 1, kPositive, values.sockets_per_board);
  }
  if (key == "corespersocket") {
    return ParseInt(where, "CoresPerSocket", value, 1, kPositive, values.cores_per_socket);
  }
  if (key == "threadspercore") {
    return ParseInt(where, "ThreadsPerCore", value, 1, kPositive, values.threads_per_core);
  }
  if (key == "weight") {
    return ParseInt(where, "Weight", value, 0, "a non-negative integer", values.weight);
  }
  if (key == "realmemory") {
    std::optional<int64_t> mib = ParseDecimal(value, kInt64Max);
    if (!mib || *mib < 1) {
      return Expected(where, "RealMemory", "a positive number of MiB", value);
    }
    values.real_memory_mib = *mib;
    return absl::OkStatus();
  }
  if (key == "gres") {
    absl::StatusOr<std::vector<GpuConfig>> gpus = ParseGres(where, value, unused);
    if (!gpus.ok()) {
      return gpus.status();
    }
    values.gpus = *std::move(gpus);
    return absl::OkStatus();
  }
  if (key == "features" || key == "feature") {
    std::vector<std::string> features;
    for (absl::string_view f : absl::StrSplit(value, ',')) {
      f = absl::StripAsciiWhitespace(f);
      if (!f.empty()) {
        features.emplace_back(f);
      }
    }
    values.features = std::move(features);
    return absl::OkStatus();
  }
  if (key == "nodeaddr") {
    absl::StatusOr<std::vector<std::string>> addrs = slurm::ExpandHostlist(std::string(value));
    if (!addrs.ok() || addrs->empty()) {
      return Expected(where, "NodeAddr", "an address or a hostlist of them, one per node", value);
    }
    values.addrs = *std::move(addrs);
    return absl::OkStatus();
  }
  if (key == "nodename" || key == "partitionname") {
    return where.Error(token.key, "start a new line for each NodeName or PartitionName");
  }
  unused.Add(absl::StrCat("NodeName.", token.key));
  return absl::OkStatus();
}

absl::StatusOr<NodeConfig> BuildNode(const SlurmWhere& where, const SlurmNodeValues& values) {
  NodeConfig node;
  if (values.cpus) {
    node.cpus = *values.cpus;
  } else {
    const int64_t sockets =
        values.sockets ? *values.sockets
                       : int64_t{values.boards.value_or(1)} * values.sockets_per_board.value_or(1);
    // Each factor is at most INT_MAX, so check after each product to avoid overflow.
    int64_t cpus = sockets;
    for (int64_t factor : {int64_t{values.cores_per_socket.value_or(1)},
                           int64_t{values.threads_per_core.value_or(1)}}) {
      if (cpus > kIntMax) {
        break;
      }
      cpus *= factor;
    }
    if (cpus > kIntMax) {
      return where.Error("CPUs", "Sockets x CoresPerSocket x ThreadsPerCore is too large");
    }
    node.cpus = static_cast<int>(cpus);
  }
  node.real_memory_mib = values.real_memory_mib.value_or(1);
  if (values.gpus) {
    node.gpus = *values.gpus;
  }
  node.weight = values.weight.value_or(1);
  if (values.boards || values.sockets || values.sockets_per_board || values.cores_per_socket ||
      values.threads_per_core) {
    node.boards = values.boards.value_or(1);
    const int64_t sockets = values.sockets
                                ? *values.sockets
                                : int64_t{node.boards} * values.sockets_per_board.value_or(1);
    if (sockets > kIntMax) {
      return where.Error("Sockets", "Boards x SocketsPerBoard is too large");
    }
    node.sockets = static_cast<int>(sockets);
    node.cores_per_socket = values.cores_per_socket.value_or(1);
    node.threads_per_core = values.threads_per_core.value_or(1);
  }
  if (values.features) {
    node.features = *values.features;
  }
  return node;
}

absl::Status ApplyPartitionKey(const SlurmWhere& where, const SlurmConfToken& token,
                               SlurmPartitionValues& values, UnusedKeys& unused) {
  if (!token.has_equals || token.key.empty()) {
    return where.Error("", absl::StrCat("expected Key=Value, got ", Quote(token.raw, '\'')));
  }
  const std::string key = absl::AsciiStrToLower(token.key);
  const absl::string_view value = token.value;
  if (key == "nodes") {
    SlurmPartitionNodes nodes;
    nodes.where = absl::StrCat(where.Prefix(), ": Nodes");
    if (absl::EqualsIgnoreCase(value, "ALL")) {
      nodes.all = true;
    } else if (!value.empty()) {
      absl::StatusOr<std::vector<std::string>> names = slurm::ExpandHostlist(std::string(value));
      if (!names.ok()) {
        return where.Error("Nodes", names.status().message());
      }
      nodes.names = *std::move(names);
    }
    values.nodes = std::move(nodes);
    return absl::OkStatus();
  }
  if (key == "default") {
    std::optional<bool> b = ParseBool(value);
    if (!b) {
      return Expected(where, "Default", "YES or NO", value);
    }
    values.is_default = *b;
    return absl::OkStatus();
  }
  if (key == "state") {
    const std::string state = absl::AsciiStrToUpper(value);
    if (state == "UP") {
      values.up = true;
    } else if (state == "DOWN" || state == "DRAIN" || state == "INACTIVE") {
      values.up = false;
    } else {
      return Expected(where, "State", "UP, DOWN, DRAIN or INACTIVE", value);
    }
    return absl::OkStatus();
  }
  if (key == "maxtime" || key == "defaulttime") {
    const bool is_max = key == "maxtime";
    const absl::string_view field = is_max ? "MaxTime" : "DefaultTime";
    // DefaultTime=NONE (Slurm's default) means "use MaxTime"; we store that as infinite.
    if (!is_max && absl::EqualsIgnoreCase(value, "NONE")) {
      values.default_time = absl::InfiniteDuration();
      return absl::OkStatus();
    }
    absl::StatusOr<absl::Duration> d = slurm::ParseSlurmDuration(std::string(value));
    if (!d.ok()) {
      return Expected(where, field, kTimeForms, value);
    }
    (is_max ? values.max_time : values.default_time) = *d;
    return absl::OkStatus();
  }
  if (key == "maxnodes") {
    if (absl::EqualsIgnoreCase(value, "UNLIMITED") || absl::EqualsIgnoreCase(value, "INFINITE")) {
      values.max_nodes = -1;
      return absl::OkStatus();
    }
    std::optional<int64_t> n = ParseDecimal(value, kInt64Max);
    if (!n) {
      return Expected(where, "MaxNodes", "a non-negative integer or UNLIMITED", value);
    }
    values.max_nodes = *n;
    return absl::OkStatus();
  }
  if (key == "nodename" || key == "partitionname") {
    return where.Error(token.key, "start a new line for each NodeName or PartitionName");
  }
  absl::StatusOr<bool> applied =
      ApplyPartitionPolicyKey(NormalizeSchedulingKey(key), value, '\'', values.policy);
  if (!applied.ok()) {
    return where.Error(token.key, applied.status().message());
  }
  if (!*applied) {
    unused.Add(absl::StrCat("PartitionName.", token.key));
  }
  return absl::OkStatus();
}

ParsedPartition BuildPartition(const SlurmPartitionValues& values) {
  ParsedPartition parsed;
  PartitionConfig& p = parsed.config;
  if (values.nodes) {
    parsed.all_nodes = values.nodes->all;
    p.nodes = values.nodes->names;
  }
  p.is_default = values.is_default.value_or(false);
  p.up = values.up.value_or(true);
  p.max_time = values.max_time.value_or(absl::InfiniteDuration());
  p.default_time = values.default_time.value_or(absl::InfiniteDuration());
  p.max_nodes = values.max_nodes.value_or(-1);
  p.policy = values.policy;
  return parsed;
}

}  // namespace canopy::config::internal
