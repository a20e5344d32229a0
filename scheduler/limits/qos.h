// QOS records: Slurm's quality-of-service tiers. A job runs under one QOS (sbatch --qos, else
// its association's DefaultQOS, else "normal"), which adds its Priority to the job's priority
// (multifactor's QOS factor), bounds what the job and its user may hold at once
// (MaxTRESPerUser, MaxJobsPerUser, MaxTRESPerJob, MaxWall) and what all jobs of the QOS may
// hold (GrpTRES), and, under PreemptType=preempt/qos, names the QOS whose jobs it may preempt
// (Preempt) and what happens to its own jobs when preempted (PreemptMode, GraceTime).
//
// A QosTable is an immutable value built from a list of QosSpec (sacctmgr add/modify/delete
// qos, kept by canopyd in SQLite); a change builds a new table. "normal" always exists, as in
// Slurm. Thread-compatible.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/slurm/limit_values.h"

namespace canopy::limits {

inline constexpr absl::string_view kNormalQos = "normal";

struct QosSpec {
  std::string name;
  std::string description;
  uint32_t priority = 0;                // Priority
  slurm::TresLimits max_tres_per_user;  // MaxTRESPerUser: what one user's jobs hold together
  slurm::TresLimits max_tres_per_job;   // MaxTRESPerJob
  slurm::TresLimits grp_tres;           // GrpTRES: what all jobs of the QOS hold together
  int64_t max_jobs_per_user = -1;       // MaxJobsPerUser: running jobs; -1 = no limit
  int64_t grp_jobs = -1;                // GrpJobs: running jobs of the QOS; -1 = no limit
  absl::Duration max_wall = absl::InfiniteDuration();  // MaxWall (per job)
  std::vector<std::string> preempt;                    // Preempt: the QOS its jobs may preempt
  slurm::PreemptMode preempt_mode = slurm::PreemptMode::kCluster;  // PreemptMode
  absl::Duration grace_time = absl::ZeroDuration();  // GraceTime: SIGTERM, then this, then out

  friend bool operator==(const QosSpec&, const QosSpec&) = default;
};

// Sets one sacctmgr option of a QOS, as `sacctmgr add|modify qos ... set KEY=VALUE` writes it
// (keys any case): Description, Priority, MaxTRESPerUser (also MaxTRESPU), MaxTRESPerJob (also
// MaxTRES), GrpTRES, MaxJobsPerUser (also MaxJobsPU), GrpJobs, MaxWall (also
// MaxWallDurationPerJob; a Slurm time, -1 clears), Preempt (a comma list; "" clears; "+name" /
// "-name" add or remove one), PreemptMode, GraceTime (seconds). TRES values change only the
// TRES they name. InvalidArgument "KEY: expected ..., got '...'" for a bad value, and
// "unknown QOS option 'KEY' (expected ...)" for an unknown key.
absl::Status ApplyQosOption(absl::string_view key, absl::string_view value, QosSpec& spec);
// The options that ApplyQosOption would set back to this spec, in sacctmgr's order, leaving out
// those at their defaults (name excluded).
std::vector<std::pair<std::string, std::string>> QosOptions(const QosSpec& spec);

class QosTable {
 public:
  // Only "normal" (priority 0, no limits).
  QosTable();

  // InvalidArgument naming the QOS for: an empty name or one with ',' or whitespace, a name given
  // twice, a Preempt entry naming a QOS that does not exist or the QOS itself. "normal" is added
  // when missing.
  static absl::StatusOr<QosTable> Build(std::vector<QosSpec> specs);

  const std::vector<QosSpec>& specs() const { return specs_; }  // "normal" first, then by name
  // nullptr when absent (names are case-sensitive, as in Slurm).
  const QosSpec* Find(absl::string_view name) const;
  // The largest Priority of any QOS: multifactor divides by it (0 when all are 0).
  uint32_t max_priority() const { return max_priority_; }
  // Whether jobs of QOS `preemptor` may preempt jobs of QOS `victim` (its Preempt list).
  bool MayPreempt(absl::string_view preemptor, absl::string_view victim) const;

  friend bool operator==(const QosTable& a, const QosTable& b) { return a.specs_ == b.specs_; }

 private:
  std::vector<QosSpec> specs_;
  absl::flat_hash_map<std::string, int32_t> index_;  // lookups only
  uint32_t max_priority_ = 0;
};

}  // namespace canopy::limits
