// The appliers of sbatch's option values (sbatch_options.cc): each checks one option's value
// as Slurm's sbatch does and stores it in SbatchOptions, with Slurm's error words. Internal to
// the sbatch parser; split from it by concern (the table and order of options stay there).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "common/slurm/sbatch_options.h"

namespace canopy::slurm::sbatch_internal {

// "error: TEXT", as sbatch prints it.
absl::Status Error(absl::string_view text);
// "error: Invalid --NAME specification".
absl::Status Spec(absl::string_view long_name);

// Stores `value` (or reports the error) through `parse`, a Slurm value parser.
template <typename Out, typename Parse>
absl::Status Store(Parse parse, Out& out) {
  auto parsed = parse();
  if (!parsed.ok()) {
    return parsed.status();
  }
  out = *std::move(parsed);
  return absl::OkStatus();
}

absl::Status ApplyNodes(absl::string_view value, SbatchOptions& o);
absl::Status ApplyGres(absl::string_view value, SbatchOptions& o);
absl::Status ApplyGpus(absl::string_view value, std::optional<int64_t>& count, SbatchOptions& o);
absl::Status ApplySwitches(absl::string_view value, SbatchOptions& o);
absl::Status ApplyHostlist(absl::string_view value, absl::string_view long_name, std::string& out);
absl::Status ApplyNice(std::optional<absl::string_view> arg, SbatchOptions& o);
absl::Status ApplyMailType(absl::string_view value, SbatchOptions& o);
absl::Status ApplyGpusPerTask(absl::string_view value, SbatchOptions& o);
absl::Status ApplyDelayBoot(absl::string_view value, SbatchOptions& o);
void ApplySwitchWait(absl::string_view value, SbatchOptions& o);

}  // namespace canopy::slurm::sbatch_internal
