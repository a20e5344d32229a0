// When the lifecycle tests' fake clock starts; the fixtures and tests share it.
#pragma once

#include "absl/time/time.h"

namespace canopy::lifecycle {

inline const absl::Time kT0 = absl::FromUnixSeconds(1'800'000'000);

}  // namespace canopy::lifecycle
