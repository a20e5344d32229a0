// `sinfo`: partitions and nodes in Slurm 22.05's formats. Options served: -h/--noheader,
// -N/--Node, -R/--list-reasons, -s/--summarize, -p/--partition, -n/--nodes, -o/--format with
// the fields %P %a %l %D %t %T %N %c %m %G %F %E %u %H (widths "%.6D", "%-9P", "%#P" as Slurm
// reads them). Rendering is pure (RenderSinfo) so it is tested without a controller.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "canopy/v1/controller.pb.h"

namespace canopy::ctl::sinfo {

struct SinfoOptions {
  bool no_header = false;
  bool node_oriented = false;  // -N
  bool reasons = false;        // -R
  bool summarize = false;      // -s
  std::string partition;       // -p (comma-separated)
  std::string nodes;           // -n hostlist
  std::string format;          // -o; empty = the mode's default
};

// InvalidArgument with sinfo's wording for an unknown option or a missing argument.
absl::StatusOr<SinfoOptions> ParseSinfoArgs(const std::vector<std::string>& args);

// The text sinfo prints for these partitions and nodes. `tz` formats %H timestamps.
std::string RenderSinfo(const SinfoOptions& options,
                        const canopy::v1::ListPartitionsResponse& partitions,
                        const canopy::v1::ListNodesResponse& nodes, absl::TimeZone tz);

int RunSinfo(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace canopy::ctl::sinfo
