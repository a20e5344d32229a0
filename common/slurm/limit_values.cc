// Limit and preemption values (limit_values.h).
#include "common/slurm/limit_values.h"

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/slurm/option_errors.h"

namespace canopy::slurm {
namespace {

using option_errors::Expected;

// A count, or -1 (clear). Memory takes a unit suffix and is returned in MiB.
absl::StatusOr<int64_t> ParseCount(absl::string_view tres, absl::string_view value) {
  int64_t per = 1;
  if (tres == "mem" && !value.empty() && absl::ascii_isalpha(value.back())) {
    switch (absl::ascii_toupper(value.back())) {
      case 'K':
        per = 0;  // KiB: rounded up to MiB below
        break;
      case 'M':
        break;
      case 'G':
        per = 1024;
        break;
      case 'T':
        per = 1024 * 1024;
        break;
      default:
        return Expected("a size in MiB, or with a K, M, G or T suffix, for mem", value);
    }
    value.remove_suffix(1);
  }
  int64_t n = 0;
  if (!absl::SimpleAtoi(value, &n) || n < -1) {
    return Expected(absl::StrCat("a count (or -1 to clear the limit) for ", tres), value);
  }
  if (n == -1) {
    return -1;
  }
  return per == 0 ? (n + 1023) / 1024 : n * per;
}

}  // namespace

absl::StatusOr<TresLimits> ParseTresLimits(absl::string_view text, const TresLimits& base) {
  TresLimits out = base;
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    item = absl::StripAsciiWhitespace(item);
    const size_t eq = item.find('=');
    if (eq == absl::string_view::npos) {
      return Expected("TRES=COUNT items such as gres/gpu=64,cpu=512", item);
    }
    const std::string tres = absl::AsciiStrToLower(absl::StripAsciiWhitespace(item.substr(0, eq)));
    int64_t* slot = tres == "gres/gpu" ? &out.gpus
                    : tres == "cpu"    ? &out.cpus
                    : tres == "node"   ? &out.nodes
                    : tres == "mem"    ? &out.mem_mib
                                       : nullptr;
    if (slot == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("TRES '", item.substr(0, eq),
                       "' is not one Canopy limits (cpu, mem, node, gres/gpu; GPU limits count "
                       "every GPU type together)"));
    }
    absl::StatusOr<int64_t> n = ParseCount(tres, absl::StripAsciiWhitespace(item.substr(eq + 1)));
    if (!n.ok()) {
      return n.status();
    }
    *slot = *n;
  }
  return out;
}

std::string FormatTresLimits(const TresLimits& limits) {
  std::vector<std::string> items;
  if (limits.cpus >= 0) items.push_back(absl::StrCat("cpu=", limits.cpus));
  if (limits.mem_mib >= 0) items.push_back(absl::StrCat("mem=", limits.mem_mib, "M"));
  if (limits.nodes >= 0) items.push_back(absl::StrCat("node=", limits.nodes));
  if (limits.gpus >= 0) items.push_back(absl::StrCat("gres/gpu=", limits.gpus));
  return absl::StrJoin(items, ",");
}

absl::StatusOr<PreemptType> ParsePreemptType(absl::string_view text) {
  const std::string t = absl::AsciiStrToLower(absl::StripAsciiWhitespace(text));
  if (t == "preempt/none") return PreemptType::kNone;
  if (t == "preempt/qos") return PreemptType::kQos;
  if (t == "preempt/partition_prio") return PreemptType::kPartitionPrio;
  return Expected("preempt/none, preempt/qos or preempt/partition_prio", text);
}

absl::string_view PreemptTypeName(PreemptType type) {
  switch (type) {
    case PreemptType::kNone:
      return "preempt/none";
    case PreemptType::kQos:
      return "preempt/qos";
    case PreemptType::kPartitionPrio:
      return "preempt/partition_prio";
  }
  return "preempt/none";
}

absl::StatusOr<PreemptMode> ParsePreemptMode(absl::string_view text) {
  const std::string t = absl::AsciiStrToUpper(absl::StripAsciiWhitespace(text));
  if (t == "OFF") return PreemptMode::kOff;
  if (t == "CANCEL") return PreemptMode::kCancel;
  if (t == "REQUEUE") return PreemptMode::kRequeue;
  if (t.find("GANG") != std::string::npos || t.find("SUSPEND") != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("PreemptMode '", text,
                     "' needs suspended jobs, which Canopy does not have; use OFF, "
                     "CANCEL or REQUEUE"));
  }
  return Expected("OFF, CANCEL or REQUEUE", text);
}

absl::string_view PreemptModeName(PreemptMode mode) {
  switch (mode) {
    case PreemptMode::kCluster:
      return "";
    case PreemptMode::kOff:
      return "OFF";
    case PreemptMode::kCancel:
      return "CANCEL";
    case PreemptMode::kRequeue:
      return "REQUEUE";
  }
  return "";
}

}  // namespace canopy::slurm
