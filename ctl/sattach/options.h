// sattach's command line (Slurm 22.05): sattach [options] <jobid.stepid>, with
// --input-filter/--output-filter/--error-filter=TASK, -l/--label, --layout, -Q/--quiet,
// -v/--verbose, -V/--version, -h/--help, -u/--usage. Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "canopy/v1/controller.pb.h"

namespace canopy::ctl::sattach {

enum class Info { kNone, kHelp, kUsage, kVersion };

struct SattachOptions {
  uint32_t job_id = 0;
  uint32_t step_id = 0;
  std::optional<int> input_filter;  // accepted: Canopy's steps take no stdin
  std::optional<int> output_filter;
  std::optional<int> error_filter;  // defaults to output_filter, as in Slurm
  bool label = false;
  bool layout = false;
  bool quiet = false;
  int verbose = 0;
  Info info = Info::kNone;
};

// InvalidArgument whose message is what sattach prints: getopt's lines, "Invalid numeric value
// \"abc\" for output-filter.", "too many parameters" (none or two step ids), "Failed to parse
// stepid from command line options"; the usage line follows the last two on stdout (`usage`).
struct SattachError {
  std::string message;
  bool print_usage = false;
};
absl::StatusOr<SattachOptions> ParseSattachArgs(const std::vector<std::string>& args,
                                                SattachError* error);

// "Usage: sattach [options] <jobid.stepid>\n", the help text and the version line.
std::string SattachInfoText(Info info);

// sattach --layout, in Slurm's words:
//   Job step layout:
//   \t2 tasks, 1 nodes (gpu001)
//
//   \tNode 0 (gpu001), 2 task(s): 0 1
std::string LayoutText(const canopy::v1::AttachStepResponse& step);

// The stream a task's output is shown on passes the filters.
bool PassesFilter(const SattachOptions& options, int rank, bool is_stderr);

}  // namespace canopy::ctl::sattach
