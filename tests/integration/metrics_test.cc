// Issue #15: canopyd's Prometheus endpoint on a real cluster, read with curl as an admin's
// Prometheus would: per-switch GPU occupancy at every level matches `canopyctl topology` and
// the switches `scontrol show topology` lists; jobs, nodes, agents, passes, commits and RPC
// latencies are there with Prometheus' names.
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/local_cluster.h"

namespace canopy::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kMetricsConfig[] = R"(
cluster_name: itmetrics
node_timeout: 5s
heartbeat_interval: 500ms
kill_wait: 1s
metrics_listen: 127.0.0.1:0
nodes:
  - names: gpu[1-4]
    cpus: 8
    memory_mib: 64000
    gpus: {type: h100, count: 4}
partitions:
  - name: gpu
    nodes: ALL
    default: true
topology_plugin: topology/tree
topology:
  switches:
    - name: leaf1
      nodes: gpu[1-2]
    - name: leaf2
      nodes: gpu[3-4]
    - name: spine
      switches: leaf[1-2]
)";

// "name{labels} value" lines of the text format; comments left out.
std::map<std::string, double> Samples(const std::string& text) {
  std::map<std::string, double> samples;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    if (line.front() == '#') {
      continue;
    }
    const size_t space = line.rfind(' ');
    double value = 0;
    if (space != absl::string_view::npos && absl::SimpleAtod(line.substr(space + 1), &value)) {
      samples[std::string(line.substr(0, space))] = value;
    }
  }
  return samples;
}

// A sample's value; a failure naming it (and -1) when the scrape lacks it.
double Value(const std::map<std::string, double>& samples, const std::string& key) {
  auto it = samples.find(key);
  if (it == samples.end()) {
    ADD_FAILURE() << "no sample " << key;
    return -1;
  }
  return it->second;
}

class MetricsTest : public ::testing::Test {
 protected:
  MetricsTest() : cluster_(kMetricsConfig) {}

  void SetUp() override {
    ASSERT_TRUE(cluster_.StartController().ok()) << cluster_.ControllerLog();
    std::smatch m;
    const std::string log = cluster_.ControllerLog();
    ASSERT_TRUE(
        std::regex_search(log, m, std::regex(R"(metrics on (http://127\.0\.0\.1:\d+/metrics))")))
        << log;
    url_ = m[1];
    ASSERT_TRUE(cluster_
                    .StartAgent("gpu[1-4]", {"--fake_gpu_faults", cluster_.dir() + "/faults",
                                             "--metrics-listen=127.0.0.1:0"})
                    .ok());
    ASSERT_TRUE(WaitUntil(
        [&] {
          return cluster_.FrontEnd("sinfo", {"-h", "-t", "idle", "-o", "%D"}).out == "4\n";
        },
        absl::Seconds(20)))
        << cluster_.AgentLog();
  }

  // The agent's endpoint, from its log line.
  std::string AgentUrl() {
    std::smatch m;
    const std::string log = cluster_.AgentLog();
    if (!std::regex_search(log, m, std::regex(R"(metrics on (http://127\.0\.0\.1:\d+/metrics))"))) {
      ADD_FAILURE() << "no metrics URL in the agent's log:\n" << log;
      return "";
    }
    return m[1];
  }

  std::string Scrape(const std::string& url = "") {
    const CommandResult r =
        RunCommand({"/usr/bin/curl", "-sS", "--max-time", "10", url.empty() ? url_ : url}, {});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  }

  LocalCluster cluster_;
  std::string url_;
};

TEST_F(MetricsTest, PerSwitchGpuOccupancyMatchesTheTopologyView) {
  // A two-node gang of 8 GPUs under one leaf, and a one-GPU job.
  const CommandResult gang = cluster_.FrontEnd(
      "sbatch", {"-N2", "--gpus-per-node=4", "-o", "/dev/null", "--wrap", "sleep 300"});
  ASSERT_EQ(gang.exit_code, 0) << gang.err;
  const CommandResult small =
      cluster_.FrontEnd("sbatch", {"--gpus=1", "-o", "/dev/null", "--wrap", "sleep 300"});
  ASSERT_EQ(small.exit_code, 0) << small.err;
  ASSERT_TRUE(WaitUntil(
      [&] {
        const std::string out =
            cluster_.FrontEnd("squeue", {"-h", "-t", "running", "-o", "%i"}).out;
        return std::count(out.begin(), out.end(), '\n') == 2;
      },
      absl::Seconds(20)))
      << cluster_.FrontEnd("squeue", {}).out;

  const std::map<std::string, double> samples = Samples(Scrape());
  // "leaf1 (level 0): 2 nodes, 0 idle, 0 down; GPUs 8: 0 free, 8 used, 0 down; jobs 1"
  const std::string topology = cluster_.Canopyctl({"topology"}).out;
  const std::regex line(
      R"((\S+) \(level (\d+)\): \d+ nodes, \d+ idle, \d+ down; GPUs \d+: (\d+) free, (\d+) used, (\d+) down)");
  int switches = 0;
  for (std::sregex_iterator it(topology.begin(), topology.end(), line), end; it != end; ++it) {
    const std::smatch& m = *it;
    const std::string labels =
        absl::StrCat("{switch=\"", m[1].str(), "\",level=\"", m[2].str(), "\",state=\"");
    SCOPED_TRACE(m[0].str());
    EXPECT_EQ(Value(samples, absl::StrCat("canopy_switch_gpus", labels, "idle\"}")),
              std::stod(m[3]));
    EXPECT_EQ(Value(samples, absl::StrCat("canopy_switch_gpus", labels, "allocated\"}")),
              std::stod(m[4]));
    EXPECT_EQ(Value(samples, absl::StrCat("canopy_switch_gpus", labels, "unavailable\"}")),
              std::stod(m[5]));
    ++switches;
  }
  EXPECT_EQ(switches, 3) << topology;
  // The same switches scontrol lists, and the gang's 8 GPUs and the single one are all counted
  // at the top.
  const std::string scontrol = cluster_.FrontEnd("scontrol", {"show", "topology"}).out;
  for (const char* name : {"leaf1", "leaf2", "spine"}) {
    EXPECT_THAT(scontrol, HasSubstr(absl::StrCat("SwitchName=", name, " ")));
  }
  EXPECT_EQ(Value(samples, "canopy_switch_gpus{switch=\"spine\",level=\"1\",state=\"allocated\"}"),
            9);

  EXPECT_EQ(Value(samples, "canopy_jobs{state=\"RUNNING\",partition=\"gpu\",account=\"\"}"), 2);
  EXPECT_EQ(Value(samples, "canopy_gpus{partition=\"gpu\",gpu_type=\"h100\",state=\"allocated\"}"),
            9);
  EXPECT_EQ(Value(samples, "canopy_gpus{partition=\"gpu\",gpu_type=\"h100\",state=\"idle\"}"), 7);
  EXPECT_EQ(Value(samples, "canopy_agents_connected"), 4);
  EXPECT_GE(Value(samples, "canopy_rpc_duration_seconds_count{method=\"SubmitJob\"}"), 2);
  EXPECT_GE(Value(samples, "canopy_store_commits_total{result=\"ok\"}"), 2);
  EXPECT_GE(Value(samples, "canopy_scheduler_pass_duration_seconds_count{kind=\"main\"}") +
                Value(samples, "canopy_scheduler_pass_duration_seconds_count{kind=\"backfill\"}"),
            1);
  EXPECT_GT(Value(samples, "canopy_store_wal_bytes"), 0);

  EXPECT_EQ(Value(samples, "canopy_agents_heartbeat_late"), 0);
  EXPECT_EQ(cluster_.FrontEnd("scancel", {"-u", std::to_string(getuid())}).exit_code, 0);
}

// A GPU the agent reports broken shows as a health finding of its kind, and as unavailable under
// its switches.
TEST_F(MetricsTest, GpuHealthFindingsByKind) {
  std::ofstream(cluster_.dir() + "/faults") << "gpu4 1 XID 79: GPU has fallen off the bus\n";
  std::map<std::string, double> samples;
  EXPECT_TRUE(WaitUntil(
      [&] {
        samples = Samples(Scrape());
        return samples["canopy_gpu_health_findings{kind=\"XID 79\"}"] == 1;
      },
      absl::Seconds(20)))
      << cluster_.AgentLog();
  EXPECT_EQ(
      Value(samples, "canopy_switch_gpus{switch=\"leaf2\",level=\"0\",state=\"unavailable\"}"), 1);
  // The agent's own figures of the node and the GPU.
  std::map<std::string, double> agent;
  EXPECT_TRUE(WaitUntil(
      [&] {
        agent = Samples(Scrape(AgentUrl()));
        return agent["canopy_agent_gpu_xid_errors_total{node=\"gpu4\",gpu=\"1\"}"] == 1;
      },
      absl::Seconds(20)));
  EXPECT_EQ(Value(agent, "canopy_agent_node_registered{node=\"gpu1\"}"), 1);
  EXPECT_EQ(Value(agent, "canopy_agent_gpu_temperature_celsius{node=\"gpu2\",gpu=\"3\"}"), 33);
  EXPECT_EQ(Value(agent, "canopy_agent_gpu_power_watts{node=\"gpu3\",gpu=\"0\"}"), 70);
  EXPECT_EQ(Value(agent, "canopy_agent_gpu_xid_errors_total{node=\"gpu4\",gpu=\"0\"}"), 0);
  EXPECT_EQ(
      Value(agent,
            "canopy_agent_gpu_ecc_errors_total{node=\"gpu1\",gpu=\"0\",type=\"uncorrected\"}"),
      0);
  int unhealthy = 0;
  for (const auto& [key, value] : agent) {
    if (key.rfind("canopy_agent_gpu_healthy{", 0) == 0) {
      unhealthy += value == 0 ? 1 : 0;
    }
  }
  EXPECT_EQ(unhealthy, 1);
}

}  // namespace
}  // namespace canopy::testing
