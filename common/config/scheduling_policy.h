// The scheduling policy part of ClusterConfig: how pending jobs are ordered (PriorityType and
// the multifactor weights), how usage is charged and forgotten (PriorityDecayHalfLife,
// PriorityUsageResetPeriod), which scheduler runs (SchedulerType, SchedulerParameters), what
// accounting enforces (AccountingStorageEnforce), and the accounts a fresh controller starts
// with.
//
// Both configuration formats set these through ApplySchedulingKey, so they accept and refuse the
// same values: slurm.conf passes its key ("PriorityWeightAge"), YAML its section and key
// ("priority" + "weight_age"); both reduce to the same lower-case key without underscores.
// Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/slurm/limit_values.h"
#include "common/slurm/sacctmgr_file.h"
#include "common/slurm/scheduling_values.h"

namespace canopy::config {

// Slurm 22.05's defaults throughout (slurm.conf(5)).
struct PriorityConfig {
  bool multifactor = false;  // PriorityType=priority/multifactor; priority/basic orders by age
  uint32_t weight_age = 0;   // PriorityWeightAge
  uint32_t weight_fairshare = 0;
  uint32_t weight_job_size = 0;
  uint32_t weight_partition = 0;
  uint32_t weight_qos = 0;
  absl::Duration max_age = absl::Hours(24 * 7);          // PriorityMaxAge
  bool favor_small = false;                              // PriorityFavorSmall
  absl::Duration decay_half_life = absl::Hours(24 * 7);  // PriorityDecayHalfLife; 0 = no decay
  slurm::UsageResetPeriod usage_reset_period = slurm::UsageResetPeriod::kNone;
  absl::Duration calc_period = absl::Minutes(5);  // PriorityCalcPeriod
  slurm::PriorityFlags flags;                     // PriorityFlags
  int64_t fairshare_dampening_factor = 1;         // FairShareDampeningFactor
};

struct SchedulerConfig {
  // SchedulerType=sched/backfill (the default): lower-priority jobs may start early when they
  // delay no higher-priority job's expected start. sched/builtin: strict priority order.
  bool backfill = true;
  slurm::SchedulerParameters parameters;   // SchedulerParameters
  slurm::DependencyParameters dependency;  // DependencyParameters
  // MaxJobCount: the jobs the controller holds at once, finished ones included until MinJobAge
  // (Slurm's default 10000). MaxArraySize: array task ids must be below it (default 1001; 0
  // turns arrays off). YAML scheduler.max_job_count and scheduler.max_array_size.
  int64_t max_job_count = 10000;
  int32_t max_array_size = 1001;
  // What the batch scripts and environments of the jobs canopyd holds may take in its memory
  // together, MiB (an array's tasks share theirs). Canopy's own (YAML
  // scheduler.max_script_memory_mib): Slurm keeps scripts on disk; MaxJobCount x max_script_size
  // would otherwise be 40 GiB.
  int64_t max_script_memory_mib = 512;

  // Jobs whose dependency can never be satisfied are cancelled unless they said
  // --kill-on-invalid-dep=no (DependencyParameters, or SchedulerParameters as before 20.11).
  bool kill_invalid_depend() const;
};

struct AccountingConfig {
  slurm::AccountingEnforce enforce;  // AccountingStorageEnforce
  // The associations a controller with no stored ones starts from (YAML `accounts:` or
  // `accounts_file:`, a sacctmgr dump); afterwards sacctmgr changes them. Empty = none given.
  std::vector<slurm::FlatFileRecord> accounts;
  std::string accounts_origin;  // where they came from, for messages
  // PrivateData (slurm.conf; YAML accounting.private_data): what ordinary users may see only
  // of their own ("jobs", "usage", "accounts", ...), lower case. Operators see everything.
  std::vector<std::string> private_data;
  // How long the accounting of a finished job is kept once it left memory (slurmdbd's
  // PurgeJobAfter; YAML accounting.purge_job_after: "12months", "30days", "48hours", or a
  // number of months, a month counted as 30 days). Infinite = kept forever (Slurm's default).
  absl::Duration purge_job_after = absl::InfiniteDuration();

  bool private_jobs() const;
};

// Preemption (slurm.conf PreemptType, PreemptMode; YAML preempt.type, preempt.mode).
struct PreemptConfig {
  slurm::PreemptType type = slurm::PreemptType::kNone;
  // What happens to a victim whose QOS and partition leave it to the cluster: Slurm's default
  // OFF (nobody is preempted); REQUEUE or CANCEL turn preemption on.
  slurm::PreemptMode mode = slurm::PreemptMode::kOff;
};

struct SchedulingPolicy {
  PriorityConfig priority;
  SchedulerConfig scheduler;
  AccountingConfig accounting;
  PreemptConfig preempt;
};

// A partition's part of the policy (slurm.conf PartitionName keys, YAML partition entries).
struct PartitionPolicy {
  slurm::BillingWeights billing;     // TRESBillingWeights
  uint32_t priority_job_factor = 1;  // PriorityJobFactor: the partition factor of multifactor
  uint32_t priority_tier = 1;        // PriorityTier: higher tiers are scheduled first
  // AllowAccounts: the accounts whose jobs may use the partition; empty = ALL.
  std::vector<std::string> allow_accounts;
  // PreemptMode of the partition's jobs when preempted (kCluster: the cluster's), and their
  // GraceTime (SIGTERM, then this long, then requeued or cancelled).
  slurm::PreemptMode preempt_mode = slurm::PreemptMode::kCluster;
  absl::Duration grace_time = absl::ZeroDuration();
};

// Sets one scheduling-policy key. Keys are compared in NormalizeSchedulingKey's form
// ("priorityweightage" for slurm.conf PriorityWeightAge and for YAML priority.weight_age).
// Returns false for a key that is not a scheduling-policy key; InvalidArgument
// "expected ..., got <value quoted with `quote`>" for a bad value (the caller prefixes the place
// and the field as its format names it).
absl::StatusOr<bool> ApplySchedulingKey(absl::string_view normalized_key, absl::string_view value,
                                        char quote, SchedulingPolicy& policy);
// The same for a partition's keys ("tresbillingweights", "priorityjobfactor", "prioritytier",
// "allowaccounts", "preemptmode", "gracetime").
absl::StatusOr<bool> ApplyPartitionPolicyKey(absl::string_view normalized_key,
                                             absl::string_view value, char quote,
                                             PartitionPolicy& policy);

// Lower-case, without '_': the form ApplySchedulingKey compares.
std::string NormalizeSchedulingKey(absl::string_view key);

// Checks that need several keys: no decay and no reset means usage is never forgotten, which
// Slurm allows but warns about; returns the warnings to log (empty when none).
std::vector<std::string> SchedulingPolicyWarnings(const SchedulingPolicy& policy);

}  // namespace canopy::config
