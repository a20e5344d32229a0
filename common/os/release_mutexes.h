// Debian builds Abseil without NDEBUG, which leaves absl::Mutex's deadlock detection on: every
// lock of every absl::Mutex (gRPC's own included) then updates a process-wide lock-order graph
// under a global lock. `perf` of canopyd holding 16,384 agent streams showed
// GraphCycles::GetId among its top symbols. Canopy's programs switch it off first thing in
// main(); the tests keep it, since they are where a lock-order bug should show.
#pragma once

#include "absl/synchronization/mutex.h"

namespace canopy::os {

inline void SwitchOffMutexDeadlockDetection() {
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
}

}  // namespace canopy::os
