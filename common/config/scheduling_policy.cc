// The scheduling-policy keys shared by slurm.conf and YAML (scheduling_policy.h).
#include "common/config/scheduling_policy.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "common/config/parse_util.h"
#include "common/slurm/time_format.h"

namespace canopy::config {
namespace {

constexpr int64_t kUint32Max = 4294967295;
// Slurm keeps PriorityJobFactor and PriorityTier in 16 bits and reserves the top values.
constexpr int64_t kPartitionFactorMax = 65533;

class KeyValue {
 public:
  KeyValue(absl::string_view value, char quote) : value_(value), quote_(quote) {}

  absl::Status Expected(absl::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat("expected ", what, ", got ", internal::Quote(value_, quote_)));
  }
  absl::StatusOr<uint32_t> Uint(int64_t max, absl::string_view what) const {
    const std::optional<int64_t> n = internal::ParseDecimal(value_, max);
    if (!n) {
      return Expected(what);
    }
    return static_cast<uint32_t>(*n);
  }

  // Slurm's YES/NO booleans (also TRUE/FALSE, 1/0, and YAML's ON/OFF).
  absl::StatusOr<bool> Bool() const {
    const std::string v = absl::AsciiStrToUpper(value_);
    if (v == "YES" || v == "TRUE" || v == "1" || v == "ON") return true;
    if (v == "NO" || v == "FALSE" || v == "0" || v == "OFF") return false;
    return Expected("YES or NO");
  }

  // A Slurm time ("7-0", "14-00:00:00", or minutes as a bare number). `zero_ok`: 0 allowed.
  absl::StatusOr<absl::Duration> Time(bool zero_ok) const {
    absl::StatusOr<absl::Duration> d = slurm::ParseSlurmDuration(std::string(value_));
    if (!d.ok() || *d == absl::InfiniteDuration() || (!zero_ok && *d <= absl::ZeroDuration())) {
      return Expected(zero_ok ? "a time such as 7-0 (days-hours), 14-00:00:00 or minutes; 0 = none"
                              : "a positive time such as 7-0 (days-hours), 14-00:00:00 or minutes");
    }
    return *d;
  }

  absl::string_view value() const { return value_; }

 private:
  absl::string_view value_;
  char quote_;
};

// Stores a parse result or returns its error.
template <typename T, typename U>
absl::StatusOr<bool> Set(absl::StatusOr<T> result, U& out) {
  if (!result.ok()) {
    return result.status();
  }
  out = static_cast<U>(*std::move(result));
  return true;
}

// PrivateData=jobs,usage,...: Slurm's words, any case.
absl::StatusOr<std::vector<std::string>> ParsePrivateData(const KeyValue& v) {
  static constexpr absl::string_view kWords[] = {"accounts",     "cloud", "events",
                                                 "jobs",         "nodes", "partitions",
                                                 "reservations", "usage", "users"};
  std::vector<std::string> out;
  for (absl::string_view item : absl::StrSplit(v.value(), ',', absl::SkipEmpty())) {
    const std::string word = absl::AsciiStrToLower(absl::StripAsciiWhitespace(item));
    if (std::find(std::begin(kWords), std::end(kWords), word) == std::end(kWords)) {
      return v.Expected(
          "a comma-separated list of accounts, cloud, events, jobs, nodes, partitions, "
          "reservations, usage, users");
    }
    out.push_back(word);
  }
  return out;
}

// slurmdbd's purge times: "12months", "30days", "48hours" (singular too), or months.
absl::StatusOr<absl::Duration> ParsePurgeTime(const KeyValue& v) {
  constexpr absl::string_view kWhat =
      "a positive time such as 12months, 30days or 48hours (a bare number is months)";
  absl::string_view text = absl::StripAsciiWhitespace(v.value());
  size_t digits = 0;
  while (digits < text.size() && absl::ascii_isdigit(static_cast<unsigned char>(text[digits]))) {
    ++digits;
  }
  const std::optional<int64_t> n = internal::ParseDecimal(text.substr(0, digits), 1 << 20);
  if (!n || *n == 0) {
    return v.Expected(kWhat);
  }
  const std::string unit = absl::AsciiStrToLower(text.substr(digits));
  if (unit.empty() || unit == "month" || unit == "months") return absl::Hours(24 * 30) * *n;
  if (unit == "day" || unit == "days") return absl::Hours(24) * *n;
  if (unit == "hour" || unit == "hours") return absl::Hours(1) * *n;
  return v.Expected(kWhat);
}

absl::StatusOr<bool> ApplyPriorityType(const KeyValue& v, PriorityConfig& p) {
  const std::string type = absl::AsciiStrToLower(v.value());
  if (type == "priority/multifactor" || type == "multifactor") {
    p.multifactor = true;
  } else if (type == "priority/basic" || type == "basic") {
    p.multifactor = false;
  } else {
    return v.Expected("priority/basic or priority/multifactor");
  }
  return true;
}

absl::StatusOr<bool> ApplySchedulerType(const KeyValue& v, SchedulerConfig& s) {
  const std::string type = absl::AsciiStrToLower(v.value());
  if (type == "sched/backfill" || type == "backfill") {
    s.backfill = true;
  } else if (type == "sched/builtin" || type == "builtin") {
    s.backfill = false;
  } else {
    return v.Expected("sched/backfill or sched/builtin");
  }
  return true;
}

}  // namespace

bool AccountingConfig::private_jobs() const {
  return std::find(private_data.begin(), private_data.end(), "jobs") != private_data.end();
}

bool SchedulerConfig::kill_invalid_depend() const {
  if (dependency.kill_invalid_depend) {
    return true;
  }
  for (const std::string& item : parameters.other) {
    if (absl::AsciiStrToLower(item) == "kill_invalid_depend") {
      return true;
    }
  }
  return false;
}

std::string NormalizeSchedulingKey(absl::string_view key) {
  std::string out;
  out.reserve(key.size());
  for (char c : key) {
    if (c != '_') {
      out.push_back(absl::ascii_tolower(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

absl::StatusOr<bool> ApplySchedulingKey(absl::string_view key, absl::string_view value, char quote,
                                        SchedulingPolicy& policy) {
  const KeyValue v(value, quote);
  PriorityConfig& p = policy.priority;
  constexpr absl::string_view kWeight = "a weight from 0 to 4294967295";
  if (key == "prioritytype") return ApplyPriorityType(v, p);
  if (key == "priorityweightage") return Set(v.Uint(kUint32Max, kWeight), p.weight_age);
  if (key == "priorityweightfairshare") return Set(v.Uint(kUint32Max, kWeight), p.weight_fairshare);
  if (key == "priorityweightjobsize") return Set(v.Uint(kUint32Max, kWeight), p.weight_job_size);
  if (key == "priorityweightpartition") return Set(v.Uint(kUint32Max, kWeight), p.weight_partition);
  if (key == "priorityweightqos") return Set(v.Uint(kUint32Max, kWeight), p.weight_qos);
  if (key == "prioritymaxage") return Set(v.Time(/*zero_ok=*/false), p.max_age);
  if (key == "priorityfavorsmall") return Set(v.Bool(), p.favor_small);
  if (key == "prioritydecayhalflife") return Set(v.Time(/*zero_ok=*/true), p.decay_half_life);
  if (key == "priorityusageresetperiod") {
    return Set(slurm::ParseUsageResetPeriod(value), p.usage_reset_period);
  }
  if (key == "prioritycalcperiod") return Set(v.Time(/*zero_ok=*/false), p.calc_period);
  if (key == "priorityflags") return Set(slurm::ParsePriorityFlags(value), p.flags);
  if (key == "fairsharedampeningfactor") {
    absl::StatusOr<uint32_t> factor = v.Uint(65535, "a factor from 1 to 65535");
    if (factor.ok() && *factor == 0) {
      return v.Expected("a factor from 1 to 65535");
    }
    return Set(factor, p.fairshare_dampening_factor);
  }
  if (key == "schedulertype") return ApplySchedulerType(v, policy.scheduler);
  if (key == "schedulerparameters") {
    return Set(slurm::ParseSchedulerParameters(value), policy.scheduler.parameters);
  }
  if (key == "maxjobcount" || key == "schedulermaxjobcount") {
    absl::StatusOr<uint32_t> n = v.Uint(kUint32Max, "a number of jobs from 1 to 4294967295");
    if (n.ok() && *n == 0) {
      return v.Expected("a number of jobs from 1 to 4294967295");
    }
    return Set(n, policy.scheduler.max_job_count);
  }
  if (key == "schedulermaxscriptmemorymib") {
    absl::StatusOr<uint32_t> mib = v.Uint(1u << 20, "a size in MiB from 16 to 1048576");
    if (mib.ok() && *mib < 16) {
      return v.Expected("a size in MiB from 16 to 1048576");
    }
    return Set(mib, policy.scheduler.max_script_memory_mib);
  }
  if (key == "maxarraysize" || key == "schedulermaxarraysize") {
    // Slurm's upper bound for MaxArraySize.
    return Set(v.Uint(4000001, "a size from 0 to 4000001"), policy.scheduler.max_array_size);
  }
  if (key == "dependencyparameters" || key == "schedulerdependencyparameters") {
    return Set(slurm::ParseDependencyParameters(value), policy.scheduler.dependency);
  }
  if (key == "accountingstorageenforce" || key == "accountingenforce") {
    return Set(slurm::ParseAccountingEnforce(value), policy.accounting.enforce);
  }
  if (key == "privatedata" || key == "accountingprivatedata") {
    return Set(ParsePrivateData(v), policy.accounting.private_data);
  }
  // Only YAML's accounting section: slurm.conf has no such key (it is slurmdbd.conf's).
  if (key == "accountingpurgejobafter") {
    return Set(ParsePurgeTime(v), policy.accounting.purge_job_after);
  }
  if (key == "preempttype") return Set(slurm::ParsePreemptType(value), policy.preempt.type);
  if (key == "preemptmode") return Set(slurm::ParsePreemptMode(value), policy.preempt.mode);
  return false;
}

absl::StatusOr<bool> ApplyPartitionPolicyKey(absl::string_view key, absl::string_view value,
                                             char quote, PartitionPolicy& policy) {
  const KeyValue v(value, quote);
  constexpr absl::string_view kFactor = "an integer from 0 to 65533";
  if (key == "tresbillingweights") {
    return Set(slurm::ParseTresBillingWeights(value), policy.billing);
  }
  if (key == "priorityjobfactor") {
    return Set(v.Uint(kPartitionFactorMax, kFactor), policy.priority_job_factor);
  }
  if (key == "prioritytier") return Set(v.Uint(kPartitionFactorMax, kFactor), policy.priority_tier);
  if (key == "allowaccounts") {
    policy.allow_accounts.clear();
    for (absl::string_view a : absl::StrSplit(value, ',', absl::SkipWhitespace())) {
      a = absl::StripAsciiWhitespace(a);
      if (absl::EqualsIgnoreCase(a, "ALL")) {
        policy.allow_accounts.clear();
        return true;
      }
      policy.allow_accounts.emplace_back(a);
    }
    if (policy.allow_accounts.empty()) {
      return v.Expected("a comma list of account names, or ALL");
    }
    return true;
  }
  if (key == "preemptmode") return Set(slurm::ParsePreemptMode(value), policy.preempt_mode);
  if (key == "gracetime") {
    absl::StatusOr<uint32_t> s = v.Uint(kUint32Max, "a number of seconds");
    if (!s.ok()) {
      return s.status();
    }
    policy.grace_time = absl::Seconds(*s);
    return true;
  }
  return false;
}

std::vector<std::string> SchedulingPolicyWarnings(const SchedulingPolicy& policy) {
  std::vector<std::string> warnings;
  const PriorityConfig& p = policy.priority;
  if (p.multifactor && p.decay_half_life == absl::ZeroDuration() &&
      p.usage_reset_period == slurm::UsageResetPeriod::kNone) {
    warnings.push_back(
        "PriorityDecayHalfLife=0 and PriorityUsageResetPeriod=NONE: usage is never forgotten, so "
        "fair share remembers every job ever run; set a half-life or a reset period");
  }
  if (p.multifactor && p.weight_age == 0 && p.weight_fairshare == 0 && p.weight_job_size == 0 &&
      p.weight_partition == 0 && p.weight_qos == 0) {
    warnings.push_back(
        "PriorityType=priority/multifactor with every PriorityWeight* at 0: all jobs get the same "
        "priority and run in submit order; set PriorityWeightFairshare (and others) to use it");
  }
  return warnings;
}

}  // namespace canopy::config
