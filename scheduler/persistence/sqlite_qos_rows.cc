// The qos table (sqlite_qos_rows.h).
#include "scheduler/persistence/sqlite_qos_rows.h"

#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/slurm/limit_values.h"

namespace canopy::persistence {
namespace {

// -1 (no limit) is NULL.
void BindLimit(sqlite3_stmt* s, int i, int64_t v) {
  if (v < 0) {
    sqlite3_bind_null(s, i);
  } else {
    sqlite3_bind_int64(s, i, v);
  }
}

bool IsNull(sqlite3_stmt* s, int col) { return sqlite3_column_type(s, col) == SQLITE_NULL; }

// The columns after `name`, in the order SaveQosRows binds and LoadQosRows reads them.
constexpr char kQosColumns[] =
    "description, priority, max_tres_per_user, max_tres_per_job, grp_tres, max_jobs_per_user, "
    "grp_jobs, max_wall_us, preempt, preempt_mode, grace_time_us";

absl::Status ReadTres(sqlite3_stmt* s, int col, const char* column, slurm::TresLimits& out) {
  absl::StatusOr<slurm::TresLimits> tres = slurm::ParseTresLimits(ColumnText(s, col));
  if (!tres.ok()) {
    return absl::DataLossError(absl::StrCat(column, ": ", tres.status().message()));
  }
  out = *tres;
  return absl::OkStatus();
}

absl::Status ReadRow(sqlite3_stmt* s, limits::QosSpec& spec) {
  spec.name = ColumnText(s, 0);
  spec.description = ColumnText(s, 1);
  const int64_t priority = sqlite3_column_int64(s, 2);
  if (priority < 0 || priority > UINT32_MAX) {
    return absl::DataLossError(absl::StrCat("priority: ", priority, " is out of range"));
  }
  spec.priority = static_cast<uint32_t>(priority);
  if (absl::Status st = ReadTres(s, 3, "max_tres_per_user", spec.max_tres_per_user); !st.ok()) {
    return st;
  }
  if (absl::Status st = ReadTres(s, 4, "max_tres_per_job", spec.max_tres_per_job); !st.ok()) {
    return st;
  }
  if (absl::Status st = ReadTres(s, 5, "grp_tres", spec.grp_tres); !st.ok()) {
    return st;
  }
  spec.max_jobs_per_user = IsNull(s, 6) ? -1 : sqlite3_column_int64(s, 6);
  spec.grp_jobs = IsNull(s, 7) ? -1 : sqlite3_column_int64(s, 7);
  spec.max_wall =
      IsNull(s, 8) ? absl::InfiniteDuration() : absl::Microseconds(sqlite3_column_int64(s, 8));
  std::vector<std::string> preempt = absl::StrSplit(ColumnText(s, 9), ',', absl::SkipEmpty());
  spec.preempt = std::move(preempt);
  const std::string mode = ColumnText(s, 10);
  if (mode.empty()) {
    spec.preempt_mode = slurm::PreemptMode::kCluster;
  } else {
    absl::StatusOr<slurm::PreemptMode> parsed = slurm::ParsePreemptMode(mode);
    if (!parsed.ok()) {
      return absl::DataLossError(absl::StrCat("preempt_mode: ", parsed.status().message()));
    }
    spec.preempt_mode = *parsed;
  }
  spec.grace_time = absl::Microseconds(sqlite3_column_int64(s, 11));
  return absl::OkStatus();
}

}  // namespace

absl::Status SaveQosRows(sqlite3* db, const std::vector<limits::QosSpec>& specs) {
  if (absl::Status s = Exec(db, "DELETE FROM qos"); !s.ok()) {
    return s;
  }
  absl::StatusOr<SqliteStatement> stmt =
      Prepare(db, absl::StrCat("INSERT INTO qos(name, ", kQosColumns,
                               ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)"));
  if (!stmt.ok()) {
    return stmt.status();
  }
  sqlite3_stmt* s = stmt->get();
  for (const limits::QosSpec& spec : specs) {
    sqlite3_reset(s);
    BindText(s, 1, spec.name);
    BindText(s, 2, spec.description);
    sqlite3_bind_int64(s, 3, spec.priority);
    BindText(s, 4, slurm::FormatTresLimits(spec.max_tres_per_user));
    BindText(s, 5, slurm::FormatTresLimits(spec.max_tres_per_job));
    BindText(s, 6, slurm::FormatTresLimits(spec.grp_tres));
    BindLimit(s, 7, spec.max_jobs_per_user);
    BindLimit(s, 8, spec.grp_jobs);
    if (spec.max_wall == absl::InfiniteDuration()) {
      sqlite3_bind_null(s, 9);
    } else {
      sqlite3_bind_int64(s, 9, absl::ToInt64Microseconds(spec.max_wall));
    }
    BindText(s, 10, absl::StrJoin(spec.preempt, ","));
    BindText(s, 11, std::string(slurm::PreemptModeName(spec.preempt_mode)));
    sqlite3_bind_int64(s, 12, absl::ToInt64Microseconds(spec.grace_time));
    if (const int rc = sqlite3_step(s); rc != SQLITE_DONE) {
      return SqliteError(db, rc, absl::StrCat("saving QOS ", spec.name));
    }
  }
  return Exec(db,
              "INSERT INTO meta(key, value) VALUES ('qos_saved', 1) "
              "ON CONFLICT(key) DO UPDATE SET value=1");
}

absl::StatusOr<std::optional<std::vector<limits::QosSpec>>> LoadQosRows(sqlite3* db) {
  absl::StatusOr<SqliteStatement> saved =
      Prepare(db, "SELECT value FROM meta WHERE key = 'qos_saved'");
  if (!saved.ok()) {
    return saved.status();
  }
  if (const int rc = sqlite3_step(saved->get()); rc == SQLITE_DONE) {
    return std::optional<std::vector<limits::QosSpec>>();
  } else if (rc != SQLITE_ROW) {
    return SqliteError(db, rc, "reading qos_saved");
  }
  absl::StatusOr<SqliteStatement> stmt =
      Prepare(db, absl::StrCat("SELECT name, ", kQosColumns, " FROM qos ORDER BY name"));
  if (!stmt.ok()) {
    return stmt.status();
  }
  std::vector<limits::QosSpec> specs;
  int rc;
  while ((rc = sqlite3_step(stmt->get())) == SQLITE_ROW) {
    limits::QosSpec& spec = specs.emplace_back();
    if (absl::Status st = ReadRow(stmt->get(), spec); !st.ok()) {
      return absl::DataLossError(absl::StrCat("qos row ", spec.name, ": ", st.message()));
    }
  }
  if (rc != SQLITE_DONE) {
    return SqliteError(db, rc, "reading qos");
  }
  return std::optional<std::vector<limits::QosSpec>>(std::move(specs));
}

}  // namespace canopy::persistence
