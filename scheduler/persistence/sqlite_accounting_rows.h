// The associations and usage tables (docs/formats/sqlite-schema.md) <-> the fair-share state:
// the association tree as its specs in build order, and the usage ledger's snapshot with the
// time up to which running jobs were charged (meta keys usage_as_of_us, usage_last_reset_us,
// usage_charged_through_us; associations_saved = 1 once a tree was saved, even an empty one).
// Functions of an open connection; the caller holds the transaction. Not thread-safe.
#pragma once

#include <vector>

#include "absl/status/status.h"
#include "scheduler/persistence/sqlite_handle.h"
#include "scheduler/persistence/store.h"

namespace canopy::persistence {

// Replaces the stored tree.
absl::Status SaveAssociationRows(sqlite3* db, const std::vector<fairshare::AssociationSpec>& specs);
// Replaces the stored ledger.
absl::Status SaveUsageRows(sqlite3* db, const UsageState& usage);
// DataLoss naming the row for a value that cannot be read.
absl::StatusOr<StoredAccounting> LoadAccountingRows(sqlite3* db);

}  // namespace canopy::persistence
