// The fair-share acceptance run (tests/data/fairshare-week/README.md): two accounts with shares
// 70/30, each offering the whole cluster's capacity, replayed for a simulated week. Multifactor
// priority with Fair Tree delivers GPU-hours within 5 percentage points of 70/30; submission
// order (priority/basic) on the same trace gives about 50/50.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/config/cluster_config.h"
#include "common/slurm/sacctmgr_file.h"
#include "gtest/gtest.h"
#include "scheduler/sim/simulator.h"
#include "scheduler/sim/trace.h"
#include "scheduler/topology/load_topology.h"

namespace canopy::sim {
namespace {

const std::string kDir = CANOPY_SOURCE_DIR "/tests/data/fairshare-week";
constexpr absl::Duration kWeek = absl::Seconds(604800);

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Share of the delivered GPU-hours that went to vision, and the run's metrics.
struct Split {
  double vision = 0;
  SimMetrics metrics;
};

Split RunWeek(bool multifactor) {
  absl::StatusOr<config::ClusterConfig> config = config::LoadClusterConfig(kDir + "/cluster.yaml");
  EXPECT_TRUE(config.ok()) << config.status();
  config->scheduling.priority.multifactor = multifactor;
  absl::StatusOr<std::vector<slurm::FlatFileRecord>> accounts =
      slurm::ParseFlatFile(Read(kDir + "/accounts.cfg"), "accounts.cfg");
  EXPECT_TRUE(accounts.ok()) << accounts.status();
  config->scheduling.accounting.accounts = *accounts;
  config->scheduling.accounting.accounts_origin = "accounts.cfg";
  absl::StatusOr<topology::Topology> topo = topology::LoadTopology(*config);
  EXPECT_TRUE(topo.ok()) << topo.status();
  absl::StatusOr<std::vector<TraceJob>> trace =
      ReadTraceFile(kDir + "/trace.csv", TraceFormat::kCanopyCsv, 8);
  EXPECT_TRUE(trace.ok()) << trace.status();
  SimOptions options;
  options.until = kWeek;
  absl::StatusOr<SimResult> r = RunSimulation(*config, *topo, *trace, options);
  EXPECT_TRUE(r.ok()) << r.status();
  Split out;
  out.metrics = r->metrics;
  const double vision = r->metrics.accounts.at("vision").gpu_hours;
  const double nlp = r->metrics.accounts.at("nlp").gpu_hours;
  out.vision = vision / (vision + nlp);
  return out;
}

TEST(FairShareWeekTest, SharesOf70And30AreDeliveredOverAWeek) {
  const Split fair = RunWeek(/*multifactor=*/true);
  EXPECT_NEAR(fair.vision, 0.70, 0.05);
  // The cluster stayed saturated, and the report covers exactly [0, one week].
  EXPECT_GT(fair.metrics.gpu_utilization, 0.95);
  EXPECT_DOUBLE_EQ(fair.metrics.makespan_s, 604800);
  // Normalised shares among root's children: 70, 30 and root's own user association's 1.
  EXPECT_NEAR(fair.metrics.accounts.at("vision").share, 70.0 / 101, 1e-9);
  EXPECT_NEAR(fair.metrics.accounts.at("nlp").share, 30.0 / 101, 1e-9);

  const Split fifo = RunWeek(/*multifactor=*/false);
  EXPECT_NEAR(fifo.vision, 0.50, 0.02);
}

}  // namespace
}  // namespace canopy::sim
