// The job_nodes table (docs/formats/sqlite-schema.md): one row per node of a job's allocation,
// by node name (node ids are positions in the configuration and may change between restarts).
// Functions of an open connection; the caller holds the transaction. Not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "scheduler/persistence/sqlite_handle.h"
#include "scheduler/persistence/store.h"
#include "scheduler/topology/topology.h"

namespace canopy::persistence {

// One job_nodes row, by node name (history may name nodes the configuration no longer has).
struct StoredNodeShare {
  std::string node;
  int32_t gpus = 0;
  int32_t cpus = 0;
  int64_t mem_mib = 0;
  std::vector<int> gpu_indexes;
};

// The statement ReadJobNodes runs: prepared once by a reader of many jobs.
absl::StatusOr<SqliteStatement> PrepareJobNodes(sqlite3* db);
// Appends the job's job_nodes rows, in allocation order, with a statement of PrepareJobNodes.
// DataLoss naming the job and node for a value that cannot be read.
absl::Status ReadJobNodes(sqlite3* db, sqlite3_stmt* stmt, uint32_t job_id,
                          std::vector<StoredNodeShare>& out);

// Gives each job of `out.jobs` its allocation from its job_nodes rows (one indexed lookup per
// job: the cost follows the jobs loaded, not the history kept). A job whose rows name a node
// the topology no longer has comes without an allocation and with an entry in `out.problems`;
// one whose rows cannot be read is moved from `out.jobs` to `out.quarantined`.
absl::Status LoadJobNodeRows(sqlite3* db, const topology::Topology& topology, StoredJobs& out);

}  // namespace canopy::persistence
