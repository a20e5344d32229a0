// Printing errors the way Slurm's commands do: "PROG: " before each line except getopt's
// "Try \"PROG --help\" ..." hint (common/slurm/getopt.h), which Slurm prints bare.
// Thread-compatible.
#pragma once

#include <ostream>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

namespace canopy::ctl::client {

// A parse error of `program`: each line prefixed, except the getopt hint and scancel's
// "Unknown job signal: X", which Slurm prints bare.
inline void PrintCliError(absl::string_view program, absl::string_view message, std::ostream& err) {
  for (absl::string_view line : absl::StrSplit(message, '\n')) {
    if (absl::StartsWith(line, "Try \"") || absl::StartsWith(line, "Unknown job signal")) {
      err << line << "\n";
    } else {
      err << program << ": " << line << "\n";
    }
  }
}

// canopyd's refusal of a submission, as srun and salloc print it. canopyd words its refusals as
// sbatch prints them ("invalid partition specified: X", then "Batch job submission failed:
// REASON"); srun and salloc print the leading lines as errors and the reason after their own
// words: `reason_prefix` is "srun: error: Unable to allocate resources: " or "salloc: error: Job
// submit/allocate failed: ".
inline void PrintAllocationRefusal(absl::string_view error_prefix, absl::string_view reason_prefix,
                                   absl::string_view message, std::ostream& err) {
  std::vector<absl::string_view> lines = absl::StrSplit(message, '\n');
  for (size_t i = 0; i + 1 < lines.size(); ++i) {
    err << error_prefix << lines[i] << "\n";
  }
  absl::string_view reason = lines.back();
  absl::ConsumePrefix(&reason, "Batch job submission failed: ");
  err << reason_prefix << reason << "\n";
}

// Prints a (possibly multi-line) message with `prefix` on every line ("sbatch: error: ").
inline void PrintPrefixed(absl::string_view prefix, absl::string_view message, std::ostream& err) {
  for (absl::string_view line : absl::StrSplit(message, '\n')) {
    err << prefix << line << "\n";
  }
}

// getopt failures ("unrecognized option", "requires an argument") make srun and sbatch exit
// with 255; other errors with 1.
inline int GetoptExitCode(absl::string_view message) {
  return absl::StrContains(message, "Try \"") ? 255 : 1;
}

}  // namespace canopy::ctl::client
