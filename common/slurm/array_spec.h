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

// InvalidArgument "Invalid job array specification" (sbatch's words) with what was wrong, for
// an empty spec, bad numbers, a step of 0, a range going down, or more than `max_tasks` tasks.
absl::StatusOr<ArraySpec> ParseArraySpec(absl::string_view spec, int max_tasks = 1001);

}  // namespace canopy::slurm
