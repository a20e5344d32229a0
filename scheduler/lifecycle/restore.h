// Restore: rebuilding the lifecycle from the store at start-up. Jobs that held nodes take their
// capacity and GPU indexes again; CONFIGURING ones get a fresh launch deadline and COMPLETING
// ones a fresh cleanup deadline, leaving the agents time to reconnect first. A job that no
// longer fits the configuration (a removed node or partition) is cancelled, with a warning.
//
// Owner thread only; no I/O.
#pragma once

#include "absl/status/status.h"
#include "scheduler/lifecycle/effects.h"
#include "scheduler/lifecycle/lifecycle_state.h"
#include "scheduler/persistence/store.h"

namespace canopy::lifecycle {

// Adds the stored jobs to an empty lifecycle. Jobs it changed (cancelled) are in
// `effects.dirty`. Internal for two records with one id.
absl::Status Restore(LifecycleState& s, persistence::StoredJobs stored, Effects& effects);

// Before Restore: the association tree and the usage ledger. The tree is the stored one; a store
// that never saved one takes the config's accounts (YAML accounts:/accounts_file:), which are
// then saved with the first commit. A config whose accounts differ from the stored ones gets a
// warning (the stored ones, changed with sacctmgr, win). InvalidArgument naming the source for
// a tree that cannot be built.
absl::Status RestoreAccounting(LifecycleState& s, persistence::StoredAccounting stored,
                               Effects& effects);

}  // namespace canopy::lifecycle
