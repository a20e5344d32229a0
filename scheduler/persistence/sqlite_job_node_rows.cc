// The job_nodes table <-> allocations (sqlite_job_node_rows.h).
#include "scheduler/persistence/sqlite_job_node_rows.h"

#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace canopy::persistence {
namespace {

constexpr char kSelectNodes[] =
    "SELECT node, gpus, cpus, mem_mib, gpu_indexes FROM job_nodes WHERE job_id = ?1 ORDER BY idx";

// Column i as a count that fits int32, or DataLoss naming it.
absl::Status ReadCount(sqlite3_stmt* s, int i, const char* name, int32_t& out) {
  const int64_t raw = sqlite3_column_int64(s, i);
  if (sqlite3_column_type(s, i) != SQLITE_INTEGER || raw < 0 || raw > INT32_MAX) {
    return absl::DataLossError(absl::StrCat(name, " '", ColumnText(s, i), "' is not a count"));
  }
  out = static_cast<int32_t>(raw);
  return absl::OkStatus();
}

// One row; DataLoss naming the column for a value that cannot be read.
absl::Status ReadRow(sqlite3_stmt* s, StoredNodeShare& share) {
  share.node = ColumnText(s, 0);
  if (absl::Status st = ReadCount(s, 1, "gpus", share.gpus); !st.ok()) {
    return st;
  }
  if (absl::Status st = ReadCount(s, 2, "cpus", share.cpus); !st.ok()) {
    return st;
  }
  share.mem_mib = sqlite3_column_int64(s, 3);
  if (sqlite3_column_type(s, 3) != SQLITE_INTEGER || share.mem_mib < 0) {
    return absl::DataLossError(absl::StrCat("mem_mib '", ColumnText(s, 3), "' is not a size"));
  }
  for (absl::string_view g : absl::StrSplit(ColumnText(s, 4), ',', absl::SkipEmpty())) {
    int index_value = 0;
    if (!absl::SimpleAtoi(g, &index_value) || index_value < 0) {
      return absl::DataLossError(absl::StrCat("'", g, "' is not a GPU index"));
    }
    share.gpu_indexes.push_back(index_value);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<SqliteStatement> PrepareJobNodes(sqlite3* db) { return Prepare(db, kSelectNodes); }

absl::Status ReadJobNodes(sqlite3* db, sqlite3_stmt* stmt, uint32_t job_id,
                          std::vector<StoredNodeShare>& out) {
  sqlite3_reset(stmt);
  sqlite3_bind_int64(stmt, 1, job_id);
  int rc;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    StoredNodeShare& share = out.emplace_back();
    if (absl::Status st = ReadRow(stmt, share); !st.ok()) {
      return absl::DataLossError(
          absl::StrCat("job ", job_id, ": job_nodes row for ", share.node, ": ", st.message()));
    }
  }
  return rc == SQLITE_DONE ? absl::OkStatus() : SqliteError(db, rc, "loading job_nodes");
}

absl::Status LoadJobNodeRows(sqlite3* db, const topology::Topology& topology, StoredJobs& out) {
  absl::StatusOr<SqliteStatement> stmt = PrepareJobNodes(db);
  if (!stmt.ok()) {
    return stmt.status();
  }
  std::vector<StoredNodeShare> rows;
  std::vector<core::Job> kept;
  kept.reserve(out.jobs.size());
  for (core::Job& job : out.jobs) {
    rows.clear();
    if (absl::Status st = ReadJobNodes(db, stmt->get(), job.id.value(), rows); !st.ok()) {
      if (!absl::IsDataLoss(st)) {
        return st;
      }
      out.quarantined.push_back({job.id, std::string(st.message())});
      continue;
    }
    for (StoredNodeShare& row : rows) {
      core::NodeShare share;
      share.node = topology.FindNode(row.node);
      if (!share.node.valid()) {
        job.allocation = {};
        out.problems.push_back(
            {job.id, absl::StrCat("node ", row.node, " is no longer configured")});
        break;
      }
      share.gpus = row.gpus;
      share.cpus = row.cpus;
      share.mem_mib = row.mem_mib;
      share.gpu_indexes = std::move(row.gpu_indexes);
      job.allocation.nodes.push_back(std::move(share));
    }
    kept.push_back(std::move(job));
  }
  out.jobs = std::move(kept);
  return absl::OkStatus();
}

}  // namespace canopy::persistence
