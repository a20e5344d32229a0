// The schema's history. Each entry upgrades version i to i+1; entries are never edited once
// released, only appended (a released database may be at any earlier version).
#include <array>

#include "absl/strings/str_cat.h"
#include "scheduler/persistence/sqlite_store.h"

namespace canopy::persistence {
namespace {

constexpr std::array<const char*, 2> kMigrations = {
    // 1: node availability set by admins (drain/down + reason).
    R"sql(
    CREATE TABLE node_admin (
      name         TEXT PRIMARY KEY,
      drain        INTEGER NOT NULL,
      admin_down   INTEGER NOT NULL,
      reason       TEXT NOT NULL,
      reason_time  INTEGER,            -- unix seconds; NULL when no reason is set
      reason_user  TEXT NOT NULL
    );
    )sql",
    // 2: jobs. `record` is the controller's serialised canopy.v1.Job; `state` repeats its state
    // for people reading the database. `meta` holds counters such as the next job id.
    R"sql(
    CREATE TABLE jobs (
      id      INTEGER PRIMARY KEY,
      state   TEXT NOT NULL,
      record  BLOB NOT NULL
    );
    CREATE TABLE meta (
      key    TEXT PRIMARY KEY,
      value  INTEGER NOT NULL
    );
    )sql",
};

absl::StatusOr<int> UserVersion(sqlite3* db) {
  absl::StatusOr<SqliteStatement> stmt = Prepare(db, "PRAGMA user_version");
  if (!stmt.ok()) {
    return stmt.status();
  }
  if (sqlite3_step(stmt->get()) != SQLITE_ROW) {
    return SqliteError(db, sqlite3_errcode(db), "reading user_version");
  }
  return sqlite3_column_int(stmt->get(), 0);
}

}  // namespace

int SqliteStore::CurrentSchemaVersion() { return static_cast<int>(kMigrations.size()); }

absl::Status MigrateSchema(sqlite3* db) {
  absl::StatusOr<int> version = UserVersion(db);
  if (!version.ok()) {
    return version.status();
  }
  const int target = SqliteStore::CurrentSchemaVersion();
  if (*version > target) {
    return absl::FailedPreconditionError(
        absl::StrCat("database schema version ", *version, " is newer than this canopyd (", target,
                     "); run the canopyd that wrote it, or restore a backup"));
  }
  for (int v = *version; v < target; ++v) {
    absl::StatusOr<SqliteTransaction> tx = SqliteTransaction::Begin(db);
    if (!tx.ok()) {
      return tx.status();
    }
    if (absl::Status s = Exec(db, kMigrations[v]); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat("migration to schema ", v + 1, ": ", s.message()));
    }
    if (absl::Status s = Exec(db, absl::StrCat("PRAGMA user_version = ", v + 1)); !s.ok()) {
      return s;
    }
    if (absl::Status s = tx->Commit(); !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace canopy::persistence
