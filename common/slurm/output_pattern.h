// Expansion of sbatch's "filename pattern" for --output/--error (`man sbatch`, section
// "filename pattern"): "%j" job id, "%4j" zero-padded, and so on. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace canopy::slurm {

// What the replacement symbols stand for. The batch step is step_id == std::nullopt.
struct OutputPatternContext {
  uint32_t job_id = 0;
  // Set for array jobs only: %A is the array's master job id, %a the task index.
  std::optional<uint32_t> array_job_id;
  std::optional<uint32_t> array_task_id;
  std::string job_name;             // %x
  std::string user_name;            // %u
  std::string node_name;            // %N: short host name of the node writing the file
  uint32_t node_index = 0;          // %n: node rank within the job (0 for the batch step)
  uint32_t task_id = 0;             // %t: task rank (0 for the batch step)
  std::optional<uint32_t> step_id;  // %s, %J; nullopt is the batch step
};

// Slurm's cap on the zero-padding width ("%20j" pads to 10 digits).
inline constexpr int kMaxOutputPatternWidth = 10;

// Expands `pattern` the way slurmd names a job's output file:
//   %% -> "%"; %j job id; %J "jobid.stepid" ("jobid" alone for the batch step); %s step id
//   ("batch" for the batch step); %A array master job id (the job id when not an array);
//   %a array index (4294967294, Slurm's NO_VAL, when not an array); %x job name; %u user;
//   %N node name; %n node index; %t task rank.
// Digits between '%' and the letter zero-pad numeric fields ("%4j" -> "0128"), capped at
// kMaxOutputPatternWidth, and are ignored for text fields (%x %u %N, and "batch" for %s).
// A '%' followed by anything else is copied as written, as Slurm does. A pattern containing a
// backslash is not expanded at all: the backslashes are removed and the rest copied (`man
// sbatch`: "\\ Do not process any of the replacement symbols").
// An empty pattern means sbatch's default: "slurm-%j.out", or "slurm-%A_%a.out" for an array job.
std::string ExpandOutputPattern(absl::string_view pattern, const OutputPatternContext& context);

}  // namespace canopy::slurm
