// sacct's reads (sqlite_history_reader.h).
#include "scheduler/persistence/sqlite_history_reader.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "scheduler/persistence/sqlite_job_rows.h"

namespace canopy::persistence {
namespace {

// A bound value: text or an integer. (A plain struct: GCC 12 warns falsely about a variant of
// the two when vectors of it are copied.)
struct Param {
  bool is_text = false;
  int64_t number = 0;
  std::string text;
};

// A WHERE clause and its parameters, built condition by condition.
class Where {
 public:
  // `column IN (?, ?, ...)` for a non-empty list.
  template <typename T>
  void In(absl::string_view column, const std::vector<T>& values) {
    if (values.empty()) {
      return;
    }
    std::vector<std::string> marks;
    for (const T& v : values) {
      marks.push_back(Mark(v));
    }
    And(absl::StrCat(column, " IN (", absl::StrJoin(marks, ", "), ")"));
  }
  void And(std::string condition) { conditions_.push_back(std::move(condition)); }
  template <typename T>
  std::string Mark(const T& value) {
    Param& p = params_.emplace_back();
    if constexpr (std::is_same_v<T, std::string>) {
      p.is_text = true;
      p.text = value;
    } else {
      p.number = static_cast<int64_t>(value);
    }
    return absl::StrCat("?", params_.size());
  }
  std::string Sql() const {
    return conditions_.empty() ? "1" : absl::StrJoin(conditions_, " AND ");
  }
  void Bind(sqlite3_stmt* s) const {
    for (size_t i = 0; i < params_.size(); ++i) {
      const int index = static_cast<int>(i) + 1;
      const Param& p = params_[i];
      if (p.is_text) {
        sqlite3_bind_text(s, index, p.text.data(), static_cast<int>(p.text.size()),
                          SQLITE_TRANSIENT);
      } else {
        sqlite3_bind_int64(s, index, p.number);
      }
    }
  }

 private:
  std::vector<std::string> conditions_;
  std::vector<Param> params_;
};

absl::Time Time(sqlite3_stmt* s, int i) {
  return sqlite3_column_type(s, i) == SQLITE_NULL
             ? absl::InfinitePast()
             : absl::FromUnixMicros(sqlite3_column_int64(s, i));
}
int32_t Int(sqlite3_stmt* s, int i) { return static_cast<int32_t>(sqlite3_column_int64(s, i)); }

absl::StatusOr<core::JobState> State(sqlite3_stmt* s, int i, uint32_t job) {
  const std::string name = ColumnText(s, i);
  std::optional<core::JobState> state = core::JobStateFromName(name);
  if (!state.has_value()) {
    return absl::DataLossError(absl::StrCat("job ", job, ": '", name, "' is not a job state"));
  }
  return *state;
}

Where Select(const HistoryQuery& q) {
  Where w;
  if (!q.job_ids.empty() || !q.array_tasks.empty()) {
    std::vector<std::string> any;
    if (!q.job_ids.empty()) {
      std::vector<std::string> marks;
      for (uint32_t id : q.job_ids) {
        marks.push_back(w.Mark(id));
      }
      const std::string list = absl::StrJoin(marks, ", ");
      any.push_back(absl::StrCat("id IN (", list, ")"));
      any.push_back(absl::StrCat("array_job_id IN (", list, ")"));
    }
    for (const auto& [array, task] : q.array_tasks) {
      any.push_back(absl::StrCat("(array_job_id = ", w.Mark(array),
                                 " AND array_task_id = ", w.Mark(task), ")"));
    }
    w.And(absl::StrCat("(", absl::StrJoin(any, " OR "), ")"));
  }
  w.In("user_id", q.user_ids);
  w.In("account", q.accounts);
  w.In("partition", q.partitions);
  w.In("name", q.names);
  w.In("qos", q.qos);
  if (!q.nodes.empty()) {
    std::vector<std::string> marks;
    for (const std::string& n : q.nodes) {
      marks.push_back(w.Mark(n));
    }
    w.And(absl::StrCat("id IN (SELECT job_id FROM job_nodes WHERE node IN (",
                       absl::StrJoin(marks, ", "), "))"));
  }
  if (q.window_start != absl::InfinitePast()) {
    // Still in the queue or on nodes, or ended within the window.
    w.And(
        absl::StrCat("(state IN ('PENDING', 'CONFIGURING', 'RUNNING', 'COMPLETING') OR "
                     "end_time_us >= ",
                     w.Mark(absl::ToUnixMicros(q.window_start)), ")"));
  }
  if (q.window_end != absl::InfiniteFuture()) {
    w.And(absl::StrCat("submit_time_us <= ", w.Mark(absl::ToUnixMicros(q.window_end))));
  }
  return w;
}

std::vector<HistoryNode> ToNodes(std::vector<StoredNodeShare> rows) {
  std::vector<HistoryNode> nodes;
  for (StoredNodeShare& r : rows) {
    nodes.push_back({std::move(r.node), r.gpus, r.cpus, r.mem_mib});
  }
  return nodes;
}

// "gpu1:8:2:4096,gpu2:8:2:4096" (job_attempts.nodes).
absl::StatusOr<std::vector<HistoryNode>> ParseAttemptNodes(const std::string& text, uint32_t job) {
  std::vector<HistoryNode> nodes;
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    std::vector<absl::string_view> f = absl::StrSplit(item, ':');
    HistoryNode n;
    if (f.size() != 4 || !absl::SimpleAtoi(f[1], &n.gpus) || !absl::SimpleAtoi(f[2], &n.cpus) ||
        !absl::SimpleAtoi(f[3], &n.mem_mib)) {
      return absl::DataLossError(
          absl::StrCat("job ", job, ": job_attempts node '", item, "' is not NODE:GPUS:CPUS:MEM"));
    }
    n.name = std::string(f[0]);
    nodes.push_back(std::move(n));
  }
  return nodes;
}

absl::Status ReadAttempts(sqlite3* db, sqlite3_stmt* s, HistoryJob& out) {
  const uint32_t id = out.job.id.value();
  sqlite3_reset(s);
  sqlite3_bind_int64(s, 1, id);
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    HistoryAttempt& a = out.earlier.emplace_back();
    a.attempt.job = out.job.id;
    a.attempt.attempt = Int(s, 0);
    absl::StatusOr<core::JobState> state = State(s, 1, id);
    if (!state.ok()) {
      return state.status();
    }
    a.attempt.state = *state;
    a.attempt.state_message = ColumnText(s, 2);
    a.attempt.eligible_time = Time(s, 3);
    a.attempt.start_time = Time(s, 4);
    a.attempt.end_time = Time(s, 5);
    a.attempt.exit_code = Int(s, 6);
    a.attempt.exit_signal = Int(s, 7);
    absl::StatusOr<std::vector<HistoryNode>> nodes = ParseAttemptNodes(ColumnText(s, 8), id);
    if (!nodes.ok()) {
      return nodes.status();
    }
    a.nodes = *std::move(nodes);
  }
  return rc == SQLITE_DONE ? absl::OkStatus() : SqliteError(db, rc, "reading job_attempts");
}

absl::Status ReadSteps(sqlite3* db, sqlite3_stmt* s, bool all_attempts, HistoryJob& out) {
  const uint32_t id = out.job.id.value();
  sqlite3_reset(s);
  sqlite3_bind_int64(s, 1, id);
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    const int32_t attempt = Int(s, 0);
    if (!all_attempts && attempt != out.job.restart_count) {
      continue;
    }
    HistoryStep& step = out.steps.emplace_back();
    core::StepRecord& r = step.record;
    r.job = out.job.id;
    r.attempt = attempt;
    r.step_id = static_cast<uint32_t>(sqlite3_column_int64(s, 1));
    r.name = ColumnText(s, 2);
    absl::StatusOr<core::JobState> state = State(s, 3, id);
    if (!state.ok()) {
      return state.status();
    }
    r.state = *state;
    r.start_time = Time(s, 4);
    r.end_time = Time(s, 5);
    r.exit_code = Int(s, 6);
    r.exit_signal = Int(s, 7);
    step.node_names = absl::StrSplit(ColumnText(s, 8), ',', absl::SkipEmpty());
    r.ntasks = Int(s, 9);
    r.cpus = Int(s, 10);
    r.gpus = Int(s, 11);
  }
  return rc == SQLITE_DONE ? absl::OkStatus() : SqliteError(db, rc, "reading job_steps");
}

bool StateSelected(const HistoryQuery& q, core::JobState state) {
  return q.states.empty() || std::find(q.states.begin(), q.states.end(), state) != q.states.end();
}

}  // namespace

absl::StatusOr<std::unique_ptr<SqliteHistoryReader>> SqliteHistoryReader::Open(
    const std::string& path) {
  ConfigureSqliteOnce();
  sqlite3* raw = nullptr;
  const int rc =
      sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
  SqliteDb db(raw);
  if (rc != SQLITE_OK) {
    return SqliteError(db.get(), rc, absl::StrCat("opening database ", path, " for reading"));
  }
  if (absl::Status s = Exec(db.get(), "PRAGMA busy_timeout=5000"); !s.ok()) {
    return s;
  }
  return std::unique_ptr<SqliteHistoryReader>(new SqliteHistoryReader(std::move(db)));
}

absl::StatusOr<std::vector<HistoryJob>> SqliteHistoryReader::Read(const HistoryQuery& query,
                                                                  size_t limit) {
  absl::MutexLock lock(&mu_);
  sqlite3* db = db_.get();
  // One read transaction: jobs, nodes, attempts and steps from the same commit.
  if (absl::Status s = Exec(db, "BEGIN"); !s.ok()) {
    return s;
  }
  struct EndRead {
    sqlite3* db;
    ~EndRead() { (void)Exec(db, "COMMIT"); }
  } end_read{db};

  const Where where = Select(query);
  std::string sql = where.Sql();
  if (limit > 0) {
    absl::StrAppend(&sql, " ORDER BY id LIMIT ", limit);
    // ReadJobRows appends its own ORDER BY: select the ids first instead.
    sql = absl::StrCat("id IN (SELECT id FROM jobs WHERE ", sql, ")");
  }
  std::vector<core::Job> jobs;
  // A row that cannot be read is left out of the history (canopyd quarantines and logs those
  // among its own jobs at start-up) rather than failing every sacct that would cover it.
  std::vector<JobLoadProblem> unreadable;
  if (absl::Status s = ReadJobRows(
          db, sql, [&](sqlite3_stmt* stmt) { where.Bind(stmt); }, /*slim=*/true, jobs, unreadable);
      !s.ok()) {
    return s;
  }
  absl::StatusOr<SqliteStatement> attempts =
      Prepare(db,
              "SELECT attempt, state, state_message, eligible_time_us, start_time_us, end_time_us, "
              "exit_code, exit_signal, nodes FROM job_attempts WHERE job_id = ?1 ORDER BY attempt");
  absl::StatusOr<SqliteStatement> steps = Prepare(
      db,
      "SELECT attempt, step_id, name, state, start_time_us, end_time_us, exit_code, exit_signal, "
      "nodes, ntasks, cpus, gpus FROM job_steps WHERE job_id = ?1 ORDER BY attempt, step_id");
  absl::StatusOr<SqliteStatement> nodes_of = PrepareJobNodes(db);
  for (const auto* st : {&attempts, &steps, &nodes_of}) {
    if (!st->ok()) {
      return st->status();
    }
  }
  std::vector<HistoryJob> out;
  for (core::Job& job : jobs) {
    HistoryJob h;
    h.job = std::move(job);
    if (query.duplicates && h.job.restart_count > 0) {
      if (absl::Status s = ReadAttempts(db, attempts->get(), h); !s.ok()) {
        return s;
      }
      std::erase_if(h.earlier, [&](const HistoryAttempt& a) {
        return !StateSelected(query, a.attempt.state);
      });
    }
    h.last_selected = StateSelected(query, h.job.state);
    if (!h.last_selected && h.earlier.empty()) {
      continue;
    }
    std::vector<StoredNodeShare> nodes;
    if (absl::Status s = ReadJobNodes(db, nodes_of->get(), h.job.id.value(), nodes); !s.ok()) {
      if (absl::IsDataLoss(s)) {
        continue;  // unreadable: left out, like an unreadable jobs row (quarantined at start-up)
      }
      return s;
    }
    h.nodes = ToNodes(std::move(nodes));
    if (query.include_steps) {
      if (absl::Status s = ReadSteps(db, steps->get(), query.duplicates, h); !s.ok()) {
        return s;
      }
    }
    out.push_back(std::move(h));
  }
  return out;
}

}  // namespace canopy::persistence
