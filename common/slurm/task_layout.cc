#include "common/slurm/task_layout.h"

#include <cstdint>
#include <limits>

#include "absl/strings/str_cat.h"

namespace canopy::slurm {

std::string CompressCounts(absl::Span<const int32_t> counts) {
  std::string out;
  for (size_t i = 0; i < counts.size();) {
    size_t j = i;
    while (j < counts.size() && counts[j] == counts[i]) {
      ++j;
    }
    absl::StrAppend(&out, out.empty() ? "" : ",", counts[i]);
    if (j - i > 1) {
      absl::StrAppend(&out, "(x", j - i, ")");
    }
    i = j;
  }
  return out;
}

std::string TaskLayout::TasksPerNodeString() const { return CompressCounts(tasks_per_node); }

absl::StatusOr<TaskLayout> LayOutTasks(int32_t available_nodes, int32_t nodes, int32_t ntasks,
                                       int32_t ntasks_per_node) {
  if (available_nodes < 1) {
    return absl::FailedPreconditionError("the job has no nodes");
  }
  if (nodes < 0 || ntasks < 0 || ntasks_per_node < 0) {
    return absl::InvalidArgumentError("node and task counts must not be negative");
  }
  if (nodes > available_nodes) {
    return absl::InvalidArgumentError(
        absl::StrCat("Requested node configuration is not available: the step asks for ", nodes,
                     " nodes but the job has ", available_nodes));
  }
  TaskLayout layout;
  if (nodes == 0) {
    // Without -N: every node, unless fewer tasks than nodes were asked for.
    nodes = available_nodes;
    if (ntasks > 0 && ntasks_per_node == 0 && ntasks < nodes) {
      nodes = ntasks;
    }
    if (ntasks > 0 && ntasks_per_node > 0) {
      nodes = std::min(available_nodes, (ntasks + ntasks_per_node - 1) / ntasks_per_node);
    }
  }
  // In 64 bits: --ntasks-per-node times the node count may not fit in an int32.
  const int64_t per_node_total = int64_t{ntasks_per_node} * nodes;
  if (ntasks == 0) {
    if (per_node_total > std::numeric_limits<int32_t>::max()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Requested node configuration is not available: ", ntasks_per_node,
                       " tasks per node on ", nodes, " nodes is more tasks than a step may have"));
    }
    ntasks = ntasks_per_node > 0 ? static_cast<int32_t>(per_node_total) : nodes;
  }
  if (ntasks < nodes) {
    nodes = ntasks;  // srun: "can't run N processes on M nodes, setting nnodes to N"
  }
  if (ntasks_per_node > 0 && ntasks > int64_t{ntasks_per_node} * nodes) {
    return absl::InvalidArgumentError(
        absl::StrCat("Requested node configuration is not available: ", ntasks, " tasks at ",
                     ntasks_per_node, " per node need more than ", nodes, " nodes"));
  }
  layout.nodes = nodes;
  layout.ntasks = ntasks;
  int32_t rank = 0;
  for (int32_t n = 0; n < nodes; ++n) {
    int32_t count = ntasks / nodes + (n < ntasks % nodes ? 1 : 0);
    layout.first_rank.push_back(rank);
    layout.tasks_per_node.push_back(count);
    rank += count;
  }
  return layout;
}

}  // namespace canopy::slurm
