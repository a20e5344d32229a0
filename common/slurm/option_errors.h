// The errors sbatch and srun give for an option's value, shared by the parsers of the options
// (option_values.cc) and of the values a job records (recorded_option_values.cc), and the one
// the admin commands' value parsers give (limit_values.cc, scheduling_values.cc).
#pragma once

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace canopy::slurm::option_errors {

inline constexpr int64_t kMaxCount = 2147483647;  // Slurm's largest count (INT_MAX)

inline absl::Status Error(absl::string_view text) {
  return absl::InvalidArgumentError(absl::StrCat("error: ", text));
}

// "error: Invalid --<option> specification", as Slurm words a value it cannot parse.
inline absl::Status Spec(absl::string_view long_name) {
  return Error(absl::StrCat("Invalid --", long_name, " specification"));
}

// "expected <what>, got '<got>'": a value of sacctmgr or scontrol that is not of its kind.
inline absl::Status Expected(absl::string_view what, absl::string_view got) {
  return absl::InvalidArgumentError(absl::StrCat("expected ", what, ", got '", got, "'"));
}

}  // namespace canopy::slurm::option_errors
