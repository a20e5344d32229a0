// Job array specifications (sbatch --array): "0-15", "1,3,5", "0-20:4", "0-99%10", mixtures
// separated by commas. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace canopy::slurm {

struct ArraySpec {
  std::vector<uint32_t> task_ids;  // ascending, unique
  int32_t max_running = 0;         // "%N": at most N tasks running at once; 0 = no limit
};

// The largest MaxArraySize Slurm accepts: any stored spec parses under it.
inline constexpr int kMaxArraySizeLimit = 4000001;

// The "%N" throttle of a spec (0 = none), read without expanding the task ids.
int32_t ArrayThrottle(absl::string_view spec);

// InvalidArgument "Invalid job array specification" (sbatch's words) with what was wrong, for
// an empty spec, bad numbers, a step of 0, a range going down, or a task id that is not below
// `max_array_size` (slurm.conf MaxArraySize, default 1001: ids 0 to 1000).
absl::StatusOr<ArraySpec> ParseArraySpec(absl::string_view spec, int max_array_size = 1001);

}  // namespace canopy::slurm
