// squeue's output, as Slurm 22.05 prints it (tests/data/slurm-reference/cli-outputs-22.05.txt).
// Pure: RenderSqueue turns a ListJobsResponse into squeue's text, so it is compared byte for byte
// with the reference in tests. Thread-safe.
//
// Fields of -o/--format: %i %A %j %u %T %t %M %l %D %C %b %N %R %r %P %S %V %Q %a %q %e %L %Z %Y
// %% (%q: the job's QOS)
// (%S of a pending job: its expected start from a backfill reservation, else N/A; %Y: the nodes
// it is expected to start on, else "(null)")
// (widths "%.18i" right-aligned, "%-10j"/"%10j" left-aligned, values cut to the width as squeue
// does). Pending tasks of one array share a row ("5_[2-3]") unless -r.
#pragma once

#include <string>

#include "absl/time/time.h"
#include "canopy/v1/controller.pb.h"
#include "ctl/squeue/options.h"

namespace canopy::ctl::squeue {

// Jobs selected by the options, in squeue's default order (partition, state, priority
// descending; Slurm leaves ties in slurmctld's list order, which showed newer submissions
// first, then job id), one row per job or per pending array.
std::string RenderSqueue(const SqueueOptions& options, const canopy::v1::ListJobsResponse& jobs,
                         absl::TimeZone tz);

// True if -j names jobs and none of them is in `jobs` (squeue then fails: "slurm_load_jobs
// error: Invalid job id specified").
bool NoRequestedJobFound(const SqueueOptions& options, const canopy::v1::ListJobsResponse& jobs);

}  // namespace canopy::ctl::squeue
