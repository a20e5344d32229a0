// The accounting tables beside jobs (docs/formats/sqlite-schema.md): job_attempts (earlier runs
// of requeued jobs) and job_steps, written in the controller's transaction, and the retention
// purge. Functions of an open connection; the caller holds the transaction. Not thread-safe.
#pragma once

#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "scheduler/core/job_history.h"
#include "scheduler/persistence/sqlite_handle.h"
#include "scheduler/persistence/store.h"
#include "scheduler/topology/topology.h"

namespace canopy::persistence {

// Inserts or replaces each attempt's row.
absl::Status SaveAttemptRows(sqlite3* db, const std::vector<core::JobAttempt>& attempts,
                             const topology::Topology& topology);

// Inserts or replaces each step's row (a step's end replaces its start).
absl::Status SaveStepRows(sqlite3* db, const std::vector<core::StepRecord>& steps,
                          const topology::Topology& topology);

// Appends to `out.open_steps` every step saved as started and not as ended of a job that is
// loaded. A node no longer configured leaves its NodeId invalid and the step's
// tasks_per_node empty.
absl::Status LoadOpenStepRows(sqlite3* db, const topology::Topology& topology, StoredJobs& out);

// Deletes jobs that left memory and ended before `before`, with their nodes, attempts and
// steps.
absl::Status PurgeHistory(sqlite3* db, absl::Time before);

}  // namespace canopy::persistence
