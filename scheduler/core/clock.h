// Clock: the only way scheduler code learns the time (ARCHITECTURE.md: the core never reads the
// wall clock). SystemClock is the daemon's; tests and the simulator use FakeClock
// (tests/testing/fake_clock.h). Implementations are thread-safe.
#pragma once

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace canopy::core {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual absl::Time Now() const = 0;
};

// The real wall clock. The one place in the code base allowed to call absl::Now().
class SystemClock final : public Clock {
 public:
  absl::Time Now() const override { return absl::Now(); }
};

}  // namespace canopy::core
