// Accounting: the lifecycle's fair-share state. It holds the association tree (who may charge
// which account), the usage ledger (what each user association has used, decayed), which jobs
// are being charged now, and the fair-share factors and job priorities computed from them every
// PriorityCalcPeriod.
//
// Charging follows the jobs: Observe() is called on every change of a job (LifecycleState::Touch
// does it), starts charging when the job enters RUNNING and charges the rest when it leaves.
// Recalculate() charges every running job up to now, so usage grows while jobs run, not only
// when they end. Persistence (docs/design/fairshare.md, "Crash safety"): the ledger is saved
// with `charged_through`, the time up to which every running job was charged; a job that stops
// running is charged to its end in the same commit that records its new state. After kill -9,
// each running job resumes charging at max(its start, charged_through).
//
// Owned by LifecycleState; owner thread only; no I/O; time comes in.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/config/cluster_config.h"
#include "scheduler/core/job.h"
#include "scheduler/fairshare/association_tree.h"
#include "scheduler/fairshare/fair_share.h"
#include "scheduler/fairshare/priority.h"
#include "scheduler/fairshare/usage_ledger.h"
#include "scheduler/limits/qos.h"
#include "scheduler/persistence/store.h"

namespace canopy::lifecycle {

// Slurm's priority/basic: every job gets this minus its id, so the queue is in submission order.
inline constexpr uint32_t kBasicPriorityTop = 4294901760;

class Accounting {
 public:
  Accounting(std::shared_ptr<const config::ClusterConfig> config, absl::Time now);

  // ---- Associations
  const fairshare::AssociationTree& tree() const { return tree_; }
  // Replaces the tree (sacctmgr); usage is kept by (account, user), so an association removed
  // and added again finds its usage. Fair share is recomputed at once.
  void SetTree(fairshare::AssociationTree tree, absl::Time now);
  // The account a job of `user` is charged to: `requested`, else the user's default account
  // ("" when the user has none). With AccountingStorageEnforce=associations, InvalidArgument
  // with Slurm's text when the user has no association with that account (or none at all).
  absl::StatusOr<std::string> ResolveAccount(absl::string_view user,
                                             absl::string_view requested) const;

  // ---- QOS
  // The QOS table: the QOS factor of multifactor is a job's QOS Priority over the largest.
  void SetQos(std::shared_ptr<const limits::QosTable> qos) { qos_ = std::move(qos); }
  const limits::QosTable& qos() const { return *qos_; }
  std::shared_ptr<const limits::QosTable> qos_table() const { return qos_; }

  // ---- Usage
  // Starts or stops charging `job` as it enters or leaves RUNNING.
  void Observe(const core::Job& job, absl::Time now);
  // Charges every running job up to `now`.
  void ChargeRunning(absl::Time now);
  // Billing units per second for what `job` holds (its partition's TRESBillingWeights).
  double BillingRate(const core::Job& job) const;
  const fairshare::UsageLedger& ledger() const { return ledger_; }
  persistence::UsageState SaveUsage(absl::Time now) const;
  // Continues from the store (before any job is observed). `usage` nullopt: a fresh ledger.
  void RestoreUsage(const std::optional<persistence::UsageState>& usage, absl::Time now);
  // A running job restored from the store: charge it from max(its start, charged_through).
  void ResumeCharging(const core::Job& job);

  // ---- Fair share and priority
  // Recomputes every association's fair-share factor from the tree and the ledger.
  void RecomputeShares(absl::Time now);
  const std::vector<fairshare::ShareRow>& shares() const { return shares_; }
  absl::Time shares_time() const { return shares_time_; }
  bool fair_tree() const {
    return fair_share_options_.algorithm == fairshare::FairShareAlgorithm::kFairTree;
  }
  bool multifactor() const { return config_->scheduling.priority.multifactor; }
  const fairshare::PriorityWeights& weights() const { return weights_; }
  // The job's fair-share factor: its user association's (0 without one).
  double FairShareOf(const core::Job& job) const;
  // The job's weighted factors now (multifactor), from the last computed fair share.
  fairshare::Priority PriorityOf(const core::Job& job, absl::Time now) const;
  // The priority the queue uses: 0 while held, else fixed by an operator, else multifactor,
  // else basic.
  uint32_t ComputePriority(const core::Job& job, absl::Time now) const;

  // When Recalculate is next due (every PriorityCalcPeriod).
  absl::Time next_calc() const { return next_calc_; }
  void set_next_calc(absl::Time t) { next_calc_ = t; }

  // What the caller must save (and then clear): the tree changed; usage was charged.
  bool associations_changed = false;
  bool usage_changed = false;
  // +1 whenever the tree, the shares or priorities change (for publishing).
  uint64_t version = 0;

 private:
  struct Charge {
    std::string account;
    std::string user;
    double rate = 0;  // billing units per second
    absl::Time since;
  };

  std::shared_ptr<const config::ClusterConfig> config_;
  fairshare::AssociationTree tree_;
  std::shared_ptr<const limits::QosTable> qos_ = std::make_shared<const limits::QosTable>();
  fairshare::UsageLedger ledger_;
  fairshare::FairShareOptions fair_share_options_;
  fairshare::PriorityWeights weights_;
  // RUNNING jobs, ordered so that charges are added in the same order every run.
  absl::btree_map<core::JobId, Charge> charging_;
  absl::Time charged_through_ = absl::InfinitePast();
  std::vector<fairshare::ShareRow> shares_;
  absl::Time shares_time_ = absl::InfinitePast();
  absl::Time next_calc_;
  // For the job-size and partition factors.
  int64_t cluster_nodes_ = 1;
  int64_t cluster_cpus_ = 1;
  uint32_t max_partition_factor_ = 1;
};

}  // namespace canopy::lifecycle
