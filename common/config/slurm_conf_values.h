// The keys of slurm.conf's NodeName and PartitionName lines: their values as parsed (every field
// optional, so a NodeName=DEFAULT line can supply only some of them), how one Key=Value token
// updates them, and how the final values become a NodeConfig or a partition.
//
// Internal to canopy_config; pure, thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/config/cluster_config.h"
#include "common/config/config_assembler.h"
#include "common/config/parse_util.h"
#include "common/config/scheduling_policy.h"
#include "common/config/slurm_conf_lexer.h"

namespace canopy::config::internal {

// Names the entry an error is about: "slurm.conf:14: NodeName=gpu[001-016]".
struct SlurmWhere {
  absl::string_view origin;
  int line = 0;
  std::string subject;  // may be empty for top-level keys

  std::string Prefix() const;
  // InvalidArgument "<prefix>: <field>: <message>" ("<prefix>: <message>" when field is empty).
  absl::Status Error(absl::string_view field, absl::string_view message) const;
};

struct SlurmNodeValues {
  std::optional<int> cpus;
  std::optional<int> boards;
  std::optional<int> sockets;
  std::optional<int> sockets_per_board;
  std::optional<int> cores_per_socket;
  std::optional<int> threads_per_core;
  std::optional<int64_t> real_memory_mib;
  std::optional<std::vector<GpuConfig>> gpus;
  std::optional<int> weight;
  std::optional<std::vector<std::string>> features;
  std::optional<std::vector<std::string>> addrs;  // NodeAddr, expanded
};

// A partition's Nodes= value, expanded, with the place it was written (it may come from a
// PartitionName=DEFAULT line, and unknown-node errors should point there).
struct SlurmPartitionNodes {
  bool all = false;
  std::vector<std::string> names;
  std::string where;  // "slurm.conf:15: PartitionName=gpu: Nodes"
};

struct SlurmPartitionValues {
  std::optional<SlurmPartitionNodes> nodes;
  std::optional<bool> is_default;
  std::optional<bool> up;
  std::optional<absl::Duration> max_time;
  std::optional<absl::Duration> default_time;
  std::optional<int64_t> max_nodes;
  PartitionPolicy policy;  // TRESBillingWeights, PriorityJobFactor, PriorityTier
};

// Applies one token of a NodeName line. Keys Canopy does not use are added to `unused` as
// "NodeName.<Key>"; GRES other than gpu as "gres/<name>".
absl::Status ApplyNodeKey(const SlurmWhere& where, const SlurmConfToken& token,
                          SlurmNodeValues& values, UnusedKeys& unused);

// The node described by `values` (name left empty). CPUs defaults, as in Slurm, to
// Sockets (or Boards x SocketsPerBoard) x CoresPerSocket x ThreadsPerCore.
absl::StatusOr<NodeConfig> BuildNode(const SlurmWhere& where, const SlurmNodeValues& values);

// Applies one token of a PartitionName line; unused keys become "PartitionName.<Key>".
absl::Status ApplyPartitionKey(const SlurmWhere& where, const SlurmConfToken& token,
                               SlurmPartitionValues& values, UnusedKeys& unused);

// The partition described by `values`; the caller fills in name and message prefixes.
ParsedPartition BuildPartition(const SlurmPartitionValues& values);

// Parses a Gres= value ("gpu:h100:8", "gpu:8,mps:100", "gpu:a100:4(S:0-1)"). Only gpu entries
// are returned; other names go to `unused` as "gres/<name>".
absl::StatusOr<std::vector<GpuConfig>> ParseGres(const SlurmWhere& where, absl::string_view value,
                                                 UnusedKeys& unused);

}  // namespace canopy::config::internal
