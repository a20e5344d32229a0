// The schema's history. Each entry upgrades version i to i+1; entries are never edited once
// released, only appended (a released database may be at any earlier version).
#include <array>

#include "absl/strings/str_cat.h"
#include "scheduler/persistence/sqlite_store.h"

namespace canopy::persistence {
namespace {

constexpr std::array<const char*, 12> kMigrations = {
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
    // 3: a job is a row with one column per field of the controller's job record, and its
    // nodes are rows of job_nodes (docs/formats/sqlite-schema.md). Schema 2's serialised records
    // stay in jobs_v2 until the controller has converted and saved them (it then drops it).
    R"sql(
    ALTER TABLE jobs RENAME TO jobs_v2;
    CREATE TABLE jobs (
      id                       INTEGER PRIMARY KEY,
      state                    TEXT NOT NULL,
      reason                   TEXT NOT NULL,
      completing_to            TEXT,
      state_message            TEXT NOT NULL,
      placement_explanation    TEXT NOT NULL,
      submit_time_us           INTEGER,
      eligible_time_us         INTEGER,
      start_time_us            INTEGER,
      end_time_us              INTEGER,
      restart_count            INTEGER NOT NULL,
      exit_code                INTEGER NOT NULL,
      exit_signal              INTEGER NOT NULL,
      run_id                   INTEGER NOT NULL,
      next_step_id             INTEGER NOT NULL,
      user_id                  INTEGER NOT NULL,
      group_id                 INTEGER NOT NULL,
      user_name                TEXT NOT NULL,
      supplementary_gids       TEXT NOT NULL,
      partition                TEXT NOT NULL,
      time_limit_us            INTEGER,
      array_job_id             INTEGER NOT NULL,
      array_task_id            INTEGER NOT NULL,
      idempotency_key          TEXT NOT NULL,
      priority                 INTEGER NOT NULL,
      name                     TEXT NOT NULL,
      requested_partition      TEXT NOT NULL,
      account                  TEXT NOT NULL,
      min_nodes                INTEGER NOT NULL,
      max_nodes                INTEGER NOT NULL,
      ntasks                   INTEGER NOT NULL,
      ntasks_per_node          INTEGER NOT NULL,
      cpus_per_task            INTEGER NOT NULL,
      mem_per_node_mib         INTEGER NOT NULL,
      gpus_per_node            INTEGER NOT NULL,
      gpu_type                 TEXT NOT NULL,
      exclusive                INTEGER NOT NULL,
      requested_time_limit_us  INTEGER,
      max_switches             INTEGER NOT NULL,
      switches_wait_us         INTEGER,
      required_nodes           TEXT NOT NULL,
      excluded_nodes           TEXT NOT NULL,
      script                   TEXT NOT NULL,
      argv                     BLOB NOT NULL,
      environment              BLOB NOT NULL,
      export_none              INTEGER NOT NULL,
      work_dir                 TEXT NOT NULL,
      stdout_path              TEXT NOT NULL,
      stderr_path              TEXT NOT NULL,
      stdin_path               TEXT NOT NULL,
      open_append              INTEGER NOT NULL,
      requeue                  INTEGER NOT NULL,
      hold                     INTEGER NOT NULL,
      submit_host              TEXT NOT NULL,
      submit_dir               TEXT NOT NULL,
      nice                     INTEGER NOT NULL,
      array_spec               TEXT NOT NULL,
      warn_signal              INTEGER NOT NULL,
      warn_time_us             INTEGER NOT NULL,
      warn_batch_only          INTEGER NOT NULL
    );
    CREATE INDEX jobs_by_state ON jobs(state);
    CREATE TABLE job_nodes (
      job_id       INTEGER NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
      idx          INTEGER NOT NULL,
      node         TEXT NOT NULL,
      gpus         INTEGER NOT NULL,
      cpus         INTEGER NOT NULL,
      mem_mib      INTEGER NOT NULL,
      gpu_indexes  TEXT NOT NULL,
      PRIMARY KEY (job_id, idx)
    ) WITHOUT ROWID;
    )sql",
    // 4: fair share. The association tree in build order (parents before children), each
    // row's other sacctmgr options as NUL-separated Key=value items; the usage ledger, one row
    // per user association, decayed to meta's usage_as_of_us; an operator-fixed job priority.
    R"sql(
    CREATE TABLE associations (
      seq         INTEGER PRIMARY KEY,
      account     TEXT NOT NULL,
      user        TEXT NOT NULL,      -- '' for the account's own association
      parent      TEXT NOT NULL,      -- accounts only; '' under root
      shares      INTEGER NOT NULL,   -- -1 = Fairshare=parent
      attributes  BLOB NOT NULL
    );
    CREATE TABLE usage (
      account  TEXT NOT NULL,
      user     TEXT NOT NULL,
      usage    REAL NOT NULL,         -- billing unit-seconds, decayed to usage_as_of_us
      PRIMARY KEY (account, user)
    ) WITHOUT ROWID;
    ALTER TABLE jobs ADD COLUMN priority_fixed INTEGER NOT NULL DEFAULT 0;
    )sql",
    // 5: dependencies, begin times. `dependencies` lists the job's --dependency items with
    // what became of each (docs/formats/sqlite-schema.md); jobs of earlier schemas had none.
    R"sql(
    ALTER TABLE jobs ADD COLUMN dependencies TEXT NOT NULL DEFAULT '';
    ALTER TABLE jobs ADD COLUMN dependency_any INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE jobs ADD COLUMN kill_on_invalid_dep INTEGER;
    ALTER TABLE jobs ADD COLUMN begin_time_us INTEGER;
    )sql",
    // 6: QOS. One row per QOS (docs/formats/sqlite-schema.md), the whole table rewritten when
    // it changes (meta's qos_saved = 1 once it was saved); each job's QOS as asked (--qos) and
    // as resolved at submission. Jobs of earlier schemas had neither.
    R"sql(
    CREATE TABLE qos (
      name               TEXT PRIMARY KEY,
      description        TEXT NOT NULL,
      priority           INTEGER NOT NULL,
      max_tres_per_user  TEXT NOT NULL,   -- Slurm TRES limits ("cpu=512,gres/gpu=64"); '' = none
      max_tres_per_job   TEXT NOT NULL,
      grp_tres           TEXT NOT NULL,
      max_jobs_per_user  INTEGER,         -- NULL = no limit
      grp_jobs           INTEGER,         -- NULL = no limit
      max_wall_us        INTEGER,         -- NULL = UNLIMITED
      preempt            TEXT NOT NULL,   -- QOS names, comma-separated
      preempt_mode       TEXT NOT NULL,   -- '' (the cluster's), OFF, CANCEL or REQUEUE
      grace_time_us      INTEGER NOT NULL
    ) WITHOUT ROWID;
    ALTER TABLE jobs ADD COLUMN qos TEXT NOT NULL DEFAULT '';
    ALTER TABLE jobs ADD COLUMN requested_qos TEXT NOT NULL DEFAULT '';
    )sql",
    // 7: accounting. Finished jobs leave memory after MinJobAge (in_memory = 0) and stay here
    // for sacct until PurgeJobAfter; earlier runs of requeued jobs and steps get tables.
    R"sql(
    ALTER TABLE jobs ADD COLUMN in_memory INTEGER NOT NULL DEFAULT 1;
    ALTER TABLE jobs ADD COLUMN cancelled_by INTEGER;
    ALTER TABLE jobs ADD COLUMN comment TEXT NOT NULL DEFAULT '';
    ALTER TABLE jobs ADD COLUMN wckey TEXT NOT NULL DEFAULT '';
    ALTER TABLE jobs ADD COLUMN mail_type TEXT NOT NULL DEFAULT '';
    ALTER TABLE jobs ADD COLUMN mail_user TEXT NOT NULL DEFAULT '';
    ALTER TABLE jobs ADD COLUMN reservation TEXT NOT NULL DEFAULT '';
    ALTER TABLE jobs ADD COLUMN deadline_us INTEGER;
    ALTER TABLE jobs ADD COLUMN delay_boot_us INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE jobs ADD COLUMN container TEXT NOT NULL DEFAULT '';
    ALTER TABLE jobs ADD COLUMN gpus_per_task INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE jobs ADD COLUMN cpus_per_gpu INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE jobs ADD COLUMN mem_per_gpu_mib INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE jobs ADD COLUMN gpu_bind TEXT NOT NULL DEFAULT '';
    ALTER TABLE jobs ADD COLUMN overcommit INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE jobs ADD COLUMN exclusive_mode TEXT NOT NULL DEFAULT '';
    CREATE INDEX jobs_in_memory ON jobs(id) WHERE in_memory = 1;
    CREATE INDEX jobs_by_end ON jobs(end_time_us);
    CREATE TABLE job_attempts (
      job_id            INTEGER NOT NULL,
      attempt           INTEGER NOT NULL,   -- the job's restart_count during that run
      state             TEXT NOT NULL,      -- REQUEUED, NODE_FAIL or PREEMPTED
      state_message     TEXT NOT NULL,
      eligible_time_us  INTEGER,
      start_time_us     INTEGER,
      end_time_us       INTEGER,
      exit_code         INTEGER NOT NULL,
      exit_signal       INTEGER NOT NULL,
      nodes             TEXT NOT NULL,      -- node:gpus:cpus:mem_mib items joined by ','
      PRIMARY KEY (job_id, attempt)
    ) WITHOUT ROWID;
    CREATE TABLE job_steps (
      job_id         INTEGER NOT NULL,
      attempt        INTEGER NOT NULL,
      step_id        INTEGER NOT NULL,
      name           TEXT NOT NULL,
      state          TEXT NOT NULL,
      start_time_us  INTEGER,
      end_time_us    INTEGER,            -- NULL while running
      exit_code      INTEGER NOT NULL,
      exit_signal    INTEGER NOT NULL,
      nodes          TEXT NOT NULL,      -- node names joined by ','
      ntasks         INTEGER NOT NULL,
      cpus           INTEGER NOT NULL,
      gpus           INTEGER NOT NULL,
      PRIMARY KEY (job_id, attempt, step_id)
    ) WITHOUT ROWID;
    )sql",
    // 8: a job row that cannot be read is quarantined at start-up: its jobs row stays, with
    // in_memory = -1 (neither loaded nor purged), and the reason is recorded here.
    R"sql(
    CREATE TABLE quarantined_jobs (
      job_id             INTEGER PRIMARY KEY,
      reason             TEXT NOT NULL,
      quarantined_at_us  INTEGER NOT NULL
    ) WITHOUT ROWID;
    )sql",
    // 9: a running job's --signal warning, once sent, is not sent again after a restart.
    R"sql(
    ALTER TABLE jobs ADD COLUMN warn_sent INTEGER NOT NULL DEFAULT 0;
    )sql",
    // 10: a running step's layout, so that canopyd restarted under a running srun knows the step
    // again (squeue -s, scancel JOB.STEP, sattach, its end in accounting).
    R"sql(
    ALTER TABLE job_steps ADD COLUMN tasks_per_node TEXT NOT NULL DEFAULT '';
    )sql",
    // 11: an array's script and environment are stored once, not in every task's row (which
    // wrote them again at each of the task's changes); older rows keep their own copy.
    R"sql(
    CREATE TABLE array_texts (
      array_id           INTEGER PRIMARY KEY,
      array_script       TEXT NOT NULL,
      array_environment  BLOB NOT NULL
    );
    ALTER TABLE jobs ADD COLUMN texts_in_array INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX jobs_by_array_texts ON jobs(array_job_id) WHERE texts_in_array = 1;
    )sql",
    // 12: how a job asked for its GPUs (scontrol TresPerJob= / TresPerNode=). A row written
    // before counts as asking per node (gpus_per_node_requested = 1), as it was shown.
    R"sql(
    ALTER TABLE jobs ADD COLUMN gpus_per_job INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE jobs ADD COLUMN gpus_per_node_requested INTEGER NOT NULL DEFAULT 1;
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
