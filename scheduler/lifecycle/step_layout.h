// How a step's tasks are laid out over the nodes of an allocation (srun -N/-n/--ntasks-per-node),
// with Slurm's default block distribution: consecutive ranks on the same node, the first
// `ntasks % nodes` nodes taking one task more. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace canopy::lifecycle {

struct StepLayout {
  int32_t nodes = 0;  // the first `nodes` nodes of the allocation
  int32_t ntasks = 0;
  std::vector<int32_t> tasks_per_node;  // per node
  std::vector<int32_t> first_rank;      // per node: rank of its first task

  // Slurm's compressed count list, e.g. "2(x4)" or "3,2(x2)" (SLURM_STEP_TASKS_PER_NODE).
  std::string TasksPerNodeString() const;
};

// `allocation_nodes` nodes are available. `nodes`, `ntasks`, `ntasks_per_node` are srun's
// options (0 = unset). InvalidArgument with srun-like wording when the request cannot fit.
absl::StatusOr<StepLayout> LayOutStep(int32_t allocation_nodes, int32_t nodes, int32_t ntasks,
                                      int32_t ntasks_per_node);

// Compresses a count list the way Slurm prints SLURM_TASKS_PER_NODE: "2(x3),1".
std::string CompressCounts(absl::Span<const int32_t> counts);

}  // namespace canopy::lifecycle
