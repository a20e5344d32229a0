#include "scheduler/state/node_record.h"

namespace canopy::state {

NodeBaseState NodeRecord::BaseState(const NodeUse& use) const {
  if (admin_down || not_responding) {
    return NodeBaseState::kDown;
  }
  if (!ever_registered) {
    return NodeBaseState::kUnknown;
  }
  const bool any = use.cpus > 0 || use.gpus > 0 || use.memory_mib > 0;
  if (!any) {
    return NodeBaseState::kIdle;
  }
  // A node is fully allocated when no CPU (or, on a GPU node, no GPU) is left: either leaves
  // nothing schedulable on it.
  const bool cpus_full = use.cpus >= cpus;
  const bool gpus_full = gpus_configured > 0 && use.gpus >= gpus_configured;
  return (cpus_full || gpus_full) ? NodeBaseState::kAllocated : NodeBaseState::kMixed;
}

std::string SlurmStateName(const NodeRecord& node, bool long_form, const NodeUse& use) {
  std::string name;
  const NodeBaseState base = node.BaseState(use);
  if (node.drain && base != NodeBaseState::kDown) {
    // Slurm: DRAINING while jobs still run on it, DRAINED once idle.
    const bool busy = base == NodeBaseState::kMixed || base == NodeBaseState::kAllocated;
    name = busy ? (long_form ? "draining" : "drng") : (long_form ? "drained" : "drain");
  } else {
    switch (base) {
      case NodeBaseState::kUnknown:
        name = long_form ? "unknown" : "unk";
        break;
      case NodeBaseState::kIdle:
        name = "idle";
        break;
      case NodeBaseState::kMixed:
        name = long_form ? "mixed" : "mix";
        break;
      case NodeBaseState::kAllocated:
        name = long_form ? "allocated" : "alloc";
        break;
      case NodeBaseState::kDown:
        name = "down";
        break;
    }
  }
  // Slurm appends "*" to a node that is not responding (and to one never heard from).
  if (node.not_responding || !node.ever_registered) {
    name += "*";
  }
  return name;
}

}  // namespace canopy::state
