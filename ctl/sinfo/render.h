// sinfo's output: partitions and nodes in Slurm 22.05's formats (tests/data/slurm-reference/
// cli-outputs-22.05.txt): the rows (rows.h), sorted (sort.h), each field (fields.h) laid out
// by its column (format.h). Pure: RenderSinfo is compared byte for byte with Slurm's output in
// tests. Thread-safe.
//
// Layout, as Slurm's print.c: a column of width W shows its value cut to W and padded to W
// (right-aligned with '.'), then its suffix; width 0 shows the value as it is. The header line
// uses the same columns. The default formats widen PARTITION and NODELIST to their widest value
// (at least 9). With -l or -i a line with the date ("Thu Dec 03 14:52:44 2026") comes before
// the header; with -i a blank line follows each report. -T prints "No reservations in the
// system": Canopy has no reservations.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>

#include "absl/time/time.h"
#include "canopy/v1/controller.pb.h"
#include "ctl/sinfo/options.h"

namespace canopy::ctl::sinfo {

struct RenderContext {
  absl::TimeZone tz = absl::UTCTimeZone();  // TIMESTAMP and the date line
  absl::Time now = absl::UnixEpoch();       // the date line of -l and -i
  // The uid of a user name (USER with uid, U); unset or nullopt: the name alone.
  std::function<std::optional<uint32_t>(const std::string&)> uid_of;
  // Nodes the backfill plan of some pending job holds (Slurm's PLANNED flag, "-").
  std::set<std::string> planned_nodes;
};

struct SinfoOutput {
  std::string out;
  std::string err;  // format warnings, as sinfo prints them (the report still follows)
};

// One report of sinfo for these partitions and nodes.
SinfoOutput RenderSinfo(const SinfoOptions& options,
                        const canopy::v1::ListPartitionsResponse& partitions,
                        const canopy::v1::ListNodesResponse& nodes, const RenderContext& context);

// The nodes that pending jobs' backfill plans hold (Job.expected_nodes of PENDING jobs).
std::set<std::string> PlannedNodes(const canopy::v1::ListJobsResponse& jobs);

}  // namespace canopy::ctl::sinfo
