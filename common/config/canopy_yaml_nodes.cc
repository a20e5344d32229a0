// YamlConfigParser's node and partition entries (canopy_yaml_parser.h): `nodes:` (names as
// hostlists, CPUs, memory, GPUs in their three forms) and `partitions:`.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/config/canopy_yaml_parser.h"
#include "common/config/yaml_policy.h"
#include "common/slurm/hostlist.h"

namespace canopy::config::internal {
namespace {

constexpr absl::string_view kGpusForms = "a GPU count, {type, count}, or a list of {type, count}";

}  // namespace

absl::Status YamlConfigParser::NodeEntry(const YamlValue& entry) {
  NodeConfig node;
  std::vector<std::string> names;
  YamlValue names_value;
  bool cpus_given = false;
  std::vector<std::string> addrs;
  YamlValue addr_value;
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
        if (key == "addr") {  // slurm.conf's NodeAddr: one address, or a hostlist, one per node
          addr_value = value;
          return Assign(NodeNames(value), addrs);
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
  if (addrs.size() > 1 && addrs.size() != names.size()) {
    return reader_.Error(addr_value, absl::StrCat("expected one address, or one per node (",
                                                  names.size(), "), got ", addrs.size()));
  }
  std::vector<NodeConfig> nodes;
  nodes.reserve(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    nodes.push_back(node);
    nodes.back().name = std::move(names[i]);
    if (!addrs.empty()) {
      nodes.back().addr = addrs[addrs.size() == 1 ? 0 : i];
    }
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

}  // namespace canopy::config::internal
