// The appliers of sbatch's option values (sbatch_option_appliers.h).
#include "common/slurm/sbatch_option_appliers.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/slurm/getopt.h"
#include "common/slurm/option_values.h"
#include "common/slurm/recorded_option_values.h"
#include "common/slurm/time_format.h"

namespace canopy::slurm::sbatch_internal {
namespace {

constexpr int64_t kMaxNice = 2147483645;  // Slurm's NICE_OFFSET - 3

}  // namespace

absl::Status Error(absl::string_view text) {
  return absl::InvalidArgumentError(absl::StrCat("error: ", text));
}

absl::Status Spec(absl::string_view long_name) {
  return Error(absl::StrCat("Invalid --", long_name, " specification"));
}
absl::Status ApplyNodes(absl::string_view value, SbatchOptions& o) {
  absl::StatusOr<NodeCount> n = ParseNodeCount(value);
  if (!n.ok()) {
    return n.status();
  }
  o.min_nodes = n->min;
  o.max_nodes = n->max;
  return absl::OkStatus();
}

absl::Status ApplyGres(absl::string_view value, SbatchOptions& o) {
  absl::StatusOr<GresRequest> gres = ParseGres(value);
  if (!gres.ok()) {
    return gres.status();
  }
  if (gres->none) {
    o.gpus_per_node.reset();
    o.gpus_per_node_text.clear();
    o.gpu_type.clear();
    o.other_gres.clear();
    return absl::OkStatus();
  }
  o.other_gres = std::move(gres->other);
  if (gres->gpus_per_node.has_value()) {
    o.gpu_type = std::move(gres->gpu_type);
    o.gpus_per_node = gres->gpus_per_node;
    o.gpus_per_node_text.clear();
  }
  return absl::OkStatus();
}

absl::Status ApplyGpus(absl::string_view value, std::optional<int64_t>& count, SbatchOptions& o) {
  absl::StatusOr<TypedCount> typed = ParseGpuCount(value);
  if (!typed.ok()) {
    return typed.status();
  }
  o.gpu_type = std::move(typed->type);
  count = typed->count;
  return absl::OkStatus();
}

absl::Status ApplySwitches(absl::string_view value, SbatchOptions& o) {
  absl::string_view count = value;
  std::optional<absl::Duration> wait;
  if (size_t at = value.find('@'); at != absl::string_view::npos) {
    count = value.substr(0, at);
    absl::StatusOr<absl::Duration> d =
        ParseSlurmDuration(std::string_view(value.data() + at + 1, value.size() - at - 1));
    if (!d.ok()) {
      return Spec("switches");
    }
    wait = *d;
  }
  absl::StatusOr<int64_t> n = ParsePositiveCount(count, "switches");
  if (!n.ok()) {
    return n.status();
  }
  o.switches = *n;
  o.switches_wait = wait;
  return absl::OkStatus();
}

absl::Status ApplyHostlist(absl::string_view value, absl::string_view long_name, std::string& out) {
  if (absl::Status s = CheckHostlist(value, long_name); !s.ok()) {
    return s;
  }
  out = std::string(value);
  return absl::OkStatus();
}

absl::Status ApplyNice(std::optional<absl::string_view> arg, SbatchOptions& o) {
  if (!arg.has_value()) {
    o.nice = 100;
    return absl::OkStatus();
  }
  int64_t n = 0;
  if (!absl::SimpleAtoi(*arg, &n) || arg->empty() || absl::ascii_isspace((*arg)[0])) {
    return Error("Invalid --nice value");
  }
  if (n > kMaxNice || n < -kMaxNice) {
    return Error(absl::StrCat("Invalid --nice value, out of range (+/- ", kMaxNice, ")"));
  }
  o.nice = n;
  return absl::OkStatus();
}

absl::Status ApplyMailType(absl::string_view value, SbatchOptions& o) {
  absl::StatusOr<uint16_t> bits = ParseMailType(value);
  if (!bits.ok()) {
    return bits.status();
  }
  o.mail_type = o.mail_type.value_or(0) | *bits;  // Slurm ORs repeated --mail-type values
  return absl::OkStatus();
}

absl::Status ApplyGpusPerTask(absl::string_view value, SbatchOptions& o) {
  absl::StatusOr<TypedCount> typed = ParseGpusPerTask(value);
  if (!typed.ok()) {
    return typed.status();
  }
  if (!typed->type.empty()) {
    o.gpu_type = std::move(typed->type);
  }
  o.gpus_per_task = typed->count;
  o.gpus_per_task_text = std::string(value);
  return absl::OkStatus();
}

absl::Status ApplyDelayBoot(absl::string_view value, SbatchOptions& o) {
  absl::StatusOr<absl::Duration> d =
      ParseSlurmDuration(std::string_view(value.data(), value.size()));
  if (!d.ok()) {
    return Spec("delay-boot");
  }
  o.delay_boot = *d;
  return absl::OkStatus();
}

// SBATCH_WAIT4SWITCH: Slurm's time_str2secs, unchecked (a bad value is ignored here).
void ApplySwitchWait(absl::string_view value, SbatchOptions& o) {
  absl::StatusOr<absl::Duration> d =
      ParseSlurmDuration(std::string_view(value.data(), value.size()));
  if (d.ok()) {
    o.switches_wait = *d;
  }
}

}  // namespace canopy::slurm::sbatch_internal
