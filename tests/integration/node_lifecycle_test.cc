// Issue #2: canopyd + an agent hosting 16 virtual nodes on loopback, driven through canopyctl.
// Nodes come up IDLE, go DOWN ("Not responding") after node_timeout when the agent is killed,
// and come back IDLE when it returns; an admin drain survives kill -9 of the controller.
#include <fstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/local_cluster.h"

namespace canopy::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kNodeLifecycleConfig[] = R"(
cluster_name: it16
node_timeout: 2s
heartbeat_interval: 500ms
nodes:
  - names: gpu[001-016]
    cpus: 64
    memory_mib: 512000
    gpus: {type: h100, count: 8}
partitions:
  - name: gpu
    nodes: ALL
    default: true
topology_plugin: topology/tree
topology:
  switches:
    - name: leaf001
      nodes: gpu[001-008]
    - name: leaf002
      nodes: gpu[009-016]
    - name: spine001
      switches: leaf[001-002]
)";

// Counts node rows of `canopyctl nodes` whose STATE column is `state`.
int CountState(const CommandResult& r, const std::string& state) {
  int n = 0;
  for (absl::string_view line : absl::StrSplit(r.out, '\n')) {
    std::vector<absl::string_view> cols = absl::StrSplit(line, ' ', absl::SkipEmpty());
    if (cols.size() >= 2 && absl::StartsWith(cols[0], "gpu") && cols[1] == state) {
      ++n;
    }
  }
  return n;
}

class NodeLifecycleTest : public ::testing::Test {
 protected:
  NodeLifecycleTest() : cluster_(kNodeLifecycleConfig) {}

  bool WaitForState(const std::string& state, int count) {
    return WaitUntil([&] { return CountState(cluster_.Canopyctl({"nodes"}), state) == count; },
                     absl::Seconds(30));
  }
  std::string Diagnostics() {
    return "canopyctl nodes:\n" + cluster_.Canopyctl({"nodes"}).out + "\ncanopyd log:\n" +
           cluster_.ControllerLog() + "\nagent log:\n" + cluster_.AgentLog();
  }

  LocalCluster cluster_;
};

TEST_F(NodeLifecycleTest, AgentLossMakesNodesDownAndReturnMakesThemIdle) {
  ASSERT_TRUE(cluster_.StartController().ok());
  // Before any agent: configured nodes are unknown.
  EXPECT_EQ(CountState(cluster_.Canopyctl({"nodes"}), "unk*"), 16);

  ASSERT_TRUE(cluster_.StartAgent("gpu[001-016]").ok());
  ASSERT_TRUE(WaitForState("idle", 16)) << Diagnostics();

  const CommandResult nodes = cluster_.Canopyctl({"nodes"});
  EXPECT_EQ(nodes.exit_code, 0);
  EXPECT_THAT(nodes.out, HasSubstr("0/8 h100"));
  EXPECT_THAT(nodes.out, HasSubstr("leaf002"));

  const CommandResult topo = cluster_.Canopyctl({"topology"});
  EXPECT_EQ(topo.exit_code, 0) << topo.err;
  EXPECT_THAT(topo.out, HasSubstr("spine001 (level 1): 16 nodes, 16 idle, 0 down; GPUs 128: "
                                  "128 free, 0 used, 0 down"));
  EXPECT_THAT(topo.out, HasSubstr("leaf001 (level 0): 8 nodes, 8 idle"));
  EXPECT_THAT(topo.out, HasSubstr("idle gpu[009-016]"));

  cluster_.KillAgent();
  ASSERT_TRUE(WaitForState("down*", 16)) << Diagnostics();
  EXPECT_THAT(cluster_.Canopyctl({"nodes", "gpu003"}).out, HasSubstr("Not responding"));
  EXPECT_THAT(cluster_.Canopyctl({"topology"}).out,
              HasSubstr("spine001 (level 1): 16 nodes, 0 idle, 16 down; GPUs 128: 0 free"));

  ASSERT_TRUE(cluster_.StartAgent("gpu[001-016]").ok());
  ASSERT_TRUE(WaitForState("idle", 16)) << Diagnostics();
  EXPECT_THAT(cluster_.Canopyctl({"nodes", "gpu003"}).out,
              ::testing::Not(HasSubstr("Not responding")));
}

TEST_F(NodeLifecycleTest, DrainIsDurableAcrossControllerCrash) {
  ASSERT_TRUE(cluster_.StartController().ok());
  ASSERT_TRUE(cluster_.StartAgent("gpu[001-016]").ok());
  ASSERT_TRUE(WaitForState("idle", 16)) << Diagnostics();

  // Without a reason, Slurm's wording and exit code.
  CommandResult no_reason =
      cluster_.FrontEnd("scontrol", {"update", "nodename=gpu[001-002]", "state=drain"});
  EXPECT_EQ(no_reason.exit_code, 1);
  EXPECT_THAT(no_reason.err, HasSubstr("You must specify a reason"));

  CommandResult drained = cluster_.FrontEnd(
      "scontrol", {"update", "nodename=gpu[001-002]", "state=drain", "reason=bad fan"});
  ASSERT_EQ(drained.exit_code, 0) << drained.err;
  ASSERT_TRUE(WaitForState("drain", 2)) << Diagnostics();

  cluster_.CrashController();
  ASSERT_TRUE(cluster_.StartController().ok());
  // The agent reconnects by itself; the drain came back from the database. Each node shows its
  // state once it has registered again: the 14 may all be idle while the 2 are still drain*.
  ASSERT_TRUE(WaitForState("idle", 14)) << Diagnostics();
  EXPECT_TRUE(WaitForState("drain", 2)) << Diagnostics();
  EXPECT_THAT(cluster_.Canopyctl({"nodes", "gpu001"}).out, HasSubstr("bad fan"));

  ASSERT_EQ(cluster_.Canopyctl({"resume", "gpu[001-002]"}).exit_code, 0);
  ASSERT_TRUE(WaitForState("idle", 16)) << Diagnostics();
}

TEST_F(NodeLifecycleTest, InjectedGpuFaultIsReportedAndMissingGpusDrain) {
  ASSERT_TRUE(cluster_.StartController().ok());
  const std::string faults = cluster_.dir() + "/faults";
  ASSERT_TRUE(cluster_.StartAgent("gpu[001-016]", {"--fake_gpu_faults", faults}).ok());
  ASSERT_TRUE(WaitForState("idle", 16)) << Diagnostics();
  { std::ofstream(faults) << "gpu005 3 XID 79: GPU has fallen off the bus\n"; }
  ASSERT_TRUE(WaitUntil(
      [&] {
        return absl::StrContains(cluster_.Canopyctl({"nodes", "gpu005"}).out, "(1 bad)");
      },
      absl::Seconds(20)))
      << Diagnostics();
  EXPECT_THAT(cluster_.Canopyctl({"topology"}).out, HasSubstr("GPUs 64: 63 free, 0 used, 1 down"));

  // A node whose agent reports fewer GPUs than configured is drained with Slurm's reason.
  cluster_.KillAgent();
  ASSERT_TRUE(cluster_.StartAgent("gpu[001-016]", {"--fake_gpus", "6"}).ok());
  ASSERT_TRUE(WaitForState("drain", 16)) << Diagnostics();
  EXPECT_THAT(cluster_.Canopyctl({"nodes", "gpu001"}).out,
              HasSubstr("gres/gpu count reported lower than configured (6 < 8)"));
}

TEST_F(NodeLifecycleTest, ClearErrorsWithoutController) {
  // No controller at that address: a clear, prompt error.
  CommandResult r = RunCommand({CANOPYCTL_PATH, "--controller", "127.0.0.1:1", "nodes"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("cannot reach canopyd at 127.0.0.1:1"));
  // No address anywhere: never a DNS lookup, a clear message instead.
  r = RunCommand({CANOPYCTL_PATH, "nodes"},
                 {{"CANOPY_CONTROLLER", ""}, {"CANOPY_CONFIG", ""}, {"SLURM_CONF", ""}});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("no controller address"));
  r = RunCommand({CANOPY_AGENT_PATH, "--virtual_nodes", "gpu1"},
                 {{"CANOPY_CONTROLLER", ""}, {"CANOPY_CONFIG", ""}, {"SLURM_CONF", ""}});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("no controller address"));
}

}  // namespace
}  // namespace canopy::testing
