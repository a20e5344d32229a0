// LimitUsage: what running jobs hold against QOS and association limits, and whether one more
// job would pass them (AccountingStorageEnforce=limits). Each job counts, while it holds nodes
// (CONFIGURING or RUNNING), against
//   * its QOS (GrpTRES, GrpJobs),
//   * its user within its QOS (MaxTRESPerUser, MaxJobsPerUser),
//   * its association and every account above it (GrpTRES, GrpJobs; MaxJobs of the user's own).
// A job that would push any of them over waits with Slurm's reason for the first limit hit
// (QOSMaxGRESPerUser, QOSGrpGRES, AssocGrpGRES, AssocMaxJobsLimit, ...); a job that by itself is
// over one of them, or over a per-job limit (MaxTRESPerJob, MaxWall), can never run and is
// refused at submit time (NeverRunnable).
//
// The counts are kept per job, so a job is taken off exactly what it was added to even if the
// QOS table or the tree changed in between. A value type: the scheduling pass copies it to count
// the jobs it starts. Not thread-safe; no I/O.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/types/span.h"
#include "scheduler/core/job.h"
#include "scheduler/fairshare/association_tree.h"
#include "scheduler/limits/association_limits.h"
#include "scheduler/limits/qos.h"

namespace canopy::limits {

// TRES a job holds or asks for.
struct Tres {
  int64_t gpus = 0;
  int64_t cpus = 0;
  int64_t nodes = 0;
  int64_t mem_mib = 0;
  int64_t jobs = 0;
};
// What a pending job asks for (its minimum node count) / what an allocation holds.
Tres TresOfRequest(const core::ResourceRequest& request);
Tres TresOfShares(absl::Span<const core::NodeShare> shares);

// The rules in force: the QOS table, the association tree and its limits. Shared (immutable)
// between the lifecycle and its pass copies.
struct LimitRules {
  std::shared_ptr<const QosTable> qos = std::make_shared<QosTable>();
  std::shared_ptr<const fairshare::AssociationTree> tree =
      std::make_shared<fairshare::AssociationTree>();
  std::vector<AssociationLimits> associations = std::vector<AssociationLimits>(1);  // by node
  bool enforce = false;  // AccountingStorageEnforce=limits (or safe)

  // The association node of a job's (user, account); -1 when it has none.
  int32_t AssociationOf(const core::Job& job) const;
};

class LimitUsage {
 public:
  explicit LimitUsage(
      std::shared_ptr<const LimitRules> rules = std::make_shared<const LimitRules>());

  const LimitRules& rules() const { return *rules_; }
  // New rules (with the same enforcement): every counted job is counted again under them.
  void SetRules(std::shared_ptr<const LimitRules> rules);

  // `job` now holds `shares` (counted once: a second call for the same job is ignored). Nothing
  // is counted while the rules are not enforced: enforcement comes from the config, so it does
  // not change while a controller runs, and canopy-sim and canopyd without limits pay nothing.
  void Add(const core::Job& job, absl::Span<const core::NodeShare> shares);
  void Remove(core::JobId job);
  bool Counts(core::JobId job) const { return counted_.contains(job); }

  // kNone when `job` may start now as far as limits go (always, when rules are not enforced);
  // otherwise the reason of the first limit it would break. `detail` (may be null) gets the
  // limit in words ("QOS 'normal' MaxTRESPerUser gres/gpu=64: alice holds 60 GPUs").
  core::JobReason Check(const core::Job& job, std::string* detail = nullptr) const;
  // OK unless `job` alone breaks a limit (its request over a per-job, per-user or group limit,
  // or its time limit over MaxWall): FailedPrecondition naming the limit. Checked at submit.
  absl::Status NeverRunnable(const core::Job& job) const;

 private:
  struct Counted {
    std::string qos;
    uint32_t user_id = 0;
    int32_t association = -1;
    Tres tres;
  };
  struct Held {
    Tres tres;
    void Add(const Tres& t, int sign);
  };
  void Apply(const Counted& c, int sign);

  std::shared_ptr<const LimitRules> rules_;
  absl::flat_hash_map<core::JobId, Counted> counted_;
  absl::flat_hash_map<std::string, Held> by_qos_;
  absl::flat_hash_map<std::pair<std::string, uint32_t>, Held> by_qos_user_;
  absl::flat_hash_map<int32_t, Held> by_association_;  // each node and its ancestors
};

}  // namespace canopy::limits
