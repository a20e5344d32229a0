// The Slurm release whose commands Canopy's front ends match, and the line their -V/--version
// prints. Thread-safe.
#pragma once

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace canopy::slurm {

inline constexpr absl::string_view kSlurmRelease = "22.05.8";

// "slurm 22.05.8 (Canopy's squeue)\n". Slurm's commands print "slurm 22.05.8" (Debian's build
// "slurm-wlm 22.05.8"); Canopy's add which command answered and keep the release number that
// tools parse (reframe reads "slurm (\d+)\.(\d+)\.(\d+)", scripts take the second word).
inline std::string SlurmVersionLine(absl::string_view command) {
  return absl::StrCat("slurm ", kSlurmRelease, " (Canopy's ", command, ")\n");
}

}  // namespace canopy::slurm
