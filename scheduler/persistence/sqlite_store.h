// SqliteStore: the Store on one SQLite database file in WAL mode (docs/formats/sqlite-schema.md).
//
// Durability: synchronous=FULL, so a Commit() that returned OK survives a kill -9 of canopyd and
// a power cut. The schema is versioned with PRAGMA user_version and upgraded by the ordered
// migrations in sqlite_migrations.cc when an older database is opened; a database newer than
// this binary is refused (FailedPrecondition) rather than guessed at.
// One owner thread; not thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "scheduler/persistence/sqlite_array_texts.h"
#include "scheduler/persistence/sqlite_handle.h"
#include "scheduler/persistence/store.h"
#include "scheduler/topology/topology.h"

namespace canopy::persistence {

class SqliteStore final : public Store {
 public:
  // Opens (creating if needed) the database at `path` and migrates it to the current schema.
  // Jobs' nodes are stored by name: `topology` maps them to the ids of this configuration.
  static absl::StatusOr<std::unique_ptr<SqliteStore>> Open(
      const std::string& path, std::shared_ptr<const topology::Topology> topology);

  absl::Status Commit(const Mutations& mutations) override;
  absl::StatusOr<std::vector<NodeAdminRow>> LoadNodeAdminState() override;
  absl::StatusOr<StoredJobs> LoadJobs() override;
  absl::StatusOr<StoredAccounting> LoadAccounting() override;

  // The schema version this binary writes.
  static int CurrentSchemaVersion();

 private:
  SqliteStore(SqliteDb db, std::shared_ptr<const topology::Topology> topology)
      : db_(std::move(db)), topology_(std::move(topology)) {}
  absl::Status SaveNodeAdmin(const std::vector<NodeAdminRow>& rows);
  absl::Status SaveNextJobId(uint32_t next_job_id);
  // Sets the jobs' rows aside (in_memory = -1) and records why in quarantined_jobs.
  absl::Status Quarantine(const std::vector<JobLoadProblem>& jobs);
  // Schema 2's records, while the jobs_v2 table exists.
  absl::Status LoadLegacyJobs(StoredJobs& out);
  SqliteDb db_;
  std::shared_ptr<const topology::Topology> topology_;
  ArrayTexts array_texts_;  // which arrays' texts are stored (Commit runs on one thread)
};

// Applies the migrations newer than the database's user_version, each in its own transaction.
absl::Status MigrateSchema(sqlite3* db);

}  // namespace canopy::persistence
