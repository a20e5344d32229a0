// The jobs and job_nodes tables (docs/formats/sqlite-schema.md) <-> core::Job: the one place
// where a job record becomes database rows and back.
//
// One column per field of the record except the derived `resources`; the allocation is one
// job_nodes row per node, by node name (node ids are positions in the configuration and may
// change between restarts). Functions of an open connection; the caller holds the transaction.
// Not thread-safe.
#pragma once

#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "scheduler/core/job.h"
#include "scheduler/persistence/sqlite_handle.h"
#include "scheduler/persistence/store.h"
#include "scheduler/topology/topology.h"

namespace canopy::persistence {

// Inserts or replaces each job's row and its job_nodes rows.
absl::Status SaveJobRows(sqlite3* db, const std::vector<std::shared_ptr<const core::Job>>& jobs,
                         const topology::Topology& topology);

// Appends every stored job to `out.jobs` (ascending id). A job whose job_nodes name a node the
// topology no longer has comes without an allocation, with an entry in `out.problems`.
// DataLoss naming the job and column for a value that cannot be read.
absl::Status LoadJobRows(sqlite3* db, const topology::Topology& topology, StoredJobs& out);

}  // namespace canopy::persistence
