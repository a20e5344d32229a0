// squeue's options and output, as Slurm 22.05 prints them (../shared/reference/slurm/
// cli-outputs-22.05.txt). Pure: RenderSqueue turns a ListJobsResponse into squeue's text, so it
// is compared byte for byte with the reference in tests. Thread-safe.
//
// Served: -h/--noheader, -l/--long, -o/--format with %i %A %j %u %T %t %M %l %D %C %b %N %R %r
// %P %S %V %Q %a %e %L %Z %% (widths "%.18i" right-aligned, "%-10j"/"%10j" left-aligned, values
// cut to the width as squeue does), -j/--jobs, -u/--user, -p/--partition, -t/--states,
// -r/--array. Pending tasks of one array share a row ("5_[2-3]") unless -r.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "canopy/v1/controller.pb.h"

namespace canopy::ctl::squeue {

struct SqueueOptions {
  bool no_header = false;
  bool long_format = false;             // -l: STATE and TIME_LIMIT columns, and a date line first
  bool expand_arrays = false;           // -r: one row per array task
  std::string format;                   // -o; empty = the default (or -l's) format
  std::vector<std::string> jobs;        // -j: "8", "5" (a whole array), "5_1"
  std::vector<std::string> users;       // -u
  std::vector<std::string> partitions;  // -p
  std::vector<canopy::v1::JobState> states;  // -t; empty = default
  bool all_states = false;                   // -t all
};

// InvalidArgument with squeue's wording (printed after "squeue: ") for a bad option or value.
absl::StatusOr<SqueueOptions> ParseSqueueArgs(const std::vector<std::string>& args);

// Jobs selected by the options, in squeue's default order (partition, state, priority
// descending; Slurm leaves ties in slurmctld's list order, which showed newer submissions
// first, then job id), one row per job or per pending array.
std::string RenderSqueue(const SqueueOptions& options, const canopy::v1::ListJobsResponse& jobs,
                         absl::TimeZone tz);

// True if -j names jobs and none of them is in `jobs` (squeue then fails: "slurm_load_jobs
// error: Invalid job id specified").
bool NoRequestedJobFound(const SqueueOptions& options, const canopy::v1::ListJobsResponse& jobs);

}  // namespace canopy::ctl::squeue
