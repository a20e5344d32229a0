// How a job's or a step's tasks are laid out over nodes (srun/sbatch -N/-n/--ntasks-per-node),
// with Slurm's default block distribution: consecutive ranks on the same node, the first
// `ntasks % nodes` nodes taking one task more, and never more nodes than tasks ("can't run 2
// processes on 4 nodes, setting nnodes to 2"). The one copy of this rule: the controller lays
// out srun steps with it and the agent derives a batch job's SLURM_TASKS_PER_NODE from it.
// Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace canopy::slurm {

struct TaskLayout {
  int32_t nodes = 0;  // the first `nodes` nodes of those available
  int32_t ntasks = 0;
  std::vector<int32_t> tasks_per_node;  // per node
  std::vector<int32_t> first_rank;      // per node: rank of its first task

  // Slurm's compressed count list, e.g. "2(x4)" or "3,2(x2)" (SLURM_TASKS_PER_NODE).
  std::string TasksPerNodeString() const;
};

// `available_nodes` nodes can be used (the allocation). `nodes`, `ntasks`, `ntasks_per_node`
// are the -N, -n and --ntasks-per-node options (0 = unset): without -N every available node is
// used unless fewer tasks were asked for; without -n there is one task per node, or
// ntasks_per_node on each. FailedPrecondition when nothing is available; InvalidArgument with
// Slurm's words ("Requested node configuration is not available: ...") when the request cannot
// fit.
absl::StatusOr<TaskLayout> LayOutTasks(int32_t available_nodes, int32_t nodes, int32_t ntasks,
                                       int32_t ntasks_per_node);

// Compresses a count list the way Slurm prints SLURM_TASKS_PER_NODE: {2,2,2,1} -> "2(x3),1".
std::string CompressCounts(absl::Span<const int32_t> counts);

}  // namespace canopy::slurm
