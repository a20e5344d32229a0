// Job records <-> the jobs and job_nodes tables (sqlite_job_rows.h).
//
// Every column is declared once, in kColumns, with the field it holds: the INSERT, the SELECT
// and both conversions are generated from that one list, so a field cannot be written without
// being read back.
#include "scheduler/persistence/sqlite_job_rows.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "scheduler/persistence/sqlite_array_texts.h"
#include "scheduler/persistence/sqlite_job_values.h"

namespace canopy::persistence {
namespace {

using job_values::Bind;
using job_values::Read;

// ---- The columns of `jobs` (after `id`), each with its field.

struct JobColumn {
  const char* name;
  void (*bind)(sqlite3_stmt*, int, const core::Job&);
  absl::Status (*read)(sqlite3_stmt*, int, core::Job&);
};

// kField is a lambda `[](auto& job) -> auto& { return job.field; }`, usable on a const job (to
// bind) and on a mutable one (to read into); spec fields go through SpecOf, which gives the
// mutable job's own spec to read into.
const core::JobSpec& SpecOf(const core::Job& job) { return *job.spec; }
core::JobSpec& SpecOf(core::Job& job) { return job.spec.Mutable(); }

// Binds one field of a record that outlives the statement's step (SaveJobRows holds every record
// until it has cleared the bindings): texts are bound in place, not copied into SQLite (a job
// row has some 40 text columns, most of them short or empty). Other values go through Bind.
template <typename T>
void BindField(sqlite3_stmt* s, int i, const T& v) {
  Bind(s, i, v);
}
void BindField(sqlite3_stmt* s, int i, const std::string& v) {
  sqlite3_bind_text(s, i, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
}
void BindField(sqlite3_stmt* s, int i, const core::SharedText& v) { BindField(s, i, v.get()); }
void BindField(sqlite3_stmt* s, int i, core::JobState v) {
  const absl::string_view name = core::JobStateName(v);  // static text
  sqlite3_bind_text(s, i, name.data(), static_cast<int>(name.size()), SQLITE_STATIC);
}
void BindField(sqlite3_stmt* s, int i, core::JobReason v) {
  const absl::string_view name = core::JobReasonName(v);  // static text
  sqlite3_bind_text(s, i, name.data(), static_cast<int>(name.size()), SQLITE_STATIC);
}

template <auto kField>
constexpr JobColumn Column(const char* name) {
  return {name, [](sqlite3_stmt* s, int i, const core::Job& job) { BindField(s, i, kField(job)); },
          [](sqlite3_stmt* s, int i, core::Job& job) { return Read(s, i, kField(job)); }};
}

// One line per column: the formatter would break these lambdas-as-template-arguments apart.
// clang-format off
constexpr JobColumn kColumns[] = {
    // Where the job is in its life.
    Column<[](auto& j) -> auto& { return j.state; }>("state"),
    Column<[](auto& j) -> auto& { return j.reason; }>("reason"),
    Column<[](auto& j) -> auto& { return j.completing_to; }>("completing_to"),
    Column<[](auto& j) -> auto& { return j.state_message; }>("state_message"),
    Column<[](auto& j) -> auto& { return j.placement_explanation; }>("placement_explanation"),
    Column<[](auto& j) -> auto& { return j.submit_time; }>("submit_time_us"),
    Column<[](auto& j) -> auto& { return j.eligible_time; }>("eligible_time_us"),
    Column<[](auto& j) -> auto& { return j.start_time; }>("start_time_us"),
    Column<[](auto& j) -> auto& { return j.end_time; }>("end_time_us"),
    Column<[](auto& j) -> auto& { return j.restart_count; }>("restart_count"),
    Column<[](auto& j) -> auto& { return j.exit_code; }>("exit_code"),
    Column<[](auto& j) -> auto& { return j.exit_signal; }>("exit_signal"),
    Column<[](auto& j) -> auto& { return j.run_id; }>("run_id"),
    Column<[](auto& j) -> auto& { return j.next_step_id; }>("next_step_id"),
    Column<[](auto& j) -> auto& { return j.warn_sent; }>("warn_sent"),
    // Who, and what was decided at submission.
    Column<[](auto& j) -> auto& { return j.user_id; }>("user_id"),
    Column<[](auto& j) -> auto& { return j.group_id; }>("group_id"),
    Column<[](auto& j) -> auto& { return j.user_name; }>("user_name"),
    Column<[](auto& j) -> auto& { return j.supplementary_gids; }>("supplementary_gids"),
    Column<[](auto& j) -> auto& { return j.partition; }>("partition"),
    Column<[](auto& j) -> auto& { return j.time_limit; }>("time_limit_us"),
    Column<[](auto& j) -> auto& { return j.array_job_id; }>("array_job_id"),
    Column<[](auto& j) -> auto& { return j.array_task_id; }>("array_task_id"),
    Column<[](auto& j) -> auto& { return j.idempotency_key; }>("idempotency_key"),
    Column<[](auto& j) -> auto& { return j.priority; }>("priority"),
    Column<[](auto& j) -> auto& { return j.priority_fixed; }>("priority_fixed"),
    Column<[](auto& j) -> auto& { return j.qos; }>("qos"),
    Column<[](auto& j) -> auto& { return j.cancelled_by; }>("cancelled_by"),
    // The spec, as submitted.
    Column<[](auto& j) -> auto& { return SpecOf(j).name; }>("name"),
    Column<[](auto& j) -> auto& { return SpecOf(j).partition; }>("requested_partition"),
    Column<[](auto& j) -> auto& { return SpecOf(j).account; }>("account"),
    Column<[](auto& j) -> auto& { return SpecOf(j).min_nodes; }>("min_nodes"),
    Column<[](auto& j) -> auto& { return SpecOf(j).max_nodes; }>("max_nodes"),
    Column<[](auto& j) -> auto& { return SpecOf(j).ntasks; }>("ntasks"),
    Column<[](auto& j) -> auto& { return SpecOf(j).ntasks_per_node; }>("ntasks_per_node"),
    Column<[](auto& j) -> auto& { return SpecOf(j).cpus_per_task; }>("cpus_per_task"),
    Column<[](auto& j) -> auto& { return SpecOf(j).mem_per_node_mib; }>("mem_per_node_mib"),
    Column<[](auto& j) -> auto& { return SpecOf(j).gpus_per_node; }>("gpus_per_node"),
    Column<[](auto& j) -> auto& { return SpecOf(j).gpu_type; }>("gpu_type"),
    Column<[](auto& j) -> auto& { return SpecOf(j).exclusive; }>("exclusive"),
    Column<[](auto& j) -> auto& { return SpecOf(j).time_limit; }>("requested_time_limit_us"),
    Column<[](auto& j) -> auto& { return SpecOf(j).max_switches; }>("max_switches"),
    Column<[](auto& j) -> auto& { return SpecOf(j).switches_wait; }>("switches_wait_us"),
    Column<[](auto& j) -> auto& { return SpecOf(j).required_nodes; }>("required_nodes"),
    Column<[](auto& j) -> auto& { return SpecOf(j).excluded_nodes; }>("excluded_nodes"),
    Column<[](auto& j) -> auto& { return SpecOf(j).script; }>("script"),
    Column<[](auto& j) -> auto& { return SpecOf(j).argv; }>("argv"),
    Column<[](auto& j) -> auto& { return SpecOf(j).environment; }>("environment"),
    Column<[](auto& j) -> auto& { return SpecOf(j).export_none; }>("export_none"),
    Column<[](auto& j) -> auto& { return SpecOf(j).work_dir; }>("work_dir"),
    Column<[](auto& j) -> auto& { return SpecOf(j).stdout_path; }>("stdout_path"),
    Column<[](auto& j) -> auto& { return SpecOf(j).stderr_path; }>("stderr_path"),
    Column<[](auto& j) -> auto& { return SpecOf(j).stdin_path; }>("stdin_path"),
    Column<[](auto& j) -> auto& { return SpecOf(j).open_append; }>("open_append"),
    Column<[](auto& j) -> auto& { return SpecOf(j).requeue; }>("requeue"),
    Column<[](auto& j) -> auto& { return SpecOf(j).hold; }>("hold"),
    Column<[](auto& j) -> auto& { return SpecOf(j).submit_host; }>("submit_host"),
    Column<[](auto& j) -> auto& { return SpecOf(j).submit_dir; }>("submit_dir"),
    Column<[](auto& j) -> auto& { return SpecOf(j).nice; }>("nice"),
    Column<[](auto& j) -> auto& { return SpecOf(j).array_spec; }>("array_spec"),
    Column<[](auto& j) -> auto& { return SpecOf(j).warn_signal; }>("warn_signal"),
    Column<[](auto& j) -> auto& { return SpecOf(j).warn_time; }>("warn_time_us"),
    Column<[](auto& j) -> auto& { return SpecOf(j).warn_batch_only; }>("warn_batch_only"),
    Column<[](auto& j) -> auto& { return SpecOf(j).dependencies; }>("dependencies"),
    Column<[](auto& j) -> auto& { return SpecOf(j).dependency_any; }>("dependency_any"),
    Column<[](auto& j) -> auto& { return SpecOf(j).kill_on_invalid_dep; }>("kill_on_invalid_dep"),
    Column<[](auto& j) -> auto& { return SpecOf(j).begin_time; }>("begin_time_us"),
    Column<[](auto& j) -> auto& { return SpecOf(j).qos; }>("requested_qos"),
    Column<[](auto& j) -> auto& { return SpecOf(j).comment; }>("comment"),
    Column<[](auto& j) -> auto& { return SpecOf(j).wckey; }>("wckey"),
    Column<[](auto& j) -> auto& { return SpecOf(j).mail_type; }>("mail_type"),
    Column<[](auto& j) -> auto& { return SpecOf(j).mail_user; }>("mail_user"),
    Column<[](auto& j) -> auto& { return SpecOf(j).reservation; }>("reservation"),
    Column<[](auto& j) -> auto& { return SpecOf(j).deadline; }>("deadline_us"),
    Column<[](auto& j) -> auto& { return SpecOf(j).delay_boot; }>("delay_boot_us"),
    Column<[](auto& j) -> auto& { return SpecOf(j).container; }>("container"),
    Column<[](auto& j) -> auto& { return SpecOf(j).gpus_per_task; }>("gpus_per_task"),
    Column<[](auto& j) -> auto& { return SpecOf(j).cpus_per_gpu; }>("cpus_per_gpu"),
    Column<[](auto& j) -> auto& { return SpecOf(j).mem_per_gpu_mib; }>("mem_per_gpu_mib"),
    Column<[](auto& j) -> auto& { return SpecOf(j).gpu_bind; }>("gpu_bind"),
    Column<[](auto& j) -> auto& { return SpecOf(j).gpus_per_job; }>("gpus_per_job"),
    Column<[](auto& j) -> auto& { return SpecOf(j).gpus_per_node_requested; }>("gpus_per_node_requested"),
    Column<[](auto& j) -> auto& { return SpecOf(j).overcommit; }>("overcommit"),
    Column<[](auto& j) -> auto& { return SpecOf(j).exclusive_mode; }>("exclusive_mode"),
};
// clang-format on

// Position of a column among kColumns.
constexpr size_t ColumnIndex(std::string_view name) {
  for (size_t i = 0; i < std::size(kColumns); ++i) {
    if (std::string_view(kColumns[i].name) == name) {
      return i;
    }
  }
  return std::size(kColumns);
}
constexpr size_t kScriptColumn = ColumnIndex("script");
constexpr size_t kEnvironmentColumn = ColumnIndex("environment");
static_assert(kScriptColumn < std::size(kColumns) && kEnvironmentColumn < std::size(kColumns));

// After kColumns, a column of the row rather than of the record: whether the script and
// environment are the array's, in array_texts (sqlite_array_texts.h).
constexpr const char* kTextsInArray = "texts_in_array";

std::string ColumnList() {
  std::string out = "id";
  for (const JobColumn& c : kColumns) {
    absl::StrAppend(&out, ", ", c.name);
  }
  absl::StrAppend(&out, ", ", kTextsInArray);
  return out;
}

// "name=excluded.name, ...": an update in place keeps the row (no delete + insert).
std::string UpdateList() {
  std::string out;
  for (const JobColumn& c : kColumns) {
    absl::StrAppend(&out, out.empty() ? "" : ", ", c.name, "=excluded.", c.name);
  }
  absl::StrAppend(&out, ", ", kTextsInArray, "=excluded.", kTextsInArray);
  return out;
}

std::string Placeholders() {
  std::string out = "?1";
  for (size_t i = 0; i <= std::size(kColumns); ++i) {  // and texts_in_array
    absl::StrAppend(&out, ", ?", i + 2);
  }
  return out;
}

absl::Status StepSaving(sqlite3* db, sqlite3_stmt* s, core::JobId job) {
  const int rc = sqlite3_step(s);
  return rc == SQLITE_DONE ? absl::OkStatus()
                           : SqliteError(db, rc, absl::StrCat("saving job ", job.value()));
}

// Deletes the node rows of every job about to be saved, before they are written again: one
// DELETE per run of consecutive ids, since a commit's jobs mostly are one (a batch of new
// submissions). A DELETE per job cost a third of the time of saving new jobs.
absl::Status ClearNodeRows(sqlite3* db, std::vector<uint32_t> ids) {
  std::sort(ids.begin(), ids.end());
  absl::StatusOr<SqliteStatement> clear =
      Prepare(db, "DELETE FROM job_nodes WHERE job_id BETWEEN ?1 AND ?2");
  if (!clear.ok()) {
    return clear.status();
  }
  sqlite3_stmt* s = clear->get();
  for (size_t first = 0; first < ids.size();) {
    size_t last = first;
    while (last + 1 < ids.size() && ids[last + 1] <= ids[last] + 1) {
      ++last;
    }
    sqlite3_reset(s);
    Bind(s, 1, ids[first]);
    Bind(s, 2, ids[last]);
    if (absl::Status st = StepDone(
            db, s, absl::StrCat("clearing the nodes of jobs ", ids[first], "-", ids[last]));
        !st.ok()) {
      return st;
    }
    first = last + 1;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status SaveJobRows(sqlite3* db, const std::vector<std::shared_ptr<const core::Job>>& jobs,
                         const topology::Topology& topology, ArrayTexts& array_texts) {
  if (jobs.empty()) {
    return absl::OkStatus();
  }
  absl::StatusOr<SqliteStatement> upsert =
      Prepare(db, absl::StrCat("INSERT INTO jobs(", ColumnList(), ") VALUES (", Placeholders(),
                               ") ON CONFLICT(id) DO UPDATE SET ", UpdateList()));
  absl::StatusOr<SqliteStatement> add_node =
      Prepare(db,
              "INSERT INTO job_nodes(job_id, idx, node, gpus, cpus, mem_mib, gpu_indexes) "
              "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  for (const auto* st : {&upsert, &add_node}) {
    if (!st->ok()) {
      return st->status();
    }
  }
  // Each job once: with the node rows cleared up front, a second record of the same job would
  // add its nodes twice. The last record of a job is the one saved.
  absl::flat_hash_map<uint32_t, size_t> last_record;
  last_record.reserve(jobs.size());
  std::vector<uint32_t> ids;
  ids.reserve(jobs.size());
  for (size_t k = 0; k < jobs.size(); ++k) {
    if (auto [it, inserted] = last_record.try_emplace(jobs[k]->id.value(), k); inserted) {
      ids.push_back(jobs[k]->id.value());
    } else {
      it->second = k;
    }
  }
  if (absl::Status st = ClearNodeRows(db, std::move(ids)); !st.ok()) {
    return st;
  }
  // The upsert binds the records' texts in place: no binding may outlive this call's records.
  absl::Cleanup unbind = [s = upsert->get()] { sqlite3_clear_bindings(s); };
  for (size_t k = 0; k < jobs.size(); ++k) {
    const std::shared_ptr<const core::Job>& job = jobs[k];
    if (last_record[job->id.value()] != k) {
      continue;
    }
    sqlite3_stmt* s = upsert->get();
    sqlite3_reset(s);
    Bind(s, 1, job->id.value());
    bool texts_in_array = false;
    if (job->array_job_id != 0) {
      absl::StatusOr<bool> stored = array_texts.StoreFor(db, *job);
      if (!stored.ok()) {
        return stored.status();
      }
      texts_in_array = *stored;
    }
    for (size_t i = 0; i < std::size(kColumns); ++i) {
      if (texts_in_array && (i == kScriptColumn || i == kEnvironmentColumn)) {
        // Left to array_texts: not even copied into the statement (4 MiB a task).
        Bind(s, static_cast<int>(i) + 2, std::string());
      } else {
        kColumns[i].bind(s, static_cast<int>(i) + 2, *job);
      }
    }
    Bind(s, static_cast<int>(std::size(kColumns)) + 2, texts_in_array);
    if (absl::Status st = StepSaving(db, s, job->id); !st.ok()) {
      return st;
    }
    s = add_node->get();
    for (size_t i = 0; i < job->allocation.nodes.size(); ++i) {
      const core::NodeShare& share = job->allocation.nodes[i];
      sqlite3_reset(s);
      Bind(s, 1, job->id.value());
      Bind(s, 2, static_cast<int64_t>(i));
      Bind(s, 3, topology.node_name(share.node));
      Bind(s, 4, share.gpus);
      Bind(s, 5, share.cpus);
      Bind(s, 6, share.mem_mib);
      Bind(s, 7, absl::StrJoin(share.gpu_indexes, ","));
      if (absl::Status st = StepSaving(db, s, job->id); !st.ok()) {
        return st;
      }
    }
  }
  return absl::OkStatus();
}

// The scripts and environments of the rows read so far, keyed by their stored bytes.
class TextsByBytes {
 public:
  // Gives `job` the text already read for the same bytes in `column`; false if there is none.
  bool Reuse(sqlite3_stmt* s, int column, bool script, core::Job& job) {
    const absl::string_view bytes = Bytes(s, column);
    if (script) {
      auto it = scripts_.find(bytes);
      if (it != scripts_.end()) {
        job.spec.Mutable().script = it->second;
        return true;
      }
    } else {
      auto it = environments_.find(bytes);
      if (it != environments_.end()) {
        job.spec.Mutable().environment = it->second;
        return true;
      }
    }
    return false;
  }
  // Keeps what `column` was just read into, under its bytes.
  void Remember(sqlite3_stmt* s, int column, bool script, const core::Job& job) {
    const absl::string_view bytes = Bytes(s, column);
    if (bytes.empty()) {
      return;
    }
    if (script) {
      scripts_.try_emplace(std::string(bytes), job.spec->script);
    } else {
      environments_.try_emplace(std::string(bytes), job.spec->environment);
    }
  }

 private:
  static absl::string_view Bytes(sqlite3_stmt* s, int column) {
    const void* data = sqlite3_column_blob(s, column);
    const int size = sqlite3_column_bytes(s, column);
    return data == nullptr ? absl::string_view()
                           : absl::string_view(static_cast<const char*>(data), size);
  }
  absl::flat_hash_map<std::string, core::SharedText> scripts_;
  absl::flat_hash_map<std::string, core::SharedEnvironment> environments_;
};

absl::Status ReadJobRows(sqlite3* db, absl::string_view where,
                         absl::FunctionRef<void(sqlite3_stmt*)> bind, bool slim,
                         std::vector<core::Job>& out, std::vector<JobLoadProblem>& unreadable) {
  absl::StatusOr<SqliteStatement> stmt = Prepare(
      db, absl::StrCat("SELECT ", ColumnList(), " FROM jobs WHERE ", where, " ORDER BY id"));
  if (!stmt.ok()) {
    return stmt.status();
  }
  sqlite3_stmt* s = stmt->get();
  bind(s);
  // The texts of each array read so far: its tasks share one copy in memory again, as they did
  // before the restart. Rows stored before schema 11 hold their own copy; later ones leave
  // them to array_texts.
  absl::flat_hash_map<uint32_t, std::pair<core::SharedText, core::SharedEnvironment>> array_texts;
  ArrayTextReader stored_array_texts(db);
  // Scripts and environments read so far, by their stored bytes: jobs submitted from one shell
  // (an sbatch loop, a workflow engine) carry the same ones, and share one copy in memory
  // instead of each parsing its own (an environment is a map of some fifty strings).
  TextsByBytes texts;
  int rc;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    core::Job& job = out.emplace_back();
    uint32_t id = 0;
    (void)Read(s, 0, id);
    job.id = core::JobId(id);
    // Every field comes from its column; the exclusive flag of the allocation is the spec's.
    absl::Status bad = absl::OkStatus();
    for (size_t i = 0; i < std::size(kColumns) && bad.ok(); ++i) {
      const int column = static_cast<int>(i) + 1;
      if ((i == kScriptColumn || i == kEnvironmentColumn) && !slim &&
          texts.Reuse(s, column, i == kScriptColumn, job)) {
        continue;
      }
      if (absl::Status st = kColumns[i].read(s, column, job); !st.ok()) {
        bad = absl::DataLossError(absl::StrCat("column ", kColumns[i].name, ": ", st.message()));
      } else if ((i == kScriptColumn || i == kEnvironmentColumn) && !slim) {
        texts.Remember(s, column, i == kScriptColumn, job);
      }
    }
    bool texts_in_array = false;
    (void)Read(s, static_cast<int>(std::size(kColumns)) + 1, texts_in_array);
    if (bad.ok() && texts_in_array) {
      bad = stored_array_texts.Fill(job);
    }
    if (!bad.ok()) {
      unreadable.push_back({job.id, std::string(bad.message())});
      out.pop_back();
      continue;
    }
    job.allocation.exclusive = job.spec->exclusive;
    if (job.array_job_id != 0 && !slim && !texts_in_array) {
      auto [it, added] =
          array_texts.try_emplace(job.array_job_id, job.spec->script, job.spec->environment);
      if (!added && it->second.first == job.spec->script &&
          it->second.second == job.spec->environment) {
        job.spec.Mutable().script = it->second.first;
        job.spec.Mutable().environment = it->second.second;
      }
    }
    if (slim) {
      // A batch job's script keeps its first line, so allocation_only() still tells them apart.
      const std::string& script = job.spec->script;
      job.spec.Mutable().script = script.substr(0, script.find('\n'));
      job.spec.Mutable().environment = {};
      job.spec.Mutable().argv.clear();
    }
  }
  if (rc != SQLITE_DONE) {
    return SqliteError(db, rc, "loading jobs");
  }
  return absl::OkStatus();
}

absl::Status LoadJobRows(sqlite3* db, const topology::Topology& topology, StoredJobs& out) {
  // Jobs that left memory after MinJobAge stay in the table for accounting only. Counted first
  // (from the partial index alone), so that 100,000 records are not moved as the vector grows.
  if (absl::StatusOr<SqliteStatement> count =
          Prepare(db, "SELECT COUNT(*) FROM jobs WHERE in_memory = 1");
      count.ok() && sqlite3_step(count->get()) == SQLITE_ROW) {
    out.jobs.reserve(out.jobs.size() + static_cast<size_t>(sqlite3_column_int64(count->get(), 0)));
  }
  if (absl::Status st = ReadJobRows(
          db, "in_memory = 1", [](sqlite3_stmt*) {}, /*slim=*/false, out.jobs, out.quarantined);
      !st.ok()) {
    return st;
  }
  return LoadJobNodeRows(db, topology, out);
}

absl::Status ForgetJobRows(sqlite3* db, const std::vector<core::JobId>& jobs) {
  if (jobs.empty()) {
    return absl::OkStatus();
  }
  absl::StatusOr<SqliteStatement> stmt = Prepare(db, "UPDATE jobs SET in_memory = 0 WHERE id = ?1");
  if (!stmt.ok()) {
    return stmt.status();
  }
  for (core::JobId id : jobs) {
    sqlite3_reset(stmt->get());
    Bind(stmt->get(), 1, id.value());
    if (absl::Status st = StepDone(db, stmt->get(), absl::StrCat("forgetting job ", id.value()));
        !st.ok()) {
      return st;
    }
  }
  return absl::OkStatus();
}

}  // namespace canopy::persistence
