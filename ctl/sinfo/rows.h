// sinfo's rows: which nodes it shows (-n, -t, -d, -r, -p, -R's states) and how it groups them
// into lines, as Slurm 22.05's sinfo does (sinfo.c: _filter_out, _match_part_data,
// _match_node_data). Pure; thread-safe.
//
// Grouping: nodes are taken partition by partition, in configuration order, each joining the
// first row that matches it, else starting a new row. A row matches when, for every field of
// the format: partition fields (P R a l L s g h r M p I B) are those of the same partition
// setting; node fields compare the node's own value: features (f b), GRES (G, GresUsed),
// reason (E), its time (H) and user (u U), the state name with its suffix (t T), the
// complete state, allocated memory. CPUs, memory, disk, weight, sockets, cores, threads,
// load, free memory and version are compared only with -e/--exact; otherwise the row shows
// their minimum with "+" (e.g. "8+"). With -N every node (per partition) is its own row, and
// so is every node when host names or addresses (n o) are shown. -R ignores partitions. A
// node is counted once per row. Without -N, a format that shows the partition (P or R) gets
// a row for every selected partition even when none of its nodes is selected ("0 n/a").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "canopy/v1/types.pb.h"
#include "ctl/sinfo/format.h"
#include "ctl/sinfo/node_state.h"

namespace canopy::ctl::sinfo {

// One node as sinfo sees it.
struct NodeInfo {
  const canopy::v1::Node* node = nullptr;
  uint32_t state = 0;  // SlurmNodeState
};

// One line of output: some nodes of one partition (any partition with -R).
struct Row {
  const canopy::v1::Partition* partition = nullptr;
  int partition_index = 0;  // position in the controller's list ("#P" sorts by it)
  std::vector<const NodeInfo*> nodes;
};

// What decides which nodes show and how they group.
struct RowSelection {
  bool node_oriented = false;                          // -N
  bool list_reasons = false;                           // -R
  bool exact = false;                                  // -e
  bool dead = false;                                   // -d: only nodes not responding
  bool responding = false;                             // -r: only responding nodes
  std::optional<std::vector<std::string>> node_names;  // -n, expanded; empty: none match
  std::vector<std::string> partitions;                 // -p; empty = all
  std::optional<StateFilter> states;                   // -t (or -R's "down,fail,drain")
};

// The rows for `nodes` (in the controller's order) and `partitions`, before sorting. The rows
// point into `nodes` and `partitions`, which must outlive them.
std::vector<Row> BuildRows(const SinfoFormat& format, const RowSelection& selection,
                           const std::vector<const canopy::v1::Partition*>& partitions,
                           const std::vector<NodeInfo>& nodes);

}  // namespace canopy::ctl::sinfo
