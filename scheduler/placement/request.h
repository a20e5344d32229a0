// PlacementRequest: what one job asks of the nodes it runs on, in placement's terms: the job's
// resolved ResourceRequest (core/job_spec.h) and when its --switches wait started.
//
// Plain value type.
#pragma once

#include "absl/time/time.h"
#include "scheduler/core/job_spec.h"

namespace canopy::placement {

struct PlacementRequest : core::ResourceRequest {
  PlacementRequest() = default;
  PlacementRequest(const core::ResourceRequest& resources, absl::Time wait_start)
      : core::ResourceRequest(resources), switch_wait_start(wait_start) {}

  // When the job became eligible: until switch_wait_start + max_switch_wait it waits for a
  // placement within max_switches; after that it takes what it can get.
  absl::Time switch_wait_start = absl::InfinitePast();
};

}  // namespace canopy::placement
