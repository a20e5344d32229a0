// FailureInjector: seeded node failures for the simulator.
//
// Each node fails after an exponentially distributed time with mean `mtbf` (a memoryless node,
// the usual model for hardware faults), stays down for `repair_time`, comes back, and draws its
// next failure. The draws come from one 64-bit Mersenne Twister with an explicit seed and are
// made in a fixed order (node id order at start, then in event order), so the same seed gives
// the same failures. The inverse-CDF transform is written out, not std::exponential_distribution,
// whose algorithm differs between standard libraries. Not thread-safe.
#pragma once

#include <cstdint>
#include <random>

#include "absl/time/time.h"

namespace canopy::sim {

struct FailureOptions {
  absl::Duration mtbf = absl::ZeroDuration();  // per node; zero = no failures
  absl::Duration repair_time = absl::Hours(4);
  uint64_t seed = 1;
  bool enabled() const { return mtbf > absl::ZeroDuration(); }
};

class FailureInjector {
 public:
  explicit FailureInjector(const FailureOptions& options) : options_(options), rng_(options.seed) {}
  // Time from now to the next failure of a node that just came (back) up.
  absl::Duration NextFailureIn();
  const FailureOptions& options() const { return options_; }

 private:
  FailureOptions options_;
  std::mt19937_64 rng_;
};

}  // namespace canopy::sim
