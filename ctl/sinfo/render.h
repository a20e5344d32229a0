// sinfo's output: partitions and nodes in Slurm 22.05's formats (tests/data/slurm-reference/
// cli-outputs-22.05.txt). Fields of -o/--format: %P %a %l %D %t %T %N %c %m %G %F %E %u %H
// (widths "%.6D", "%-9P", "%#P" as Slurm reads them). Pure: RenderSinfo is compared byte for
// byte with Slurm's output in tests. Thread-safe.
#pragma once

#include <string>

#include "absl/time/time.h"
#include "canopy/v1/controller.pb.h"
#include "ctl/sinfo/options.h"

namespace canopy::ctl::sinfo {

// The text sinfo prints for these partitions and nodes. `tz` formats %H timestamps.
std::string RenderSinfo(const SinfoOptions& options,
                        const canopy::v1::ListPartitionsResponse& partitions,
                        const canopy::v1::ListNodesResponse& nodes, absl::TimeZone tz);

}  // namespace canopy::ctl::sinfo
