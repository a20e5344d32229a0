// Scheduling-policy values of slurm.conf (scheduling_values.h).
#include "common/slurm/scheduling_values.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/slurm/option_errors.h"

namespace canopy::slurm {
namespace {

using option_errors::Expected;

// A non-negative decimal number.
bool ParseWeight(absl::string_view text, double& out) {
  return absl::SimpleAtod(text, &out) && std::isfinite(out) && out >= 0;
}

std::vector<absl::string_view> Items(absl::string_view text) {
  std::vector<absl::string_view> out;
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    item = absl::StripAsciiWhitespace(item);
    if (!item.empty()) {
      out.push_back(item);
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<UsageResetPeriod> ParseUsageResetPeriod(absl::string_view text) {
  const std::string t = absl::AsciiStrToUpper(absl::StripAsciiWhitespace(text));
  if (t == "NONE") return UsageResetPeriod::kNone;
  if (t == "NOW") return UsageResetPeriod::kNow;
  if (t == "DAILY") return UsageResetPeriod::kDaily;
  if (t == "WEEKLY") return UsageResetPeriod::kWeekly;
  if (t == "MONTHLY") return UsageResetPeriod::kMonthly;
  if (t == "QUARTERLY") return UsageResetPeriod::kQuarterly;
  if (t == "YEARLY") return UsageResetPeriod::kYearly;
  return Expected("NONE, NOW, DAILY, WEEKLY, MONTHLY, QUARTERLY or YEARLY", text);
}

absl::StatusOr<PriorityFlags> ParsePriorityFlags(absl::string_view text) {
  PriorityFlags flags;
  for (absl::string_view item : Items(text)) {
    const std::string f = absl::AsciiStrToUpper(item);
    if (f == "NO_FAIR_TREE") {
      flags.no_fair_tree = true;
    } else if (f == "MAX_TRES") {
      flags.max_tres = true;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "flag '", item, "' is not supported by Canopy (supported: NO_FAIR_TREE, ", "MAX_TRES)"));
    }
  }
  return flags;
}

double BillingWeights::NodeRate(int32_t cpus, int64_t mem_mib, int32_t gpus,
                                absl::string_view gpu_type, bool max_tres) const {
  if (!set) {
    return static_cast<double>(gpus);
  }
  double gpu_weight = gpu;
  if (auto it = gpu_by_type.find(std::string(gpu_type)); it != gpu_by_type.end()) {
    gpu_weight = it->second;
  }
  const double terms[] = {cpu * cpus, mem_per_mib * static_cast<double>(mem_mib), gpu_weight * gpus,
                          node};
  if (max_tres) {
    return *std::max_element(std::begin(terms), std::end(terms));
  }
  double sum = 0;
  for (double t : terms) {
    sum += t;
  }
  return sum;
}

absl::StatusOr<BillingWeights> ParseTresBillingWeights(absl::string_view text) {
  BillingWeights w;
  w.set = true;
  for (absl::string_view item : Items(text)) {
    const size_t eq = item.find('=');
    if (eq == absl::string_view::npos) {
      return Expected("TRES=weight items such as CPU=1.0,GRES/gpu=2.0", item);
    }
    const std::string tres = absl::AsciiStrToLower(absl::StripAsciiWhitespace(item.substr(0, eq)));
    absl::string_view value = absl::StripAsciiWhitespace(item.substr(eq + 1));
    double scale = 1;
    if (tres == "mem" && !value.empty()) {
      // Per MiB by default; a unit suffix says per what.
      const char unit = static_cast<char>(absl::ascii_toupper(value.back()));
      const double per = unit == 'K'   ? 1.0 / 1024
                         : unit == 'M' ? 1
                         : unit == 'G' ? 1024
                         : unit == 'T' ? 1024 * 1024
                                       : 0;
      if (per != 0) {
        scale = 1 / per;
        value.remove_suffix(1);
      }
    }
    double weight = 0;
    if (!ParseWeight(value, weight)) {
      return Expected(absl::StrCat("a non-negative weight for ", item.substr(0, eq)), value);
    }
    weight *= scale;
    if (tres == "cpu") {
      w.cpu = weight;
    } else if (tres == "mem") {
      w.mem_per_mib = weight;
    } else if (tres == "node") {
      w.node = weight;
    } else if (tres == "gres/gpu") {
      w.gpu = weight;
    } else if (absl::StartsWith(tres, "gres/gpu:")) {
      w.gpu_by_type[std::string(absl::StripAsciiWhitespace(item.substr(0, eq)).substr(9))] = weight;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("TRES '", item.substr(0, eq),
                       "' is not one Canopy bills (CPU, Mem, Node, GRES/gpu, GRES/gpu:TYPE)"));
    }
  }
  return w;
}

std::string FormatTresBillingWeights(const BillingWeights& w) {
  if (!w.set) {
    return "";
  }
  std::vector<std::string> items;
  auto add = [&](absl::string_view tres, double weight, absl::string_view unit = "") {
    if (weight != 0) {
      items.push_back(absl::StrFormat("%s=%g%s", tres, weight, unit));
    }
  };
  add("CPU", w.cpu);
  add("Mem", w.mem_per_mib * 1024, "G");
  add("Node", w.node);
  add("GRES/gpu", w.gpu);
  for (const auto& [type, weight] : w.gpu_by_type) {
    add(absl::StrCat("GRES/gpu:", type), weight);
  }
  return absl::StrJoin(items, ",");
}

absl::StatusOr<SchedulerParameters> ParseSchedulerParameters(absl::string_view text) {
  SchedulerParameters p;
  for (absl::string_view item : Items(text)) {
    const size_t eq = item.find('=');
    const std::string key = absl::AsciiStrToLower(item.substr(0, eq));
    const absl::string_view value = eq == absl::string_view::npos ? "" : item.substr(eq + 1);
    int64_t n = 0;
    const bool number = absl::SimpleAtoi(value, &n) && n > 0;
    auto need_number = [&](absl::string_view unit) {
      return absl::InvalidArgumentError(
          absl::StrCat(key, ": expected a positive number of ", unit, ", got '", value, "'"));
    };
    if (key == "bf_window") {
      if (!number) return need_number("minutes");
      p.bf_window = absl::Minutes(n);
    } else if (key == "bf_max_job_test") {
      if (!number || n > 1000000) return need_number("jobs (at most 1000000)");
      p.bf_max_job_test = static_cast<int32_t>(n);
    } else if (key == "bf_resolution") {
      if (!number) return need_number("seconds");
      p.bf_resolution = absl::Seconds(n);
    } else if (key == "bf_interval") {
      if (!number) return need_number("seconds");
      p.bf_interval = absl::Seconds(n);
    } else if (key == "max_switch_wait") {
      if (!number) return need_number("seconds");
      p.max_switch_wait = absl::Seconds(n);
    } else if (key == "max_script_size") {
      // Slurm reads it with atoi; a script beyond 512 MiB could not cross gRPC anyway.
      if (!number || n > 512 * 1024 * 1024) return need_number("bytes (at most 536870912)");
      p.max_script_size = n;
    } else {
      p.other.emplace_back(item);
    }
  }
  return p;
}

absl::StatusOr<DependencyParameters> ParseDependencyParameters(absl::string_view text) {
  DependencyParameters p;
  for (absl::string_view item : Items(text)) {
    if (absl::AsciiStrToLower(item) == "kill_invalid_depend") {
      p.kill_invalid_depend = true;
    } else {
      p.other.emplace_back(item);
    }
  }
  return p;
}

absl::StatusOr<AccountingEnforce> ParseAccountingEnforce(absl::string_view text) {
  AccountingEnforce e;
  for (absl::string_view item : Items(text)) {
    const std::string f = absl::AsciiStrToLower(item);
    if (f == "associations") {
      e.associations = true;
    } else if (f == "limits") {
      e.associations = e.limits = true;
    } else if (f == "qos") {
      e.associations = e.qos = true;
    } else if (f == "safe") {
      e.associations = e.limits = e.safe = true;
    } else if (f == "all") {
      e.associations = e.limits = e.qos = e.safe = true;
    } else if (f == "wckeys" || f == "nojobs" || f == "nosteps" || f == "none" || f == "0") {
      // Accepted: Canopy has no wckeys and always records jobs and steps.
    } else {
      return Expected("associations, limits, qos, safe, wckeys, nojobs, nosteps or all", item);
    }
  }
  return e;
}

}  // namespace canopy::slurm
