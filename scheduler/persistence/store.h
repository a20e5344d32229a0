// Store: the controller's durable state, behind an interface so the core and its tests never
// touch SQLite (STYLE.md §4). The controller's owner thread is the only caller; implementations
// need not be thread-safe.
//
// The interface speaks the core's types: jobs go in and come out as core::Job, and an
// implementation maps them to its own rows (SqliteStore: docs/formats/sqlite-schema.md). Writes
// come as one Mutations batch per call, applied in one transaction: the controller drains its
// command queue, collects every change, commits once (group commit), and only then answers the
// clients whose commands were in the batch.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "scheduler/core/job.h"
#include "scheduler/core/job_history.h"
#include "scheduler/fairshare/association_tree.h"
#include "scheduler/fairshare/usage_ledger.h"
#include "scheduler/limits/qos.h"

namespace canopy::persistence {

// A node's admin-set availability: the part of a node's state that must survive a restart
// (everything else is re-learned when its agent reconnects).
struct NodeAdminRow {
  std::string name;
  bool drain = false;
  bool admin_down = false;
  std::string reason;
  absl::Time reason_time = absl::InfinitePast();
  std::string reason_user;

  friend bool operator==(const NodeAdminRow&, const NodeAdminRow&) = default;
};

// The usage ledger as saved. Every job that was RUNNING at `charged_through` had been charged up
// to then; a job that stopped running since was charged to its end in the commit that recorded
// it. So after a restart each running job is charged again from max(its start, charged_through):
// nothing is lost and nothing counted twice.
struct UsageState {
  fairshare::UsageLedger::Snapshot ledger;
  absl::Time charged_through = absl::InfinitePast();
};

struct Mutations {
  std::vector<NodeAdminRow> node_admin_upserts;
  // Whole records of the jobs that changed (shared with the snapshot that publishes them).
  std::vector<std::shared_ptr<const core::Job>> job_upserts;
  // The next job id to hand out, when it changed (0 = unchanged).
  uint32_t next_job_id = 0;
  // Forget the job records kept in the format of an older schema (StoredJobs::legacy): they
  // were converted and are in `job_upserts` of the same commit.
  bool drop_legacy_jobs = false;
  // The whole association tree (in build order), when it changed.
  std::optional<std::vector<fairshare::AssociationSpec>> associations;
  // The whole ledger, when usage was charged.
  std::optional<UsageState> usage;
  // The whole QOS table, when it changed.
  std::optional<std::vector<limits::QosSpec>> qos;
  // Accounting: runs of requeued jobs that ended; steps as they started or ended (a later
  // record of the same job, attempt and step replaces the earlier).
  std::vector<core::JobAttempt> attempts;
  std::vector<core::StepRecord> steps;
  // Finished jobs that left memory (MinJobAge): kept for accounting, not loaded again.
  std::vector<core::JobId> forget_jobs;
  // Delete the accounting of jobs that left memory and ended before this (PurgeJobAfter);
  // InfinitePast = nothing.
  absl::Time purge_before = absl::InfinitePast();

  bool empty() const {
    return node_admin_upserts.empty() && job_upserts.empty() && next_job_id == 0 &&
           !drop_legacy_jobs && !associations.has_value() && !usage.has_value() &&
           !qos.has_value() && attempts.empty() && steps.empty() && forget_jobs.empty() &&
           purge_before == absl::InfinitePast();
  }
};

// A stored job that could not be read back as it was saved.
struct JobLoadProblem {
  core::JobId job;
  std::string what;  // "node gpu9 is no longer configured"
};

// A job record as an older schema stored it: a serialised canopy.v1.Job (schema 2). The store
// does not interpret it; the controller converts it (scheduler/server).
struct LegacyJobRecord {
  uint32_t id = 0;
  std::string record;
};

// Everything about jobs needed at start-up.
struct StoredJobs {
  // Ascending id. `resources` is not stored (the controller derives it from `spec`). A job
  // listed in `problems` comes without its allocation.
  std::vector<core::Job> jobs;
  uint32_t next_job_id = 0;  // 0 = never saved
  std::vector<JobLoadProblem> problems;
  std::vector<LegacyJobRecord> legacy;
  // Jobs whose stored row could not be read (a corrupt value): not loaded, and set aside in
  // the database (quarantined_jobs) so the next start does not meet them again.
  std::vector<JobLoadProblem> quarantined;
  // Steps saved as started and not as ended, of the loaded jobs. Restore keeps those of a job's
  // current run that still holds nodes, and ends the others.
  std::vector<core::StepRecord> open_steps;
};

// The fair-share state at start-up; nullopt for what was never saved.
struct StoredAccounting {
  std::optional<std::vector<fairshare::AssociationSpec>> associations;
  std::optional<UsageState> usage;
  std::optional<std::vector<limits::QosSpec>> qos;
};

class Store {
 public:
  virtual ~Store() = default;

  // Applies every mutation atomically and durably. On error nothing was applied; the code is
  // Unavailable for a busy/locked database (retry), DataLoss for corruption, Internal otherwise.
  virtual absl::Status Commit(const Mutations& mutations) = 0;

  // Everything needed to rebuild the controller's state at start-up. DataLoss for a row that
  // cannot be read at all.
  virtual absl::StatusOr<std::vector<NodeAdminRow>> LoadNodeAdminState() = 0;
  virtual absl::StatusOr<StoredJobs> LoadJobs() = 0;
  virtual absl::StatusOr<StoredAccounting> LoadAccounting() = 0;
};

}  // namespace canopy::persistence
