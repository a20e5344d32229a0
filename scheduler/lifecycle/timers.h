// Timers and limits: what happens to jobs because time passed. A launch not confirmed within
// launch_timeout is aborted; a job reaching its time limit is killed and ends TIMEOUT (with its
// --signal sent warn_time before); a COMPLETING job whose nodes never confirm cleanup is ended
// after KillWait + 60 s; a job whose batch host re-registered without it is lost after 30 s;
// cleanup holds expire; a pending job's --begin time or after:ID+MINUTES item comes due
// (dependencies.h); a finished job leaves memory after MinJobAge (retention.h).
//
// Every such moment is kept in the state's deadline index, so Tick costs O(what is due) and the
// simulator can jump straight to NextDeadline. Owner thread only; no I/O.
#pragma once

#include "absl/time/time.h"
#include "scheduler/lifecycle/effects.h"
#include "scheduler/lifecycle/lifecycle_state.h"

namespace canopy::lifecycle {

// Acts on everything due at or before the clock's time.
void Tick(LifecycleState& s, Effects& effects);

// The earliest time Tick has something to do; InfiniteFuture when nothing is waiting.
absl::Time NextDeadline(const LifecycleState& s);

}  // namespace canopy::lifecycle
