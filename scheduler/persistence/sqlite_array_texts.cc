#include "scheduler/persistence/sqlite_array_texts.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "scheduler/persistence/sqlite_job_values.h"

namespace canopy::persistence {
namespace {

using job_values::Bind;
using job_values::Read;

bool OnlyHolder(const core::SharedText& script, const core::SharedEnvironment& env) {
  return script.use_count() <= 1 && env.use_count() <= 1;
}

}  // namespace

absl::StatusOr<bool> ArrayTexts::StoreFor(sqlite3* db, const core::Job& task) {
  const uint32_t array = task.array_job_id;
  const core::SharedText& script = task.spec->script;
  const core::SharedEnvironment& env = task.spec->environment;
  // operator== is a pointer comparison for the tasks' shared copy (a full one otherwise).
  auto same = [&](const Texts& t) { return t.first == script && t.second == env; };
  if (auto it = stored_.find(array); it != stored_.end()) {
    return same(it->second);
  }
  for (const auto& [id, texts] : pending_) {
    if (id == array) {
      return same(texts);
    }
  }
  absl::StatusOr<SqliteStatement> upsert = Prepare(
      db,
      "INSERT INTO array_texts(array_id, array_script, array_environment) VALUES "
      "(?1, ?2, ?3) ON CONFLICT(array_id) DO UPDATE SET array_script = excluded.array_script, "
      "array_environment = excluded.array_environment");
  if (!upsert.ok()) {
    return upsert.status();
  }
  sqlite3_stmt* s = upsert->get();
  Bind(s, 1, array);
  Bind(s, 2, script);
  Bind(s, 3, env);
  if (const int rc = sqlite3_step(s); rc != SQLITE_DONE) {
    return SqliteError(db, rc, absl::StrCat("saving the script of array ", array));
  }
  pending_.emplace_back(array, Texts{script, env});
  return true;
}

void ArrayTexts::Committed() {
  for (auto& [id, texts] : pending_) {
    stored_.insert_or_assign(id, std::move(texts));
  }
  pending_.clear();
  // Arrays whose every record has gone: their next task (if any ever is saved again, after a
  // restart loaded it) writes the same texts once more.
  absl::erase_if(stored_, [](const auto& entry) {
    return OnlyHolder(entry.second.first, entry.second.second);
  });
}

void ArrayTexts::RolledBack() { pending_.clear(); }

absl::Status ArrayTextReader::Fill(core::Job& job) {
  const uint32_t array = job.array_job_id;
  auto it = read_.find(array);
  if (it == read_.end()) {
    absl::StatusOr<SqliteStatement> stmt =
        Prepare(db_, "SELECT array_script, array_environment FROM array_texts WHERE array_id = ?1");
    if (!stmt.ok()) {
      return stmt.status();
    }
    sqlite3_stmt* s = stmt->get();
    Bind(s, 1, array);
    const int rc = sqlite3_step(s);
    if (rc == SQLITE_DONE) {
      return absl::DataLossError(
          absl::StrCat("the script and environment of array ", array, " are missing"));
    }
    if (rc != SQLITE_ROW) {
      return SqliteError(db_, rc, absl::StrCat("reading the script of array ", array));
    }
    std::pair<core::SharedText, core::SharedEnvironment> texts;
    if (absl::Status st = Read(s, 0, texts.first); !st.ok()) {
      return absl::DataLossError(absl::StrCat("array_script of array ", array, ": ", st.message()));
    }
    if (absl::Status st = Read(s, 1, texts.second); !st.ok()) {
      return absl::DataLossError(
          absl::StrCat("array_environment of array ", array, ": ", st.message()));
    }
    it = read_.emplace(array, std::move(texts)).first;
  }
  job.spec.Mutable().script = it->second.first;
  job.spec.Mutable().environment = it->second.second;
  return absl::OkStatus();
}

absl::Status PurgeArrayTexts(sqlite3* db) {
  return Exec(db,
              "DELETE FROM array_texts WHERE array_id NOT IN (SELECT array_job_id FROM jobs "
              "WHERE texts_in_array = 1)");
}

}  // namespace canopy::persistence
