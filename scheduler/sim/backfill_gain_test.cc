// Backfill against strict order on the mixed gang workload of tests/scenarios/fat_tree_32 (1- to
// 8-node jobs, many without time limits): with sched/backfill the same trace keeps more GPUs
// busy and jobs wait less than with sched/builtin. That backfill never delays the jobs it
// reserved for is the plan's property test (scheduler/plan/backfill_test.cc).
#include <string>
#include <vector>

#include "common/config/cluster_config.h"
#include "gtest/gtest.h"
#include "scheduler/sim/simulator.h"
#include "scheduler/sim/trace.h"
#include "scheduler/topology/load_topology.h"

namespace canopy::sim {
namespace {

const std::string kDir = CANOPY_SOURCE_DIR "/tests/scenarios/fat_tree_32";

SimMetrics RunWith(bool backfill) {
  absl::StatusOr<config::ClusterConfig> config = config::LoadClusterConfig(kDir + "/slurm.conf");
  EXPECT_TRUE(config.ok()) << config.status();
  config->scheduling.scheduler.backfill = backfill;
  absl::StatusOr<topology::Topology> topo = topology::LoadTopology(*config);
  EXPECT_TRUE(topo.ok()) << topo.status();
  absl::StatusOr<std::vector<TraceJob>> trace =
      ReadTraceFile(kDir + "/trace.csv", TraceFormat::kCanopyCsv, 8);
  EXPECT_TRUE(trace.ok()) << trace.status();
  absl::StatusOr<SimResult> r = RunSimulation(*config, *topo, *trace, SimOptions());
  EXPECT_TRUE(r.ok()) << r.status();
  return r->metrics;
}

TEST(BackfillGainTest, MoreUtilizationLessWaitThanStrictOrder) {
  const SimMetrics builtin = RunWith(false);
  const SimMetrics backfill = RunWith(true);
  EXPECT_EQ(backfill.jobs, builtin.jobs);
  EXPECT_GT(backfill.gpu_utilization, builtin.gpu_utilization + 0.01);
  EXPECT_LT(backfill.mean_wait_s, builtin.mean_wait_s * 0.75);
  EXPECT_LT(backfill.mean_bounded_slowdown, builtin.mean_bounded_slowdown);
}

}  // namespace
}  // namespace canopy::sim
