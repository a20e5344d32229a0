#include "scheduler/persistence/sqlite_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "scheduler/persistence/sqlite_accounting_rows.h"
#include "scheduler/persistence/sqlite_history_rows.h"
#include "scheduler/persistence/sqlite_job_rows.h"
#include "scheduler/persistence/sqlite_qos_rows.h"

namespace canopy::persistence {
namespace {

int64_t ToUnix(absl::Time t) { return absl::ToUnixSeconds(t); }

absl::Status BindText(sqlite3* db, sqlite3_stmt* stmt, int index, const std::string& value) {
  const int rc = sqlite3_bind_text(stmt, index, value.data(), static_cast<int>(value.size()),
                                   SQLITE_TRANSIENT);
  return rc == SQLITE_OK ? absl::OkStatus() : SqliteError(db, rc, "binding text");
}

// Makes `path` mode 0600, creating it empty (an empty file is a new SQLite database) when
// `create` and it is missing. A missing file is fine when not `create`.
absl::Status RestrictToOwner(const std::string& path, bool create) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | (create ? O_CREAT : 0), 0600);
  if (fd < 0) {
    if (!create && errno == ENOENT) {
      return absl::OkStatus();
    }
    return absl::PermissionDeniedError(
        absl::StrCat("cannot open database ", path, ": ", std::strerror(errno)));
  }
  const int rc = ::fchmod(fd, 0600);
  const int saved = errno;
  ::close(fd);
  if (rc != 0) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot make database ", path, " owner-only (0600): ", std::strerror(saved)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<SqliteStore>> SqliteStore::Open(
    const std::string& path, std::shared_ptr<const topology::Topology> topology) {
  // Owner-only: the database holds every job's script and environment. SQLite gives its -wal
  // and -shm files the database file's mode.
  if (absl::Status s = RestrictToOwner(path, /*create=*/true); !s.ok()) {
    return s;
  }
  for (const char* suffix : {"-wal", "-shm"}) {
    if (absl::Status s = RestrictToOwner(absl::StrCat(path, suffix), /*create=*/false); !s.ok()) {
      return s;
    }
  }
  ConfigureSqliteOnce();
  sqlite3* raw = nullptr;
  const int rc =
      sqlite3_open_v2(path.c_str(), &raw,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  SqliteDb db(raw);  // owns the handle even when open failed
  if (rc != SQLITE_OK) {
    return SqliteError(db.get(), rc, absl::StrCat("opening database ", path));
  }
  // WAL: readers (backups, `sqlite3` by an admin) never block the controller's writes.
  // busy_timeout: ride out a short lock held by such a reader instead of failing the batch.
  for (const char* pragma : {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=FULL",
                             "PRAGMA foreign_keys=ON", "PRAGMA busy_timeout=5000"}) {
    if (absl::Status s = Exec(db.get(), pragma); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat(path, ": ", s.message()));
    }
  }
  if (absl::Status s = MigrateSchema(db.get()); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat(path, ": ", s.message()));
  }
  return std::unique_ptr<SqliteStore>(new SqliteStore(std::move(db), std::move(topology)));
}

absl::Status SqliteStore::Commit(const Mutations& mutations) {
  if (mutations.empty()) {
    return absl::OkStatus();
  }
  sqlite3* db = db_.get();
  absl::StatusOr<SqliteTransaction> tx = SqliteTransaction::Begin(db);
  if (!tx.ok()) {
    return tx.status();
  }
  // Array texts written in this transaction count as stored only once it has committed.
  absl::Cleanup forget_array_texts = [this] { array_texts_.RolledBack(); };
  if (absl::Status st = SaveNodeAdmin(mutations.node_admin_upserts); !st.ok()) {
    return st;
  }
  if (absl::Status st = SaveJobRows(db, mutations.job_upserts, *topology_, array_texts_);
      !st.ok()) {
    return st;
  }
  if (absl::Status st = SaveAttemptRows(db, mutations.attempts, *topology_); !st.ok()) {
    return st;
  }
  if (absl::Status st = SaveStepRows(db, mutations.steps, *topology_); !st.ok()) {
    return st;
  }
  if (absl::Status st = ForgetJobRows(db, mutations.forget_jobs); !st.ok()) {
    return st;
  }
  if (absl::Status st = PurgeHistory(db, mutations.purge_before); !st.ok()) {
    return st;
  }
  if (mutations.purge_before != absl::InfinitePast()) {
    if (absl::Status st = PurgeArrayTexts(db); !st.ok()) {
      return st;
    }
  }
  if (mutations.drop_legacy_jobs) {
    if (absl::Status st = Exec(db, "DROP TABLE IF EXISTS jobs_v2"); !st.ok()) {
      return st;
    }
  }
  if (mutations.next_job_id != 0) {
    if (absl::Status st = SaveNextJobId(mutations.next_job_id); !st.ok()) {
      return st;
    }
  }
  if (mutations.associations.has_value()) {
    if (absl::Status st = SaveAssociationRows(db, *mutations.associations); !st.ok()) {
      return st;
    }
  }
  if (mutations.usage.has_value()) {
    if (absl::Status st = SaveUsageRows(db, *mutations.usage); !st.ok()) {
      return st;
    }
  }
  if (mutations.qos.has_value()) {
    if (absl::Status st = SaveQosRows(db, *mutations.qos); !st.ok()) {
      return st;
    }
  }
  if (absl::Status st = tx->Commit(); !st.ok()) {
    return st;
  }
  std::move(forget_array_texts).Cancel();
  array_texts_.Committed();
  return absl::OkStatus();
}

absl::Status SqliteStore::SaveNodeAdmin(const std::vector<NodeAdminRow>& rows) {
  if (rows.empty()) {
    return absl::OkStatus();
  }
  sqlite3* db = db_.get();
  absl::StatusOr<SqliteStatement> stmt =
      Prepare(db,
              "INSERT INTO node_admin(name, drain, admin_down, reason, reason_time, reason_user) "
              "VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT(name) DO UPDATE SET drain=?2, "
              "admin_down=?3, reason=?4, reason_time=?5, reason_user=?6");
  if (!stmt.ok()) {
    return stmt.status();
  }
  sqlite3_stmt* s = stmt->get();
  for (const NodeAdminRow& row : rows) {
    sqlite3_reset(s);
    if (absl::Status st = BindText(db, s, 1, row.name); !st.ok()) {
      return st;
    }
    sqlite3_bind_int(s, 2, row.drain ? 1 : 0);
    sqlite3_bind_int(s, 3, row.admin_down ? 1 : 0);
    if (absl::Status st = BindText(db, s, 4, row.reason); !st.ok()) {
      return st;
    }
    if (row.reason_time == absl::InfinitePast()) {
      sqlite3_bind_null(s, 5);
    } else {
      sqlite3_bind_int64(s, 5, ToUnix(row.reason_time));
    }
    if (absl::Status st = BindText(db, s, 6, row.reason_user); !st.ok()) {
      return st;
    }
    if (const int rc = sqlite3_step(s); rc != SQLITE_DONE) {
      return SqliteError(db, rc, absl::StrCat("saving node ", row.name));
    }
  }
  return absl::OkStatus();
}

absl::Status SqliteStore::SaveNextJobId(uint32_t next_job_id) {
  sqlite3* db = db_.get();
  absl::StatusOr<SqliteStatement> stmt =
      Prepare(db,
              "INSERT INTO meta(key, value) VALUES ('next_job_id', ?1) "
              "ON CONFLICT(key) DO UPDATE SET value=?1");
  if (!stmt.ok()) {
    return stmt.status();
  }
  sqlite3_bind_int64(stmt->get(), 1, next_job_id);
  if (const int rc = sqlite3_step(stmt->get()); rc != SQLITE_DONE) {
    return SqliteError(db, rc, "saving the next job id");
  }
  return absl::OkStatus();
}

absl::StatusOr<StoredAccounting> SqliteStore::LoadAccounting() {
  absl::StatusOr<StoredAccounting> stored = LoadAccountingRows(db_.get());
  if (!stored.ok()) {
    return stored;
  }
  absl::StatusOr<std::optional<std::vector<limits::QosSpec>>> qos = LoadQosRows(db_.get());
  if (!qos.ok()) {
    return qos.status();
  }
  stored->qos = *std::move(qos);
  return stored;
}

absl::StatusOr<StoredJobs> SqliteStore::LoadJobs() {
  StoredJobs stored;
  {
    absl::StatusOr<SqliteReadTransaction> read = SqliteReadTransaction::Begin(db_.get());
    if (!read.ok()) {
      return read.status();
    }
    if (absl::Status st = LoadJobRows(db_.get(), *topology_, stored); !st.ok()) {
      return st;
    }
  }
  if (absl::Status st = LoadLegacyJobs(stored); !st.ok()) {
    return st;
  }
  if (absl::Status st = Quarantine(stored.quarantined); !st.ok()) {
    return st;
  }
  if (absl::Status st = LoadOpenStepRows(db_.get(), *topology_, stored); !st.ok()) {
    return st;
  }
  absl::StatusOr<SqliteStatement> stmt =
      Prepare(db_.get(), "SELECT value FROM meta WHERE key = 'next_job_id'");
  if (!stmt.ok()) {
    return stmt.status();
  }
  const int rc = sqlite3_step(stmt->get());
  if (rc == SQLITE_ROW) {
    stored.next_job_id = static_cast<uint32_t>(sqlite3_column_int64(stmt->get(), 0));
  } else if (rc != SQLITE_DONE) {
    return SqliteError(db_.get(), rc, "loading the next job id");
  }
  return stored;
}

absl::Status SqliteStore::Quarantine(const std::vector<JobLoadProblem>& jobs) {
  if (jobs.empty()) {
    return absl::OkStatus();
  }
  sqlite3* db = db_.get();
  absl::StatusOr<SqliteTransaction> tx = SqliteTransaction::Begin(db);
  if (!tx.ok()) {
    return tx.status();
  }
  absl::StatusOr<SqliteStatement> record =
      Prepare(db,
              "INSERT OR REPLACE INTO quarantined_jobs(job_id, reason, quarantined_at_us) "
              "VALUES (?1, ?2, ?3)");
  absl::StatusOr<SqliteStatement> set_aside =
      Prepare(db, "UPDATE jobs SET in_memory = -1 WHERE id = ?1");
  for (const auto* st : {&record, &set_aside}) {
    if (!st->ok()) {
      return st->status();
    }
  }
  const int64_t now_us = absl::ToUnixMicros(absl::Now());
  for (const JobLoadProblem& job : jobs) {
    sqlite3_reset(record->get());
    sqlite3_bind_int64(record->get(), 1, job.job.value());
    if (absl::Status st = BindText(db, record->get(), 2, job.what); !st.ok()) {
      return st;
    }
    sqlite3_bind_int64(record->get(), 3, now_us);
    sqlite3_reset(set_aside->get());
    sqlite3_bind_int64(set_aside->get(), 1, job.job.value());
    for (sqlite3_stmt* stmt : {record->get(), set_aside->get()}) {
      if (const int rc = sqlite3_step(stmt); rc != SQLITE_DONE) {
        return SqliteError(db, rc, absl::StrCat("quarantining job ", job.job.value()));
      }
    }
  }
  return tx->Commit();
}

absl::Status SqliteStore::LoadLegacyJobs(StoredJobs& out) {
  absl::StatusOr<SqliteStatement> exists =
      Prepare(db_.get(), "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'jobs_v2'");
  if (!exists.ok()) {
    return exists.status();
  }
  if (sqlite3_step(exists->get()) != SQLITE_ROW) {
    return absl::OkStatus();
  }
  absl::StatusOr<SqliteStatement> stmt =
      Prepare(db_.get(), "SELECT id, record FROM jobs_v2 ORDER BY id");
  if (!stmt.ok()) {
    return stmt.status();
  }
  sqlite3_stmt* s = stmt->get();
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    LegacyJobRecord row;
    row.id = static_cast<uint32_t>(sqlite3_column_int64(s, 0));
    const void* blob = sqlite3_column_blob(s, 1);
    row.record.assign(static_cast<const char*>(blob),
                      static_cast<size_t>(sqlite3_column_bytes(s, 1)));
    out.legacy.push_back(std::move(row));
  }
  if (rc != SQLITE_DONE) {
    return SqliteError(db_.get(), rc, "loading schema 2 job records");
  }
  if (out.legacy.empty()) {
    // Nothing to convert (a database created by this canopyd, or one already converted but
    // for the table): it goes now rather than being read at every start.
    stmt->reset();  // finalized: a statement still reading the schema would lock the table
    exists->reset();
    return Exec(db_.get(), "DROP TABLE jobs_v2");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<NodeAdminRow>> SqliteStore::LoadNodeAdminState() {
  absl::StatusOr<SqliteStatement> stmt =
      Prepare(db_.get(),
              "SELECT name, drain, admin_down, reason, reason_time, reason_user FROM node_admin "
              "ORDER BY name");
  if (!stmt.ok()) {
    return stmt.status();
  }
  std::vector<NodeAdminRow> rows;
  int rc;
  while ((rc = sqlite3_step(stmt->get())) == SQLITE_ROW) {
    sqlite3_stmt* s = stmt->get();
    NodeAdminRow row;
    row.name = ColumnText(s, 0);
    row.drain = sqlite3_column_int(s, 1) != 0;
    row.admin_down = sqlite3_column_int(s, 2) != 0;
    row.reason = ColumnText(s, 3);
    row.reason_time = sqlite3_column_type(s, 4) == SQLITE_NULL
                          ? absl::InfinitePast()
                          : absl::FromUnixSeconds(sqlite3_column_int64(s, 4));
    row.reason_user = ColumnText(s, 5);
    rows.push_back(std::move(row));
  }
  if (rc != SQLITE_DONE) {
    return SqliteError(db_.get(), rc, "loading node_admin");
  }
  return rows;
}

}  // namespace canopy::persistence
