// Retention: a finished job leaves the controller's memory MinJobAge after it ended (Slurm's
// MinJobAge), so a controller that has run a million jobs holds no more than a fresh one. Its
// records stay in the store for accounting (sacct) until PurgeJobAfter.
//
// A job leaves only once nothing refers to it: no cleanup hold of its processes is left on any
// node. Pending jobs whose dependencies named it were settled when it ended. Functions of the
// lifecycle's state; owner thread only; no I/O.
#pragma once

#include "absl/time/time.h"
#include "scheduler/lifecycle/effects.h"
#include "scheduler/lifecycle/lifecycle_state.h"

namespace canopy::lifecycle {

// Forgets every finished job that ended at least MinJobAge ago; lists them in
// effects.forgotten. A MinJobAge of zero keeps jobs forever (the tests' and simulator's
// choice when they inspect finished jobs).
void ForgetFinished(LifecycleState& s, Effects& effects);

// When the next finished job is due to leave memory; InfiniteFuture if none.
absl::Time NextForget(const LifecycleState& s);

}  // namespace canopy::lifecycle
