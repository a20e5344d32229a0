// The jobs and job_nodes tables (docs/formats/sqlite-schema.md) <-> core::Job: the one place
// where a job record becomes database rows and back.
//
// One column per field of the record except the derived `resources`; the allocation is one
// job_nodes row per node, by node name (node ids are positions in the configuration and may
// change between restarts). Functions of an open connection; the caller holds the transaction.
// Not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "scheduler/core/job.h"
#include "scheduler/persistence/sqlite_array_texts.h"
#include "scheduler/persistence/sqlite_handle.h"
#include "scheduler/persistence/sqlite_job_node_rows.h"
#include "scheduler/persistence/store.h"
#include "scheduler/topology/topology.h"

namespace canopy::persistence {

// Inserts or replaces each job's row and its job_nodes rows. An array task's script and
// environment go to array_texts, once per array (`array_texts` knows which are stored).
absl::Status SaveJobRows(sqlite3* db, const std::vector<std::shared_ptr<const core::Job>>& jobs,
                         const topology::Topology& topology, ArrayTexts& array_texts);

// Appends every job still in the controller's memory to `out.jobs` (ascending id). A job whose
// job_nodes name a node the topology no longer has comes without an allocation, with an entry
// in `out.problems`. A job whose row or job_nodes rows hold a value that cannot be read goes to
// `out.quarantined` instead, naming the column (one corrupt row must not keep canopyd down).
absl::Status LoadJobRows(sqlite3* db, const topology::Topology& topology, StoredJobs& out);

// The jobs left memory (MinJobAge): their rows stay, for accounting, but are not loaded again.
absl::Status ForgetJobRows(sqlite3* db, const std::vector<core::JobId>& jobs);

// Appends the jobs rows matching `where` (an SQL condition on the jobs table whose parameters
// `bind` binds), ascending id, without their allocation. For readers of the history: `slim`
// drops the environment and arguments and keeps only the first line of a batch script (so
// allocation_only() still answers). A row with a value that cannot be read is left out and
// listed in `unreadable` (job id and column).
absl::Status ReadJobRows(sqlite3* db, absl::string_view where,
                         absl::FunctionRef<void(sqlite3_stmt*)> bind, bool slim,
                         std::vector<core::Job>& out, std::vector<JobLoadProblem>& unreadable);

}  // namespace canopy::persistence
