#include "scheduler/persistence/sqlite_handle.h"

#include <string>
#include <vector>

#include "absl/base/call_once.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"

namespace canopy::persistence {

void ConfigureSqliteOnce() {
  static absl::once_flag once;
  absl::call_once(once, [] {
    // SQLITE_MISUSE when SQLite is already initialised (a test opened a database with plain
    // sqlite3_open first): harmless, the statistics then stay on.
    (void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  });
}

absl::Status SqliteError(sqlite3* db, int rc, absl::string_view what) {
  const std::string msg =
      absl::StrCat(what, ": ", db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
  switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return absl::UnavailableError(msg);
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return absl::DataLossError(msg);
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
    case SQLITE_READONLY:
      return absl::PermissionDeniedError(msg);
    case SQLITE_FULL:
      return absl::ResourceExhaustedError(msg);
    default:
      return absl::InternalError(msg);
  }
}

absl::Status Exec(sqlite3* db, const std::string& sql) {
  char* err = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string what = absl::StrCat("executing \"", sql.substr(0, 60), "\"");
    sqlite3_free(err);
    return SqliteError(db, rc, what);
  }
  return absl::OkStatus();
}

absl::Status StepDone(sqlite3* db, sqlite3_stmt* stmt, absl::string_view what) {
  const int rc = sqlite3_step(stmt);
  return rc == SQLITE_DONE ? absl::OkStatus() : SqliteError(db, rc, what);
}

std::string ColumnText(sqlite3_stmt* stmt, int col) {
  const unsigned char* text = sqlite3_column_text(stmt, col);
  return text == nullptr ? std::string()
                         : std::string(reinterpret_cast<const char*>(text),
                                       static_cast<size_t>(sqlite3_column_bytes(stmt, col)));
}

void BindText(sqlite3_stmt* stmt, int index, const std::string& value) {
  sqlite3_bind_text(stmt, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
}

namespace {

// Idle compiled statements, by connection and SQL text. A connection's entry exists from its
// first Prepare until it is closed; a statement released without an entry is finalized.
struct StatementCache {
  // More idle copies of one text than this are finalized (a text prepared from a longer string
  // is filed under its first statement and never found again: this bounds those).
  static constexpr size_t kIdlePerText = 4;
  absl::Mutex mu;
  absl::flat_hash_map<sqlite3*, absl::flat_hash_map<std::string, std::vector<sqlite3_stmt*>>> idle
      ABSL_GUARDED_BY(mu);
};

StatementCache& Cache() {
  static StatementCache* cache = new StatementCache;
  return *cache;
}

}  // namespace

void SqliteCloser::operator()(sqlite3* db) const {
  std::vector<sqlite3_stmt*> finalize;
  {
    StatementCache& cache = Cache();
    absl::MutexLock lock(&cache.mu);
    if (auto it = cache.idle.find(db); it != cache.idle.end()) {
      for (auto& [sql, statements] : it->second) {
        finalize.insert(finalize.end(), statements.begin(), statements.end());
      }
      cache.idle.erase(it);
    }
  }
  for (sqlite3_stmt* stmt : finalize) {
    sqlite3_finalize(stmt);
  }
  sqlite3_close_v2(db);
}

void SqliteFinalizer::operator()(sqlite3_stmt* stmt) const {
  sqlite3_reset(stmt);
  sqlite3_clear_bindings(stmt);
  {
    StatementCache& cache = Cache();
    absl::MutexLock lock(&cache.mu);
    if (auto it = cache.idle.find(sqlite3_db_handle(stmt)); it != cache.idle.end()) {
      std::vector<sqlite3_stmt*>& idle = it->second[sqlite3_sql(stmt)];
      if (idle.size() < StatementCache::kIdlePerText) {
        idle.push_back(stmt);
        return;
      }
    }
  }
  sqlite3_finalize(stmt);
}

absl::StatusOr<SqliteStatement> Prepare(sqlite3* db, absl::string_view sql) {
  {
    StatementCache& cache = Cache();
    absl::MutexLock lock(&cache.mu);
    auto& by_text = cache.idle[db];
    if (auto it = by_text.find(sql); it != by_text.end() && !it->second.empty()) {
      sqlite3_stmt* stmt = it->second.back();
      it->second.pop_back();
      return SqliteStatement(stmt);
    }
  }
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) {
    return SqliteError(db, rc, absl::StrCat("preparing \"", sql.substr(0, 60), "\""));
  }
  return SqliteStatement(stmt);
}

absl::StatusOr<SqliteTransaction> SqliteTransaction::Begin(sqlite3* db) {
  if (absl::Status s = Exec(db, "BEGIN IMMEDIATE"); !s.ok()) {
    return s;
  }
  return SqliteTransaction(db);
}

SqliteTransaction::~SqliteTransaction() {
  if (db_ != nullptr) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
}

absl::Status SqliteTransaction::Commit() {
  absl::Status s = Exec(db_, "COMMIT");
  if (s.ok()) {
    db_ = nullptr;
  }
  return s;
}

absl::StatusOr<SqliteReadTransaction> SqliteReadTransaction::Begin(sqlite3* db) {
  if (absl::Status s = Exec(db, "BEGIN DEFERRED"); !s.ok()) {
    return s;
  }
  return SqliteReadTransaction(db);
}

SqliteReadTransaction::~SqliteReadTransaction() {
  if (db_ != nullptr) {
    sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr);
  }
}

}  // namespace canopy::persistence
