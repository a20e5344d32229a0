// Store: the controller's durable state, behind an interface so the core and its tests never
// touch SQLite (STYLE.md §4). The controller's owner thread is the only caller; implementations
// need not be thread-safe.
//
// Writes come as one Mutations batch per call, applied in one transaction: the controller
// drains its command queue, collects every change, commits once (group commit), and only then
// answers the clients whose commands were in the batch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace canopy::persistence {

// A node's admin-set availability: the part of a node's state that must survive a restart
// (everything else is re-learned when its agent reconnects).
struct NodeAdminRow {
  std::string name;
  bool drain = false;
  bool admin_down = false;
  std::string reason;
  absl::Time reason_time = absl::InfinitePast();
  std::string reason_user;

  friend bool operator==(const NodeAdminRow&, const NodeAdminRow&) = default;
};

// One job as stored: the id, its state name (for an admin reading the database with sqlite3)
// and the whole record, serialised by the controller (a canopy.v1.Job message). The store does
// not interpret `record`.
struct JobRow {
  uint32_t id = 0;
  std::string state;
  std::string record;

  friend bool operator==(const JobRow&, const JobRow&) = default;
};

struct Mutations {
  std::vector<NodeAdminRow> node_admin_upserts;
  std::vector<JobRow> job_upserts;
  // The next job id to hand out, when it changed (0 = unchanged).
  uint32_t next_job_id = 0;

  bool empty() const {
    return node_admin_upserts.empty() && job_upserts.empty() && next_job_id == 0;
  }
};

// Everything about jobs needed at start-up.
struct JobState {
  std::vector<JobRow> jobs;  // ascending id
  uint32_t next_job_id = 0;  // 0 = never saved
};

class Store {
 public:
  virtual ~Store() = default;

  // Applies every mutation atomically and durably. On error nothing was applied; the code is
  // Unavailable for a busy/locked database (retry), DataLoss for corruption, Internal otherwise.
  virtual absl::Status Commit(const Mutations& mutations) = 0;

  // Everything needed to rebuild the controller's state at start-up.
  virtual absl::StatusOr<std::vector<NodeAdminRow>> LoadNodeAdminState() = 0;
  virtual absl::StatusOr<JobState> LoadJobs() = 0;
};

}  // namespace canopy::persistence
