// The trace-replay simulator: runs a trace through canopyd's own job lifecycle with simulated
// time.
//
// Every decision is made by the code canopyd runs: the trace's jobs are submitted to a
// lifecycle::JobLifecycle (admission, the scheduling pass with the chosen PlacementPolicy, gang
// launch, time limits, cleanup, requeue on node loss), the cluster's nodes are registered in a
// state::ClusterState as agents would, and the lifecycle's messages go to SimulatedAgents, which
// answer as real agents would (launch confirmed, script exits at its stretched run time, nodes
// clean up after a kill). What the simulator adds is only the event loop, the trace readers, the
// communication cost model, failure injection and the metrics. All events at one time are
// handled first and then one pass runs (docs/design/simulator.md).
//
// Deterministic: no clock (SimClock), seeded failures, ordered containers. RunSimulation is
// reentrant; it owns all its state.
#pragma once

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/config/cluster_config.h"
#include "scheduler/placement/capacity_view.h"
#include "scheduler/plan/pass.h"
#include "scheduler/sim/comm_model.h"
#include "scheduler/sim/failures.h"
#include "scheduler/sim/metrics.h"
#include "scheduler/sim/sim_agents.h"
#include "scheduler/sim/trace.h"
#include "scheduler/topology/topology.h"

namespace canopy::sim {

// Where a replay stands, for a progress display (canopy-sim's, sim_progress.h).
struct SimProgress {
  absl::Duration simulated;  // simulated time since the trace's time 0
  int64_t jobs_total = 0;
  int64_t jobs_done = 0;  // ended (or never runnable) jobs
  int64_t pending = 0;    // in the queue now
  int64_t events = 0;     // events handled so far
};

struct SimOptions {
  std::string policy = "placement/canopy";  // a registry name, or canopy|first-fit|slurm-tree
  // queue/priority: the config's PriorityType (multifactor with its weights, or submission
  // order), as canopyd orders its queue; queue/age: submit time only.
  std::string queue_sort = "queue/priority";
  CommCostOptions comm;
  FailureOptions failures;
  plan::PassOptions pass;    // compute_min_units is always turned on (min_switch_frac needs it)
  int32_t cpus_per_gpu = 1;  // CPUs a job takes per GPU on each node (at least 1 per node)
  AgentDelays agents;        // how long simulated agents take to confirm launches and cleanups
  // Stop at this simulated time (from the trace's time 0) and report over [0, until]: jobs
  // still running then count the GPU time they had by then. Infinite = replay everything.
  absl::Duration until = absl::InfiniteDuration();
  // Called every kProgressEvents events and once at the end; it only observes (the replay stays
  // deterministic). Empty: none.
  std::function<void(const SimProgress&)> progress;
  static constexpr int64_t kProgressEvents = 1 << 14;
};

struct SimResult {
  SimMetrics metrics;
  SimSeries series;
};

// "canopy" -> "placement/canopy", "first-fit" -> "placement/first_fit", "slurm-tree" ->
// "placement/slurm_tree"; a full "placement/..." name is kept.
std::string PolicyRegistryName(absl::string_view name);

// Replays `trace` (sorted by submit, as ReadTraceFile returns it). `config` and `topology` must
// outlive the call. InvalidArgument for an unknown policy or queue sort; Internal if the core
// reports a broken invariant.
absl::StatusOr<SimResult> RunSimulation(const config::ClusterConfig& config,
                                        const topology::Topology& topology,
                                        absl::Span<const TraceJob> trace,
                                        const SimOptions& options);

}  // namespace canopy::sim
