// The trace-replay simulator: runs a trace through the real scheduler core with simulated time.
//
// The same pieces canopyd uses make every decision: the QueueSort orders pending jobs, RunPass
// (scheduler/plan) computes a plan with the chosen PlacementPolicy, PlanApplier commits it into
// the CapacityView and the JobTable, and EndJob / FailJobOnNodeLoss commit job ends and node
// losses. The simulator only adds what a real cluster would: submit events from the trace, job
// ends after the (stretched) run time, node failures and repairs, and metrics. All events at one
// time are handled first and then one pass runs (docs/design/simulator.md).
//
// Deterministic: no clock (SimClock), seeded failures, ordered containers. RunSimulation is
// reentrant; it owns all its state.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "common/config/cluster_config.h"
#include "scheduler/placement/capacity_view.h"
#include "scheduler/plan/pass.h"
#include "scheduler/sim/comm_model.h"
#include "scheduler/sim/failures.h"
#include "scheduler/sim/metrics.h"
#include "scheduler/sim/trace.h"
#include "scheduler/topology/topology.h"

namespace canopy::sim {

struct SimOptions {
  std::string policy = "placement/canopy";  // a registry name, or canopy|first-fit|slurm-tree
  std::string queue_sort = "queue/age";
  CommCostOptions comm;
  FailureOptions failures;
  plan::PassOptions pass;    // compute_min_units is always turned on (min_switch_frac needs it)
  int32_t cpus_per_gpu = 1;  // CPUs a job takes per GPU on each node (at least 1 per node)
};

struct SimResult {
  SimMetrics metrics;
  SimSeries series;
};

// "canopy" -> "placement/canopy", "first-fit" -> "placement/first_fit", "slurm-tree" ->
// "placement/slurm_tree"; a full "placement/..." name is kept.
std::string PolicyRegistryName(absl::string_view name);

// Replays `trace` (sorted by submit, as ReadTraceFile returns it). InvalidArgument for an
// unknown policy or queue sort; Internal if the core reports a broken invariant.
absl::StatusOr<SimResult> RunSimulation(const config::ClusterConfig& config,
                                        const topology::Topology& topology,
                                        absl::Span<const TraceJob> trace,
                                        const SimOptions& options);

}  // namespace canopy::sim
