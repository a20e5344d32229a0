// The qos table (docs/formats/sqlite-schema.md) <-> the QOS records: one row per QOS, typed
// columns, TRES limits in Slurm's syntax; meta's qos_saved = 1 once a table was saved, so a
// database that never had one loads as nullopt (the lifecycle then starts with "normal" only).
// Functions of an open connection; the caller holds the transaction. Not thread-safe.
#pragma once

#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "scheduler/limits/qos.h"
#include "scheduler/persistence/sqlite_handle.h"

namespace canopy::persistence {

// Replaces every stored QOS with `specs`.
absl::Status SaveQosRows(sqlite3* db, const std::vector<limits::QosSpec>& specs);
// By name; nullopt when no table was ever saved. DataLoss naming the QOS and the column for a
// value that cannot be read.
absl::StatusOr<std::optional<std::vector<limits::QosSpec>>> LoadQosRows(sqlite3* db);

}  // namespace canopy::persistence
