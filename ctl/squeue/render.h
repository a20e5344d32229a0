// squeue's output, as Slurm 22.05 prints it (tests/data/slurm-reference/cli-outputs-22.05.txt).
// Pure: RenderSqueueOutput turns a ListJobsResponse into squeue's stdout, stderr and exit code,
// so it is compared byte for byte with the reference in tests. Thread-safe.
//
// Jobs (fields.h for every -o letter and -O name): one row per job, or per pending array
// ("5_[2-9%2]") unless -r, selected and sorted by rows.h. The formats: -o / -O, else
// SQUEUE_FORMAT / SQUEUE_FORMAT2, else by mode:
//   default  "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R"
//   -l       "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R"
//   --start  "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R"
//   -s       "%.15i %.8j %.9P %.8u %.9M %N" (steps)
// -l and -i print the date first ("Wed Dec 02 09:43:42 2026"), unless -h. --json: json.h.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "absl/time/time.h"
#include "canopy/v1/controller.pb.h"
#include "ctl/squeue/format.h"
#include "ctl/squeue/options.h"

namespace canopy::ctl::squeue {

// What rendering needs besides the answer.
struct RenderEnvironment {
  absl::TimeZone tz = absl::UTCTimeZone();
  // The name of a group id (%g); the number when unset.
  std::function<std::string(uint32_t)> group_name;
};

struct SqueueOutput {
  std::string out;
  std::string err;  // whole lines ("squeue: error: Invalid job format specification: X\n")
  int exit_code = 0;
};

SqueueOutput RenderSqueueOutput(const SqueueOptions& options,
                                const canopy::v1::ListJobsResponse& jobs,
                                const RenderEnvironment& env);

// The columns squeue prints with these options (-o, -O, else the mode's default above).
ParsedFormat ChooseFormat(const SqueueOptions& options);

// Only the standard output, in `tz` (for tests).
std::string RenderSqueue(const SqueueOptions& options, const canopy::v1::ListJobsResponse& jobs,
                         absl::TimeZone tz);

// True if -j names jobs and none of them is in `jobs` (squeue then fails: "slurm_load_jobs
// error: Invalid job id specified").
bool NoRequestedJobFound(const SqueueOptions& options, const canopy::v1::ListJobsResponse& jobs);

}  // namespace canopy::ctl::squeue
