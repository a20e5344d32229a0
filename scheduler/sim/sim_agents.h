// SimulatedAgents: the canopy-agents of a simulated cluster. They take the lifecycle's messages
// (the same ones canopyd sends over the network) and answer, after modelled delays, with the
// reports a real agent would send: LAUNCHED for a LaunchJob, EXITED when a batch script ends
// (at the end of its run, or killed by a KillJob; at the end of its run with no cleanup delay,
// an EXITED that says the node cleaned up too), CLEANED_UP for a KillJob. A failed node's agent
// is silent: its messages are lost and its pending reports never arrive.
//
// Reports become kAgentReport events of the simulator's queue; Take() hands each back when its
// event fires. Deterministic; not thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "scheduler/core/ids.h"
#include "scheduler/lifecycle/commands.h"
#include "scheduler/lifecycle/effects.h"
#include "scheduler/sim/event_queue.h"

namespace canopy::sim {

struct AgentDelays {
  absl::Duration launch = absl::ZeroDuration();   // LaunchJob -> LAUNCHED
  absl::Duration cleanup = absl::ZeroDuration();  // KillJob -> CLEANED_UP
};

class SimulatedAgents {
 public:
  SimulatedAgents(EventQueue& events, int node_count, AgentDelays delays)
      : events_(events), delays_(delays), dead_(node_count, false) {}

  // Acts on the lifecycle's messages sent at `now`.
  void Deliver(const std::vector<lifecycle::OutgoingMessage>& messages, absl::Time now);
  // The batch script of `run_id` on `batch_host` ends by itself at `end` (exit 0).
  void RunScript(core::JobId job, core::NodeId batch_host, uint32_t run_id, absl::Time end);

  // A node's agent dies with the node (its scripts with it), or comes back with it.
  void NodeFailed(core::NodeId node);
  void NodeRepaired(core::NodeId node) { dead_[node.value()] = false; }

  // The report of a fired kAgentReport event, or nullopt when it was made moot since (the
  // agent died, or the script it announced an exit for was killed first).
  std::optional<std::pair<core::NodeId, lifecycle::JobReport>> Take(int64_t slot);

 private:
  struct Script {  // a batch script still running
    uint32_t run_id = 0;
    core::NodeId host;
  };
  struct Pending {
    core::NodeId node;
    lifecycle::JobReport report;
  };

  void Report(absl::Time at, core::NodeId node, lifecycle::JobReport report);
  void Kill(const lifecycle::KillJob& kill, core::NodeId node, absl::Time now);

  EventQueue& events_;
  const AgentDelays delays_;
  std::vector<bool> dead_;  // by NodeId
  // The run each node of a job last launched (what its CLEANED_UP will name); lookups only.
  absl::flat_hash_map<std::pair<core::JobId, core::NodeId>, uint32_t> runs_;
  absl::flat_hash_map<core::JobId, Script> scripts_;  // lookups only
  std::vector<Pending> reports_;                      // by slot
  std::vector<int64_t> free_slots_;
};

}  // namespace canopy::sim
