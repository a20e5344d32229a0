// Tests for the simulator library: trace readers, comm cost model, metrics on a hand-computed
// trace, failure-injection determinism, and the policies on the shared Philly cluster.
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "scheduler/sim/comm_model.h"
#include "scheduler/sim/failures.h"
#include "scheduler/sim/simulator.h"
#include "scheduler/sim/trace.h"
#include "scheduler/topology/load_topology.h"

namespace canopy::sim {
namespace {

constexpr char kHeader[] =
    "job_id,submit_s,nodes,gpus_per_node,duration_s,time_limit_s,user,account\n";

// 2 leaves x 2 nodes x 8 GPUs under one spine.
constexpr char kSlurmConf[] =
    "ClusterName=t\nTopologyPlugin=topology/tree\nGresTypes=gpu\n"
    "NodeName=n[1-4] CPUs=64 RealMemory=1000 Gres=gpu:h100:8\n"
    "PartitionName=gpu Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n";
constexpr char kTopology[] =
    "SwitchName=l1 Nodes=n[1-2]\nSwitchName=l2 Nodes=n[3-4]\nSwitchName=s Switches=l[1-2]\n";

struct Cluster {
  config::ClusterConfig config;
  topology::Topology topo;
};

// The cluster of `slurm_conf` under kTopology's switches.
Cluster LoadCluster(const char* slurm_conf) {
  absl::StatusOr<config::ClusterConfig> c = config::ParseSlurmConf(slurm_conf, "t.conf", false);
  EXPECT_TRUE(c.ok()) << c.status();
  c->topology.kind = config::TopologySource::Kind::kSlurmTopologyConf;
  c->topology.origin = "topology.conf";
  c->topology.text = kTopology;
  absl::StatusOr<topology::Topology> t = topology::LoadTopology(*c);
  EXPECT_TRUE(t.ok()) << t.status();
  return {*c, *std::move(t)};
}

Cluster SmallCluster() { return LoadCluster(kSlurmConf); }

TEST(TraceTest, CanopyCsv) {
  auto jobs = ParseCanopyCsv(absl::StrCat(kHeader, "1,0,2,8,100,,alice,a\n2,5.5,1,1,10,60,bob,b\n"),
                             "t.csv");
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->size(), 2u);
  EXPECT_EQ((*jobs)[0].nodes, 2);
  EXPECT_EQ((*jobs)[0].time_limit, absl::InfiniteDuration());
  EXPECT_EQ((*jobs)[1].submit, absl::Seconds(5.5));
  EXPECT_EQ((*jobs)[1].time_limit, absl::Seconds(60));
  EXPECT_EQ((*jobs)[1].account, "b");
}

TEST(TraceTest, CanopyCsvErrorsNameFileAndLine) {
  auto bad = ParseCanopyCsv(absl::StrCat(kHeader, "1,0,2,8,100,,a,a\n2,0,x,8,1,,a,a\n"), "t.csv");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("t.csv:3: nodes"), absl::string_view::npos) << bad.status();
  EXPECT_FALSE(ParseCanopyCsv("id,x\n", "t.csv").ok());
  EXPECT_FALSE(ParseCanopyCsv(absl::StrCat(kHeader, "1,0,1,1,1\n"), "t.csv").ok());
  EXPECT_FALSE(ParseCanopyCsv(absl::StrCat(kHeader, "1,-1,1,1,1,,a,a\n"), "t.csv").ok());
  EXPECT_FALSE(ParseCanopyCsv(absl::StrCat(kHeader, "1,0,1,1,1,0,a,a\n"), "t.csv").ok());
  std::vector<TraceJob> dup =
      *ParseCanopyCsv(absl::StrCat(kHeader, "1,0,1,1,1,,a,a\n1,3,1,1,1,,a,a\n"), "t.csv");
  absl::Status s = NormalizeTrace(dup, "t.csv");
  EXPECT_NE(s.message().find("t.csv:3: duplicate job id 1"), absl::string_view::npos) << s;
}

TEST(TraceTest, Philly) {
  auto jobs = ParsePhillyCsv(
      "timestamp,duration,num_gpus,gpu_time,cluster\n"
      "2017-10-09 07:01:55,66.0,1,66.0,c1\n"
      "2017-10-09 06:00:00,10,16,160,c2\n"
      "2017-10-09 06:00:00,10,12,120,c3\n",
      "p.csv");
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->size(), 3u);
  EXPECT_EQ((*jobs)[0].submit, absl::ZeroDuration());
  EXPECT_EQ((*jobs)[0].nodes, 2);  // 16 GPUs = 2 x 8
  EXPECT_EQ((*jobs)[0].id, 1u);
  EXPECT_EQ((*jobs)[1].nodes, 2);  // 12 GPUs = ceil(12/8) x 8
  EXPECT_EQ((*jobs)[1].gpus_per_node, 8);
  EXPECT_EQ((*jobs)[2].submit, absl::Seconds(3715));
  EXPECT_EQ((*jobs)[2].gpus_per_node, 1);
  EXPECT_EQ((*jobs)[2].account, "c1");
  auto bad =
      ParsePhillyCsv("timestamp,duration,num_gpus,gpu_time,cluster\n2017-13-99,1,1,1,c\n", "p.csv");
  EXPECT_NE(bad.status().message().find("p.csv:2: timestamp"), absl::string_view::npos);
  EXPECT_FALSE(ParsePhillyCsv("timestamp,duration,num_gpus,gpu_time,cluster\n"
                              "2017-10-09 06:00:00,1,0,1,c\n",
                              "p.csv")
                   .ok());
}

TEST(TraceTest, Swf) {
  const std::string swf =
      "; Version: 2.2\n"
      "1 0 5 100 16 -1 -1 16 200 -1 1 7 3 -1 1 -1 -1 -1\n"
      "2 10 0 50 4 -1 -1 -1 -1 -1 1 8 3 -1 1 -1 -1 -1\n"
      "3 20 0 -1 4 -1 -1 4 100 -1 0 8 3 -1 1 -1 -1 -1\n";  // never ran: skipped
  auto jobs = ParseSwf(swf, "w.swf", 8);
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->size(), 2u);
  EXPECT_EQ((*jobs)[0].nodes, 2);
  EXPECT_EQ((*jobs)[0].time_limit, absl::Seconds(200));
  EXPECT_EQ((*jobs)[1].nodes, 1);
  EXPECT_EQ((*jobs)[1].gpus_per_node, 4);  // allocated processors when none were requested
  EXPECT_EQ((*jobs)[1].account, "g3");
  auto bad = ParseSwf("1 2 3\n", "w.swf", 8);
  EXPECT_NE(bad.status().message().find("w.swf:1: expected 18"), absl::string_view::npos);
  EXPECT_FALSE(ParseSwf("1 0 5 x 16 -1 -1 16 200 -1 1 7 3 -1 1 -1 -1 -1\n", "w.swf", 8).ok());
}

TEST(TraceTest, DetectFormat) {
  EXPECT_EQ(*DetectTraceFormat("a.csv", kHeader), TraceFormat::kCanopyCsv);
  EXPECT_EQ(*DetectTraceFormat("a.csv", "timestamp,duration,num_gpus,gpu_time,cluster\n"),
            TraceFormat::kPhilly);
  EXPECT_EQ(*DetectTraceFormat("a.swf", "1 2"), TraceFormat::kSwf);
  EXPECT_FALSE(DetectTraceFormat("a.txt", "what").ok());
  EXPECT_EQ(ReadTraceFile("/nonexistent/t.csv", TraceFormat::kAuto, 8).status().code(),
            absl::StatusCode::kNotFound);
}

TEST(CommModelTest, StretchGrowsWithLeavesAndLevels) {
  Cluster c = SmallCluster();
  CommCostModel m(c.topo, {});
  using core::NodeId;
  PlacementShape same_leaf = m.Shape(std::vector<NodeId>{NodeId(0), NodeId(1)});
  EXPECT_EQ(same_leaf.leaves, 1);
  EXPECT_EQ(same_leaf.level, 0);
  EXPECT_DOUBLE_EQ(m.Stretch(same_leaf, 2), 1.0);
  PlacementShape split = m.Shape(std::vector<NodeId>{NodeId(0), NodeId(2)});
  EXPECT_EQ(split.leaves, 2);
  EXPECT_EQ(split.ideal_leaves, 1);
  EXPECT_EQ(split.level, 1);
  EXPECT_DOUBLE_EQ(m.Stretch(split, 2), 1.0 + 0.10 + 0.05);
  CommCostOptions disabled;
  disabled.enabled = false;
  CommCostModel off(c.topo, disabled);
  EXPECT_DOUBLE_EQ(off.Stretch(split, 2), 1.0);
}

// A trace small enough to compute by hand on 4 nodes x 8 GPUs (32 GPUs):
//   job 1: t=0, 2 nodes x 8, 100 s  -> starts 0, ends 100 (one leaf, no stretch)
//   job 2: t=0, 3 nodes x 8, 50 s   -> must wait for job 1 (2 nodes free), starts 100, spans 2
//          leaves (ideal 2: leaves hold 2 nodes) at level 1 (ideal 1) -> stretch 1, ends 150
//   job 3: t=10, 1 node x 4, 20 s   -> fits on a free node but is queued behind job 2, so only
//          backfill may start it: at its next cycle (bf_interval 30 s), starts 30, ends 50
TEST(SimulatorTest, HandComputedMetrics) {
  Cluster c = SmallCluster();
  std::vector<TraceJob> trace = *ParseCanopyCsv(
      absl::StrCat(kHeader, "1,0,2,8,100,,u,a\n2,0,3,8,50,,u,b\n3,10,1,4,20,,u,a\n"), "t.csv");
  ASSERT_TRUE(NormalizeTrace(trace, "t.csv").ok());
  absl::StatusOr<SimResult> r = RunSimulation(c.config, c.topo, trace, {});
  ASSERT_TRUE(r.ok()) << r.status();
  const SimMetrics& m = r->metrics;
  EXPECT_EQ(m.jobs, 3);
  EXPECT_DOUBLE_EQ(m.makespan_s, 150);
  // Busy GPU-seconds: 16*100 + 24*50 + 4*20 = 2880; over 32 GPUs x 150 s.
  EXPECT_NEAR(m.gpu_utilization, 2880.0 / (32 * 150), 1e-9);
  EXPECT_NEAR(m.mean_wait_s, (0.0 + 100 + 20) / 3, 1e-9);
  EXPECT_DOUBLE_EQ(m.p95_wait_s, 100);
  // Slowdowns: 1, 150/50 = 3, 40/20 = 2 -> mean 2.
  EXPECT_NEAR(m.mean_bounded_slowdown, 2.0, 1e-9);
  EXPECT_EQ(m.multi_node_jobs, 2);
  EXPECT_DOUBLE_EQ(m.min_switch_frac, 1.0);
  EXPECT_DOUBLE_EQ(m.mean_leaf_switches, 1.5);
  ASSERT_EQ(m.accounts.size(), 2u);
  EXPECT_NEAR(m.accounts.at("a").gpu_hours, (1600.0 + 80) / 3600, 1e-9);
  EXPECT_NEAR(m.accounts.at("b").mean_wait_s, 100, 1e-9);
  EXPECT_EQ(m.requeues, 0);
}

// The same trace with agents that take 1 s to confirm a launch and 2 s to clean up: the job
// runs from its confirmation, and its GPUs stay held until its nodes are clean.
//   job 1: launched 0, runs 1..101, clean 103
//   job 2: waits for job 1's nodes to be clean: launched 103, runs 104..154, ends 156
//   job 3: launched 30 (backfill cycle), runs 31..51, ends 53
TEST(SimulatorTest, AgentDelaysShowInWaitsAndMakespan) {
  Cluster c = SmallCluster();
  std::vector<TraceJob> trace = *ParseCanopyCsv(
      absl::StrCat(kHeader, "1,0,2,8,100,,u,a\n2,0,3,8,50,,u,b\n3,10,1,4,20,,u,a\n"), "t.csv");
  ASSERT_TRUE(NormalizeTrace(trace, "t.csv").ok());
  SimOptions opts;
  opts.agents.launch = absl::Seconds(1);
  opts.agents.cleanup = absl::Seconds(2);
  absl::StatusOr<SimResult> r = RunSimulation(c.config, c.topo, trace, opts);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->metrics.jobs, 3);
  EXPECT_DOUBLE_EQ(r->metrics.makespan_s, 156);
  EXPECT_NEAR(r->metrics.mean_wait_s, (1.0 + 104 + 21) / 3, 1e-9);
}

TEST(SimulatorTest, TimeLimitAndInfeasible) {
  Cluster c = SmallCluster();
  std::vector<TraceJob> trace =
      *ParseCanopyCsv(absl::StrCat(kHeader, "1,0,1,8,100,40,u,a\n2,0,5,8,10,,u,a\n"), "t.csv");
  absl::StatusOr<SimResult> r = RunSimulation(c.config, c.topo, trace, {});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->metrics.jobs, 1);
  EXPECT_EQ(r->metrics.timeouts, 1);
  EXPECT_EQ(r->metrics.unschedulable, 1);
  EXPECT_DOUBLE_EQ(r->metrics.makespan_s, 40);
  SimOptions bad;
  bad.policy = "nope";
  EXPECT_FALSE(RunSimulation(c.config, c.topo, trace, bad).ok());
}

TEST(SimulatorTest, AJobNoNodesCanEverHoldIsFoundByAPassAndGivenUp) {
  // n[1-2] have 8 GPUs, n[3-4] only 4: three nodes of 8 GPUs pass the submission's checks
  // (the cluster has four nodes and 8-GPU nodes) but no pass can ever place them.
  constexpr char kMixed[] =
      "ClusterName=t\nTopologyPlugin=topology/tree\nGresTypes=gpu\n"
      "NodeName=n[1-2] CPUs=64 RealMemory=1000 Gres=gpu:h100:8\n"
      "NodeName=n[3-4] CPUs=64 RealMemory=1000 Gres=gpu:h100:4\n"
      "PartitionName=gpu Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n";
  Cluster mixed = LoadCluster(kMixed);
  std::vector<TraceJob> trace =
      *ParseCanopyCsv(absl::StrCat(kHeader, "1,0,1,8,100,,u,a\n2,0,3,8,10,,u,a\n"), "t.csv");
  SimOptions opts;
  opts.until = absl::Hours(1);  // without the give-up the run would only end here
  absl::StatusOr<SimResult> r = RunSimulation(mixed.config, mixed.topo, trace, opts);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->metrics.jobs, 1);
  EXPECT_EQ(r->metrics.unschedulable, 1);
}

TEST(FailureTest, SameSeedSameRun) {
  FailureInjector a({.mtbf = absl::Hours(10), .seed = 7});
  FailureInjector b({.mtbf = absl::Hours(10), .seed = 7});
  FailureInjector c({.mtbf = absl::Hours(10), .seed = 8});
  double sum = 0;
  bool differs = false;
  for (int i = 0; i < 2000; ++i) {
    const absl::Duration x = a.NextFailureIn();
    EXPECT_EQ(x, b.NextFailureIn());
    differs |= x != c.NextFailureIn();
    sum += absl::ToDoubleHours(x);
  }
  EXPECT_TRUE(differs);
  EXPECT_NEAR(sum / 2000, 10, 1.0);  // the mean of Exp(mean 10 h)

  Cluster cl = SmallCluster();
  std::string csv = kHeader;
  for (int i = 1; i <= 200; ++i) {
    absl::StrAppend(&csv, i, ",", i * 60, ",", 1 + i % 2, ",8,3600,,u,a\n");
  }
  std::vector<TraceJob> trace = *ParseCanopyCsv(csv, "t.csv");
  SimOptions opts;
  opts.failures = {.mtbf = absl::Hours(20), .repair_time = absl::Hours(1), .seed = 3};
  absl::StatusOr<SimResult> r1 = RunSimulation(cl.config, cl.topo, trace, opts);
  absl::StatusOr<SimResult> r2 = RunSimulation(cl.config, cl.topo, trace, opts);
  ASSERT_TRUE(r1.ok() && r2.ok());
  EXPECT_GT(r1->metrics.requeues, 0);
  EXPECT_EQ(r1->metrics.jobs, 200);
  EXPECT_EQ(MetricsToJson(r1->metrics), MetricsToJson(r2->metrics));
}

}  // namespace
}  // namespace canopy::sim
