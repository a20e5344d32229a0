#include "scheduler/persistence/sqlite_handle.h"

#include "absl/strings/str_cat.h"

namespace canopy::persistence {

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

absl::StatusOr<SqliteStatement> Prepare(sqlite3* db, absl::string_view sql) {
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

}  // namespace canopy::persistence
