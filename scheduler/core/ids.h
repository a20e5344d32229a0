// The identifiers the scheduler core uses. Node and switch ids are dense indexes into the
// topology model (0..N-1, assigned in the order nodes are defined in the configuration), so
// per-node state can live in flat vectors. Job ids are the numbers users see.
#pragma once

#include <cstdint>

#include "scheduler/core/strong_id.h"

namespace canopy::core {

struct NodeIdTag {};
struct SwitchIdTag {};
struct BlockIdTag {};
struct JobIdTag {};

using NodeId = StrongId<NodeIdTag, int32_t>;
using SwitchId = StrongId<SwitchIdTag, int32_t>;
using BlockId = StrongId<BlockIdTag, int32_t>;
using JobId = StrongId<JobIdTag, uint32_t>;

}  // namespace canopy::core
