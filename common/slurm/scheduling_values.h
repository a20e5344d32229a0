// The values of slurm.conf's scheduling-policy keys, as Slurm 22.05 documents them (slurm.conf(5),
// priority_multifactor.html): PriorityUsageResetPeriod, PriorityFlags, TRESBillingWeights,
// SchedulerParameters, AccountingStorageEnforce. Canopy's YAML uses the same parsers, so both
// configuration formats accept and refuse the same things. Pure; thread-safe.
//
// Errors are InvalidArgument saying what was expected, without the key's name or place (the
// configuration loaders add those).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace canopy::slurm {

// PriorityUsageResetPeriod.
enum class UsageResetPeriod { kNone, kNow, kDaily, kWeekly, kMonthly, kQuarterly, kYearly };
// NONE, NOW, DAILY, WEEKLY, MONTHLY, QUARTERLY, YEARLY (any case).
absl::StatusOr<UsageResetPeriod> ParseUsageResetPeriod(absl::string_view text);

// PriorityFlags (the ones Canopy acts on; others are refused by name).
struct PriorityFlags {
  bool no_fair_tree = false;  // NO_FAIR_TREE: classic 2^(-U/S) fair share
  bool max_tres = false;      // MAX_TRES: billing = the largest weighted TRES on each node
};
absl::StatusOr<PriorityFlags> ParsePriorityFlags(absl::string_view text);

// TRESBillingWeights="CPU=1.0,Mem=0.25G,GRES/gpu=2.0,GRES/gpu:h100=4.0": what a job is charged per
// second for what it holds. Mem's weight is per MiB, or per the unit of its suffix (K, M, G, T).
struct BillingWeights {
  bool set = false;  // false: Canopy's default, one unit per GPU-second
  double cpu = 0;
  double node = 0;
  double mem_per_mib = 0;
  double gpu = 0;                             // GRES/gpu, any type
  std::map<std::string, double> gpu_by_type;  // GRES/gpu:TYPE (replaces GRES/gpu for that type)

  // Billing units per second for one node's share.
  double NodeRate(int32_t cpus, int64_t mem_mib, int32_t gpus, absl::string_view gpu_type,
                  bool max_tres) const;
};
absl::StatusOr<BillingWeights> ParseTresBillingWeights(absl::string_view text);
// The weights in TRESBillingWeights' syntax, memory per GiB: "CPU=0.5,Mem=0.25G,GRES/gpu=2";
// "" when not set. ParseTresBillingWeights reads it back to equal weights.
std::string FormatTresBillingWeights(const BillingWeights& weights);

// SchedulerParameters: the backfill options Canopy uses, with Slurm's defaults; the rest are
// listed in `other` (Slurm has dozens; they are not errors).
struct SchedulerParameters {
  absl::Duration bf_window = absl::Minutes(1440);       // bf_window=minutes
  int32_t bf_max_job_test = 500;                        // bf_max_job_test=N
  absl::Duration bf_resolution = absl::Seconds(60);     // bf_resolution=seconds
  absl::Duration bf_interval = absl::Seconds(30);       // bf_interval=seconds
  absl::Duration max_switch_wait = absl::Seconds(300);  // max_switch_wait=seconds
  int64_t max_script_size = 4 * 1024 * 1024;            // max_script_size=bytes (Slurm: 4 MiB)
  std::vector<std::string> other;                       // as written
};
absl::StatusOr<SchedulerParameters> ParseSchedulerParameters(absl::string_view text);

// DependencyParameters: the option Canopy acts on; the rest (max_depend_depth, ...) are kept
// in `other`. kill_invalid_depend is also honoured in SchedulerParameters, where Slurm read
// it before 20.11 (the caller checks `SchedulerParameters::other`).
struct DependencyParameters {
  bool kill_invalid_depend = false;  // cancel jobs whose dependency can never be satisfied
  std::vector<std::string> other;    // as written
};
absl::StatusOr<DependencyParameters> ParseDependencyParameters(absl::string_view text);

// AccountingStorageEnforce: associations, limits, qos, safe, wckeys, nojobs, nosteps, all.
// limits and qos imply associations, as in Slurm.
struct AccountingEnforce {
  bool associations = false;
  bool limits = false;
  bool qos = false;
  bool safe = false;
};
absl::StatusOr<AccountingEnforce> ParseAccountingEnforce(absl::string_view text);

}  // namespace canopy::slurm
