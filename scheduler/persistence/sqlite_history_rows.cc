// Accounting rows (sqlite_history_rows.h).
#include "scheduler/persistence/sqlite_history_rows.h"

#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace canopy::persistence {
namespace {

void BindTime(sqlite3_stmt* s, int i, absl::Time t) {
  if (t == absl::InfinitePast()) {
    sqlite3_bind_null(s, i);
  } else {
    sqlite3_bind_int64(s, i, absl::ToUnixMicros(t));
  }
}

std::string ReadText(sqlite3_stmt* s, int i) {
  const unsigned char* text = sqlite3_column_text(s, i);
  return text == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(text));
}

absl::Status Run(sqlite3* db, sqlite3_stmt* s, absl::string_view what) {
  const int rc = sqlite3_step(s);
  return rc == SQLITE_DONE ? absl::OkStatus() : SqliteError(db, rc, what);
}

}  // namespace

absl::Status SaveAttemptRows(sqlite3* db, const std::vector<core::JobAttempt>& attempts,
                             const topology::Topology& topology) {
  if (attempts.empty()) {
    return absl::OkStatus();
  }
  absl::StatusOr<SqliteStatement> stmt =
      Prepare(db,
              "INSERT OR REPLACE INTO job_attempts(job_id, attempt, state, state_message, "
              "eligible_time_us, start_time_us, end_time_us, exit_code, exit_signal, nodes) "
              "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");
  if (!stmt.ok()) {
    return stmt.status();
  }
  sqlite3_stmt* s = stmt->get();
  for (const core::JobAttempt& a : attempts) {
    std::vector<std::string> nodes;
    for (const core::NodeShare& share : a.allocation.nodes) {
      nodes.push_back(absl::StrCat(topology.node_name(share.node), ":", share.gpus, ":", share.cpus,
                                   ":", share.mem_mib));
    }
    sqlite3_reset(s);
    sqlite3_bind_int64(s, 1, a.job.value());
    sqlite3_bind_int64(s, 2, a.attempt);
    BindText(s, 3, std::string(core::JobStateName(a.state)));
    BindText(s, 4, a.state_message);
    BindTime(s, 5, a.eligible_time);
    BindTime(s, 6, a.start_time);
    BindTime(s, 7, a.end_time);
    sqlite3_bind_int64(s, 8, a.exit_code);
    sqlite3_bind_int64(s, 9, a.exit_signal);
    BindText(s, 10, absl::StrJoin(nodes, ","));
    if (absl::Status st =
            Run(db, s, absl::StrCat("saving run ", a.attempt, " of job ", a.job.value()));
        !st.ok()) {
      return st;
    }
  }
  return absl::OkStatus();
}

absl::Status SaveStepRows(sqlite3* db, const std::vector<core::StepRecord>& steps,
                          const topology::Topology& topology) {
  if (steps.empty()) {
    return absl::OkStatus();
  }
  absl::StatusOr<SqliteStatement> stmt = Prepare(
      db,
      "INSERT OR REPLACE INTO job_steps(job_id, attempt, step_id, name, state, start_time_us, "
      "end_time_us, exit_code, exit_signal, nodes, ntasks, cpus, gpus, tasks_per_node) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)");
  if (!stmt.ok()) {
    return stmt.status();
  }
  sqlite3_stmt* s = stmt->get();
  for (const core::StepRecord& step : steps) {
    std::vector<std::string> nodes;
    for (core::NodeId node : step.nodes) {
      nodes.push_back(topology.node_name(node));
    }
    sqlite3_reset(s);
    sqlite3_bind_int64(s, 1, step.job.value());
    sqlite3_bind_int64(s, 2, step.attempt);
    sqlite3_bind_int64(s, 3, step.step_id);
    BindText(s, 4, step.name);
    BindText(s, 5, std::string(core::JobStateName(step.state)));
    BindTime(s, 6, step.start_time);
    BindTime(s, 7, step.end_time);
    sqlite3_bind_int64(s, 8, step.exit_code);
    sqlite3_bind_int64(s, 9, step.exit_signal);
    BindText(s, 10, absl::StrJoin(nodes, ","));
    sqlite3_bind_int64(s, 11, step.ntasks);
    sqlite3_bind_int64(s, 12, step.cpus);
    sqlite3_bind_int64(s, 13, step.gpus);
    BindText(s, 14, absl::StrJoin(step.tasks_per_node, ","));
    if (absl::Status st =
            Run(db, s, absl::StrCat("saving step ", step.job.value(), ".", step.step_id));
        !st.ok()) {
      return st;
    }
  }
  return absl::OkStatus();
}

absl::Status LoadOpenStepRows(sqlite3* db, const topology::Topology& topology, StoredJobs& out) {
  absl::StatusOr<SqliteStatement> stmt =
      Prepare(db,
              "SELECT s.job_id, s.attempt, s.step_id, s.name, s.start_time_us, s.nodes, s.ntasks, "
              "s.cpus, s.gpus, s.tasks_per_node FROM job_steps s JOIN jobs j ON j.id = s.job_id "
              "WHERE s.end_time_us IS NULL AND j.in_memory = 1 "
              "ORDER BY s.job_id, s.attempt, s.step_id");
  if (!stmt.ok()) {
    return stmt.status();
  }
  sqlite3_stmt* s = stmt->get();
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    core::StepRecord r;
    r.job = core::JobId(static_cast<uint32_t>(sqlite3_column_int64(s, 0)));
    r.attempt = static_cast<int32_t>(sqlite3_column_int64(s, 1));
    r.step_id = static_cast<uint32_t>(sqlite3_column_int64(s, 2));
    r.name = ReadText(s, 3);
    r.state = core::JobState::kRunning;
    r.start_time = absl::FromUnixMicros(sqlite3_column_int64(s, 4));
    bool known = true;
    for (absl::string_view name : absl::StrSplit(ReadText(s, 5), ',', absl::SkipEmpty())) {
      const core::NodeId node = topology.FindNode(name);
      known = known && node.valid();
      r.nodes.push_back(node);
    }
    r.ntasks = static_cast<int32_t>(sqlite3_column_int64(s, 6));
    r.cpus = static_cast<int32_t>(sqlite3_column_int64(s, 7));
    r.gpus = static_cast<int32_t>(sqlite3_column_int64(s, 8));
    for (absl::string_view n : absl::StrSplit(ReadText(s, 9), ',', absl::SkipEmpty())) {
      int32_t tasks = 0;
      known = known && absl::SimpleAtoi(n, &tasks);
      r.tasks_per_node.push_back(tasks);
    }
    // A step of a node gone from the configuration, or saved before its layout was (schema 9):
    // only its end can still be recorded.
    if (!known || r.tasks_per_node.size() != r.nodes.size()) {
      r.tasks_per_node.clear();
    }
    out.open_steps.push_back(std::move(r));
  }
  return rc == SQLITE_DONE ? absl::OkStatus() : SqliteError(db, rc, "reading open job_steps");
}

absl::Status PurgeHistory(sqlite3* db, absl::Time before) {
  if (before == absl::InfinitePast()) {
    return absl::OkStatus();
  }
  const int64_t cutoff = absl::ToUnixMicros(before);
  // Attempts and steps first, while the jobs rows still say which jobs go.
  for (const char* sql : {
           "DELETE FROM job_attempts WHERE job_id IN (SELECT id FROM jobs WHERE in_memory = 0 "
           "AND end_time_us < ?1)",
           "DELETE FROM job_steps WHERE job_id IN (SELECT id FROM jobs WHERE in_memory = 0 AND "
           "end_time_us < ?1)",
           "DELETE FROM jobs WHERE in_memory = 0 AND end_time_us < ?1",
       }) {
    absl::StatusOr<SqliteStatement> stmt = Prepare(db, sql);
    if (!stmt.ok()) {
      return stmt.status();
    }
    sqlite3_bind_int64(stmt->get(), 1, cutoff);
    if (absl::Status st = Run(db, stmt->get(), "purging old accounting"); !st.ok()) {
      return st;
    }
  }
  return absl::OkStatus();
}

}  // namespace canopy::persistence
