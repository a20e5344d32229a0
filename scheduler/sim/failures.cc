// Seeded exponential failure times (failures.h).
#include "scheduler/sim/failures.h"

#include <cmath>

namespace canopy::sim {

absl::Duration FailureInjector::NextFailureIn() {
  // 53 random bits -> u in [0, 1); -ln(1 - u) is Exp(1), never infinite since 1 - u > 0.
  const double u = static_cast<double>(rng_() >> 11) * (1.0 / 9007199254740992.0);
  const double x = -std::log1p(-u);
  return absl::Seconds(x * absl::ToDoubleSeconds(options_.mtbf));
}

}  // namespace canopy::sim
