// SqliteHistoryReader: sacct's reads of the accounting history, on a connection of its own to
// the controller's database. WAL lets it read the last committed state while the owner thread
// writes, so a large sacct never stalls scheduling (and never sees a half-written batch).
// Thread-safe: calls are serialised on one connection.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "scheduler/persistence/history.h"
#include "scheduler/persistence/sqlite_handle.h"

namespace canopy::persistence {

class SqliteHistoryReader {
 public:
  // Opens the database at `path` read-only. The controller's store must have created it.
  static absl::StatusOr<std::unique_ptr<SqliteHistoryReader>> Open(const std::string& path);

  // The jobs the query selects, ascending id, at most `limit` (0 = no limit), with their
  // earlier runs and steps as the query asks. Jobs the controller still runs are as of its last
  // commit.
  absl::StatusOr<std::vector<HistoryJob>> Read(const HistoryQuery& query, size_t limit);

 private:
  explicit SqliteHistoryReader(SqliteDb db) : db_(std::move(db)) {}
  absl::Mutex mu_;
  SqliteDb db_ ABSL_GUARDED_BY(mu_);
};

}  // namespace canopy::persistence
