// RAII owners for SQLite handles, and a Status-returning wrapper around the few calls the store
// makes. A connection is used by one thread at a time.
#pragma once

#include <sqlite3.h>

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace canopy::persistence {

// Finalizes the connection's cached statements (see Prepare), then closes it.
struct SqliteCloser {
  void operator()(sqlite3* db) const;
};
// Gives a statement from Prepare back to its connection's cache, reset and unbound.
struct SqliteFinalizer {
  void operator()(sqlite3_stmt* stmt) const;
};
using SqliteDb = std::unique_ptr<sqlite3, SqliteCloser>;
using SqliteStatement = std::unique_ptr<sqlite3_stmt, SqliteFinalizer>;

// Call before opening a connection: turns off SQLite's memory statistics for the process, which
// took a global mutex on every allocation SQLite made (12% of the store thread's time writing
// batches of 1,000 jobs). Only possible before SQLite initialises; later calls do nothing.
void ConfigureSqliteOnce();

// Maps a SQLite result code to a Status with `what` and SQLite's message as context.
absl::Status SqliteError(sqlite3* db, int rc, absl::string_view what);

// Runs one or more statements that return no rows.
absl::Status Exec(sqlite3* db, const std::string& sql);

// Steps a statement that returns no rows: OK at SQLITE_DONE, else the error with `what`.
absl::Status StepDone(sqlite3* db, sqlite3_stmt* stmt, absl::string_view what);

// Column `col` of the statement's current row as text, all of it (NULs included); "" for NULL.
std::string ColumnText(sqlite3_stmt* stmt, int col);

// Binds a copy of `value` to parameter `index`.
void BindText(sqlite3_stmt* stmt, int index, const std::string& value);

// A statement for `sql` (its first statement). Compiled once per connection and text: a
// statement released by its SqliteStatement is kept, reset, for the next Prepare of the same
// text, since compiling is most of the cost of a small commit (the jobs upsert names some 60
// columns). Thread-safe across connections.
absl::StatusOr<SqliteStatement> Prepare(sqlite3* db, absl::string_view sql);

// A transaction that rolls back unless Commit() succeeded. BEGIN IMMEDIATE takes the write lock
// up front, so a second process (a stray canopyd on the same state dir) fails fast instead of
// deadlocking halfway through a batch.
class SqliteTransaction {
 public:
  static absl::StatusOr<SqliteTransaction> Begin(sqlite3* db);
  SqliteTransaction(SqliteTransaction&& other) noexcept : db_(other.db_) { other.db_ = nullptr; }
  SqliteTransaction& operator=(SqliteTransaction&&) = delete;
  ~SqliteTransaction();

  absl::Status Commit();

 private:
  explicit SqliteTransaction(sqlite3* db) : db_(db) {}
  sqlite3* db_;
};

// A read transaction (BEGIN DEFERRED): the reads inside it see one state of the database and
// take WAL's read lock once, instead of once per statement (100,000 per-job queries at start-up
// spent more time in fcntl and fstat than in reading). Ended when destroyed.
class SqliteReadTransaction {
 public:
  static absl::StatusOr<SqliteReadTransaction> Begin(sqlite3* db);
  SqliteReadTransaction(SqliteReadTransaction&& other) noexcept : db_(other.db_) {
    other.db_ = nullptr;
  }
  SqliteReadTransaction& operator=(SqliteReadTransaction&&) = delete;
  ~SqliteReadTransaction();

 private:
  explicit SqliteReadTransaction(sqlite3* db) : db_(db) {}
  sqlite3* db_;
};

}  // namespace canopy::persistence
