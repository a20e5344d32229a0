// The array_texts table (schema 11): the batch script and environment of a job array, stored
// once for all its tasks. Before, each task's row held its own copy, and every change of a task
// (each state change) wrote it again: --array=0-1000 with a 4 MiB script wrote 4 GiB at submit.
//
// A task's row stores empty texts and texts_in_array = 1; the array's texts are written the
// first time this process saves one of its tasks (an upsert: after a restart the stored copy
// is written once more, with the same bytes), and then only compared, which costs nothing for
// the tasks' shared copy (core::Shared). A task whose texts differ from its array's keeps them
// in its own row. Rows stored before schema 11 keep theirs (texts_in_array = 0).
//
// Not thread-safe: the store's commit thread owns it.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "scheduler/core/job.h"
#include "scheduler/persistence/sqlite_handle.h"

namespace canopy::persistence {

class ArrayTexts {
 public:
  // For a task of an array (array_job_id != 0) being saved in the current transaction: true when
  // its row may leave its texts to array_texts, which then holds them (written now if this
  // process has not yet). False: the row keeps its own.
  absl::StatusOr<bool> StoreFor(sqlite3* db, const core::Job& task);

  // The transaction that StoreFor wrote in committed, or rolled back: the arrays it stored
  // count as stored from now on, or are written again next time.
  void Committed();
  void RolledBack();

 private:
  using Texts = std::pair<core::SharedText, core::SharedEnvironment>;
  // Arrays whose texts are stored, with the texts (the tasks' shared copy): an entry is dropped
  // once no job record holds that copy any more, so the cache never keeps texts alive alone.
  absl::flat_hash_map<uint32_t, Texts> stored_;
  std::vector<std::pair<uint32_t, Texts>> pending_;  // written in the open transaction
};

// Reads array texts for ReadJobRows, each array once.
class ArrayTextReader {
 public:
  explicit ArrayTextReader(sqlite3* db) : db_(db) {}
  // Sets `job`'s script and environment to its array's stored texts. DataLoss when the array's
  // row is missing or unreadable.
  absl::Status Fill(core::Job& job);

 private:
  sqlite3* db_;
  absl::flat_hash_map<uint32_t, std::pair<core::SharedText, core::SharedEnvironment>> read_;
};

// Deletes the texts of arrays no job row refers to any more (after PurgeHistory).
absl::Status PurgeArrayTexts(sqlite3* db);

}  // namespace canopy::persistence
