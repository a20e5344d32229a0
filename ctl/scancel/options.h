// scancel's command line, by getopt_long's rules with scancel's table (common/slurm/getopt.h):
// options and job ids mix. Pure; thread-safe.
//
// Served: -b/--batch, -v/--verbose, -s/--signal, -u/--user, -n/--name (--jobname),
// -p/--partition, -t/--state, --help, --usage, -V/--version, and unique prefixes of those long
// names. Job ids may be "J", "J_T" (one array task) or "J.S" (a step). Signals are names
// ("USR1", "SIGUSR1") or numbers (slurm::SignalNumber).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "canopy/v1/types.pb.h"
#include "common/slurm/option_values.h"

namespace canopy::ctl::scancel {

struct ScancelTarget {
  uint32_t job_id = 0;
  std::optional<uint32_t> array_task;  // "J_T"
  std::optional<uint32_t> step_id;     // "J.S"
  std::string text;                    // as written
};

struct ScancelOptions {
  std::vector<ScancelTarget> targets;
  int signal = 0;  // 0 = cancel
  bool batch = false;
  int verbose = 0;
  std::string user;
  std::string name;
  std::string partition;
  std::optional<canopy::v1::JobState> state;
  // --help, --usage or -V: answered instead of cancelling anything (no job id needed).
  slurm::InfoRequest info = slurm::InfoRequest::kNone;
  // Any of -u/-n/-p/-t: jobs are selected by listing them first.
  bool HasFilters() const {
    return !user.empty() || !name.empty() || !partition.empty() || state.has_value();
  }
};

// InvalidArgument with scancel's wording (printed after "scancel: ", except "Unknown job
// signal: X", printed bare) for a bad option (getopt's texts and the "Try \"scancel --help\""
// line), an invalid job id, signal or state, or nothing to cancel.
absl::StatusOr<ScancelOptions> ParseScancelArgs(const std::vector<std::string>& args);

}  // namespace canopy::ctl::scancel
