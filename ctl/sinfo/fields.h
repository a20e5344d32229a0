// The value of every sinfo field for a row, as Slurm 22.05 prints it, from what Canopy's
// controller reports. Pure; thread-safe.
//
// Fields Canopy has no data for print what Slurm prints for a value it does not know: CPU load
// (O) and free memory (e) "N/A", TmpDisk (d) "0", Port "0", Comment and Extra "(null)",
// Cluster (V) "N/A". Partition settings Canopy does not have print Slurm's defaults, which is
// what such a partition is: GROUPS (g) and ALLOCNODES (S) "all", OVERSUBSCRIBE (h) "NO",
// ROOT (r) "no", MAX_CPUS_PER_NODE (B) "UNLIMITED", PREEMPT_MODE (M) "OFF" when the controller
// leaves it to the cluster. Host names and addresses (n o) are the node names (Slurm's
// NodeHostname and NodeAddr default to NodeName; Canopy has no others). ACTIVE_FEATURES (b)
// are the configured features (Canopy does not change features). A row without nodes (a
// partition none of whose nodes is selected) prints what Slurm prints for it: "0", "n/a",
// "none", "(null)", user "root" (a zero uid), and so on.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "absl/time/time.h"
#include "ctl/sinfo/format.h"
#include "ctl/sinfo/rows.h"

namespace canopy::ctl::sinfo {

struct FieldContext {
  absl::TimeZone tz = absl::UTCTimeZone();  // TIMESTAMP (H)
  // The uid of a user name, for USER with uid (U): "root(0)". Unset or nullopt: the name alone.
  std::function<std::optional<uint32_t>(const std::string&)> uid_of;
};

// The text of `field` for `row`, uncut. PARTITION (P) is the name with "*" for the default
// partition; the layout shortens it (PartitionCell).
std::string FieldValue(Field field, const Row& row, const FieldContext& context);

// PARTITION cut to `width` as Slurm cuts it: the default partition keeps its "*" ("gp*").
std::string PartitionCell(const Row& row, int width);

// How a field takes part in grouping (rows.h).
enum class FieldMatch {
  kNone,           // per row: counts, node lists, constants
  kPartition,      // a partition setting
  kNode,           // the node's own value must equal the row's
  kNodeIfExact,    // only with -e; otherwise the row shows its minimum
  kSeparateNodes,  // every node its own row (host names, addresses)
};
FieldMatch MatchOf(Field field);

// The value of a node-matched field (kNode, kNodeIfExact) for one node, or of a partition
// field for one partition: equal keys group.
std::string NodeKey(Field field, const NodeInfo& node, const FieldContext& context);
std::string PartitionKey(Field field, const canopy::v1::Partition& partition);

// A node's sockets, cores per socket and threads per core. A controller that does not report
// the layout (all zero) gets Slurm's layout for a node configured with CPUs= only: one
// single-threaded core per socket.
struct CpuLayout {
  int64_t sockets = 0;
  int64_t cores = 0;
  int64_t threads = 0;
};
CpuLayout LayoutOf(const canopy::v1::Node& node);

}  // namespace canopy::ctl::sinfo
