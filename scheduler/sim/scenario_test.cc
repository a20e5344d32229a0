// Golden scenario tests: every folder under tests/scenarios/ holds a cluster (slurm.conf +
// topology.conf, or cluster.yaml), a Canopy CSV trace.csv and expected.json. The trace is run
// through the simulator library under every policy and selected metrics (the deterministic
// ones: not wall time) are compared with expected.json as text, so a change shows as a diff.
// Regenerate after a reviewed behaviour change with
//   CANOPY_REGENERATE_SCENARIOS=1 ./build/scheduler/sim/canopy_scenario_test
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "scheduler/sim/simulator.h"
#include "scheduler/topology/load_topology.h"

namespace canopy::sim {
namespace {

namespace fs = std::filesystem;

std::string ScenarioDir() { return CANOPY_SOURCE_DIR "/tests/scenarios"; }

// Selected metrics of one run, one per line, fixed formatting.
std::string Golden(const SimMetrics& m) {
  return absl::StrFormat(
      "    \"jobs\": %d,\n    \"unschedulable\": %d,\n    \"makespan_s\": %.3f,\n"
      "    \"gpu_utilization\": %.6f,\n    \"mean_wait_s\": %.3f,\n    \"p95_wait_s\": %.3f,\n"
      "    \"mean_bounded_slowdown\": %.6f,\n    \"multi_node_jobs\": %d,\n"
      "    \"min_switch_frac\": %.6f,\n    \"mean_leaf_switches\": %.6f,\n"
      "    \"requeues\": %d,\n    \"timeouts\": %d\n",
      m.jobs, m.unschedulable, m.makespan_s, m.gpu_utilization, m.mean_wait_s, m.p95_wait_s,
      m.mean_bounded_slowdown, m.multi_node_jobs, m.min_switch_frac, m.mean_leaf_switches,
      m.requeues, m.timeouts);
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(ScenarioTest, GoldenMetrics) {
  int scenarios = 0;
  std::vector<fs::path> dirs;
  for (const fs::directory_entry& e : fs::directory_iterator(ScenarioDir())) {
    if (e.is_directory()) {
      dirs.push_back(e.path());
    }
  }
  std::sort(dirs.begin(), dirs.end());
  for (const fs::path& dir : dirs) {
    SCOPED_TRACE(dir.string());
    const std::string cluster = fs::exists(dir / "cluster.yaml") ? (dir / "cluster.yaml").string()
                                                                 : (dir / "slurm.conf").string();
    absl::StatusOr<config::ClusterConfig> config = config::LoadClusterConfig(cluster);
    ASSERT_TRUE(config.ok()) << config.status();
    absl::StatusOr<topology::Topology> topo = topology::LoadTopology(*config);
    ASSERT_TRUE(topo.ok()) << topo.status();
    absl::StatusOr<std::vector<TraceJob>> trace =
        ReadTraceFile((dir / "trace.csv").string(), TraceFormat::kCanopyCsv, 8);
    ASSERT_TRUE(trace.ok()) << trace.status();
    std::string got = "{\n";
    const std::vector<std::string> policies = {"canopy", "first-fit", "slurm-tree"};
    for (size_t i = 0; i < policies.size(); ++i) {
      SimOptions opts;
      opts.policy = policies[i];
      absl::StatusOr<SimResult> r = RunSimulation(*config, *topo, *trace, opts);
      ASSERT_TRUE(r.ok()) << r.status();
      absl::StrAppend(&got, "  \"", policies[i], "\": {\n", Golden(r->metrics), "  }",
                      i + 1 < policies.size() ? ",\n" : "\n");
    }
    got += "}\n";
    const std::string expected_path = (dir / "expected.json").string();
    if (std::getenv("CANOPY_REGENERATE_SCENARIOS") != nullptr) {
      std::ofstream(expected_path) << got;
    }
    EXPECT_EQ(got, ReadAll(expected_path))
        << "set CANOPY_REGENERATE_SCENARIOS=1 to rewrite " << expected_path;
    ++scenarios;
  }
  EXPECT_GT(scenarios, 0);
}

}  // namespace
}  // namespace canopy::sim
