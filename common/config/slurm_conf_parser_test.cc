// Tests for ParseSlurmConf: the sample clusters of tests/data, hand-written good inputs, and bad
// inputs with the exact message each must give.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "common/config/cluster_config.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::config {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::SizeIs;
using ::testing::StartsWith;

absl::StatusOr<ClusterConfig> ParseSlurm(const std::string& text) {
  return ParseSlurmConf(text, "slurm.conf", /*read_topology=*/false);
}

// The message of the InvalidArgument error that `text` must give.
std::string SlurmErrorOf(const std::string& text) {
  absl::StatusOr<ClusterConfig> config = ParseSlurm(text);
  if (config.ok()) {
    return "<parsed OK>";
  }
  EXPECT_EQ(config.status().code(), absl::StatusCode::kInvalidArgument) << config.status();
  return std::string(config.status().message());
}

constexpr char kOneSlurmNode[] = "NodeName=n1\n";

// ---------------------------------------------------------------------------------------------
// The sample clusters in tests/data/clusters.

struct SampleCluster {
  std::string dir;
  size_t nodes;
  std::string first_node;
  std::string gpu_type;
  int gpu_count;
  std::string topology_plugin;
};

// Keeps ctest's test list readable (gtest would print the struct's bytes).
void PrintTo(const SampleCluster& cluster, std::ostream* os) { *os << cluster.dir; }

class SampleClusterTest : public ::testing::TestWithParam<SampleCluster> {};

TEST_P(SampleClusterTest, Loads) {
  const SampleCluster& want = GetParam();
  const std::string dir = absl::StrCat(CANOPY_TEST_DATA_DIR, "/clusters/", want.dir);
  const std::string path = dir + "/slurm.conf";
  absl::StatusOr<ClusterConfig> config = LoadClusterConfig(path);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->format, ConfigFormat::kSlurmConf);
  EXPECT_EQ(config->path, path);
  ASSERT_EQ(config->nodes.size(), want.nodes);
  EXPECT_EQ(config->nodes.front().name, want.first_node);
  for (const NodeConfig& node : config->nodes) {
    ASSERT_THAT(node.gpus, SizeIs(1)) << node.name;
    EXPECT_EQ(node.gpus[0].type, want.gpu_type);
    EXPECT_EQ(node.gpus[0].count, want.gpu_count);
  }
  ASSERT_THAT(config->partitions, SizeIs(1));
  const PartitionConfig& gpu = config->partitions[0];
  EXPECT_EQ(gpu.name, "gpu");
  EXPECT_TRUE(gpu.is_default);
  EXPECT_TRUE(gpu.up);
  EXPECT_EQ(gpu.max_time, absl::InfiniteDuration());
  EXPECT_EQ(gpu.nodes.size(), want.nodes);
  EXPECT_EQ(config->controller_host, "127.0.0.1");
  EXPECT_EQ(ControllerAddress(*config).value(), "127.0.0.1:6817");
  EXPECT_EQ(config->topology_plugin, want.topology_plugin);
  EXPECT_THAT(config->unused_keys, Contains("SelectType"));
  EXPECT_THAT(config->unused_keys, Not(Contains("PriorityType")));
  EXPECT_TRUE(config->scheduling.priority.multifactor);
  EXPECT_TRUE(config->scheduling.scheduler.backfill);
  EXPECT_THAT(config->unused_keys, Contains("GresTypes"));
  EXPECT_THAT(config->unused_keys, Contains("NodeName.State"));
  EXPECT_EQ(config->topology.kind, TopologySource::Kind::kSlurmTopologyConf);
  EXPECT_EQ(config->topology.origin, dir + "/topology.conf");
  EXPECT_EQ(config->topology.first_line, 1);
  std::ifstream topology(dir + "/topology.conf");
  const std::string text((std::istreambuf_iterator<char>(topology)),
                         std::istreambuf_iterator<char>());
  EXPECT_EQ(config->topology.text, text);
  EXPECT_FALSE(text.empty());
}

INSTANTIATE_TEST_SUITE_P(
    Shared, SampleClusterTest,
    ::testing::Values(SampleCluster{"demo-16", 16, "gpu001", "h100", 8, "topology/tree"},
                      SampleCluster{"fat-tree-64", 64, "gpu001", "h100", 8, "topology/tree"},
                      SampleCluster{"philly-320", 320, "gpu001", "h100", 8, "topology/tree"},
                      SampleCluster{"fat-tree-16k", 16384, "gpu00001", "h100", 8, "topology/tree"},
                      SampleCluster{"gb200-nvl72-8racks", 144, "gb001", "gb200", 4,
                                    "topology/block"}),
    [](const ::testing::TestParamInfo<SampleCluster>& info) {
      std::string name = info.param.dir;
      std::replace(name.begin(), name.end(), '-', '_');
      return name;
    });

TEST(SlurmConfTest, Demo16UnusedKeysInFileOrder) {
  const std::string path = absl::StrCat(CANOPY_TEST_DATA_DIR, "/clusters/demo-16/slurm.conf");
  absl::StatusOr<ClusterConfig> config = LoadClusterConfig(path);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->cluster_name, "demo16");
  EXPECT_THAT(config->unused_keys,
              ElementsAre("SelectType", "SelectTypeParameters", "GresTypes", "NodeName.State"));
  EXPECT_EQ(config->scheduling.priority.weight_fairshare, 10000u);
  EXPECT_EQ(config->scheduling.priority.weight_age, 1000u);
  EXPECT_EQ(config->scheduling.priority.weight_job_size, 1000u);
  EXPECT_EQ(config->scheduling.priority.decay_half_life, absl::Hours(24 * 7));
  EXPECT_EQ(config->nodes[3].name, "gpu004");
  EXPECT_EQ(config->nodes[3].cpus, 64);
  EXPECT_EQ(config->nodes[3].real_memory_mib, 512000);
}

// ---------------------------------------------------------------------------------------------
// Good inputs.

TEST(SlurmConfTest, Defaults) {
  absl::StatusOr<ClusterConfig> config = ParseSlurm(kOneSlurmNode);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->cluster_name, "canopy");
  EXPECT_EQ(config->controller_host, "");
  EXPECT_EQ(config->controller_port, 6817);
  EXPECT_EQ(config->state_dir, "/var/spool/slurmctld");
  EXPECT_EQ(config->unix_socket, "/var/spool/slurmctld/canopyd.sock");
  EXPECT_EQ(config->node_timeout, absl::Seconds(300));
  EXPECT_EQ(config->heartbeat_interval, absl::Seconds(10));
  EXPECT_EQ(config->kill_wait, absl::Seconds(30));
  EXPECT_EQ(config->topology_plugin, "");
  EXPECT_EQ(config->topology.kind, TopologySource::Kind::kNone);
  EXPECT_THAT(config->partitions, IsEmpty());
  EXPECT_THAT(config->unused_keys, IsEmpty());
  ASSERT_THAT(config->nodes, SizeIs(1));
  const NodeConfig& n = config->nodes[0];
  EXPECT_EQ(n.name, "n1");
  EXPECT_EQ(n.cpus, 1);
  EXPECT_EQ(n.real_memory_mib, 1);
  EXPECT_THAT(n.gpus, IsEmpty());
  EXPECT_EQ(n.weight, 1);
  EXPECT_THAT(n.features, IsEmpty());
}

TEST(SlurmConfTest, TopLevelKeys) {
  absl::StatusOr<ClusterConfig> config = ParseSlurm(
      "clustername=alpha\n"
      "SlurmctldHost=head1(10.0.0.1)\n"
      "SlurmctldHost=head2(10.0.0.2)\n"
      "SLURMCTLDPORT=7000-7004\n"
      "StateSaveLocation=/srv/state/\n"
      "SlurmdTimeout=120 KillWait=5\n"
      "NodeName=n1\n");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->cluster_name, "alpha");
  EXPECT_EQ(config->controller_host, "10.0.0.1");
  EXPECT_EQ(config->controller_port, 7000);
  EXPECT_EQ(config->state_dir, "/srv/state/");
  EXPECT_EQ(config->unix_socket, "/srv/state/canopyd.sock");
  EXPECT_EQ(config->node_timeout, absl::Seconds(120));
  EXPECT_EQ(config->kill_wait, absl::Seconds(5));
}

TEST(SlurmConfTest, SlurmctldHostForms) {
  EXPECT_EQ(ParseSlurm("SlurmctldHost=head\nNodeName=n1").value().controller_host, "head");
  EXPECT_EQ(ParseSlurm("SlurmctldHost=localhost\nNodeName=n1").value().controller_host,
            "127.0.0.1");
  EXPECT_EQ(ParseSlurm("SlurmctldHost=head(localhost)\nNodeName=n1").value().controller_host,
            "127.0.0.1");
  EXPECT_EQ(ParseSlurm("SlurmctldHost=head(fd00::1)\nNodeName=n1").value().controller_host,
            "fd00::1");
  // Pre-17.11 spelling, used only without SlurmctldHost.
  EXPECT_EQ(ParseSlurm("ControlMachine=old\nNodeName=n1").value().controller_host, "old");
  EXPECT_EQ(
      ParseSlurm("ControlMachine=old ControlAddr=10.1.1.1\nNodeName=n1").value().controller_host,
      "10.1.1.1");
  EXPECT_EQ(
      ParseSlurm("ControlMachine=old\nSlurmctldHost=new\nNodeName=n1").value().controller_host,
      "new");
}

TEST(SlurmConfTest, SlurmdTimeoutZeroMeansNever) {
  EXPECT_EQ(ParseSlurm("SlurmdTimeout=0\nNodeName=n1").value().node_timeout,
            absl::InfiniteDuration());
}

TEST(SlurmConfTest, NodeKeys) {
  absl::StatusOr<ClusterConfig> config = ParseSlurm(
      "NodeName=a[1-2] CPUs=128 RealMemory=1024000 Gres=gpu:a100:4,gpu:v100:2 Weight=10 "
      "Features=ib,nvlink\n");
  ASSERT_TRUE(config.ok()) << config.status();
  ASSERT_THAT(config->nodes, SizeIs(2));
  const NodeConfig& n = config->nodes[1];
  EXPECT_EQ(n.name, "a2");
  EXPECT_EQ(n.cpus, 128);
  EXPECT_EQ(n.real_memory_mib, 1024000);
  ASSERT_THAT(n.gpus, SizeIs(2));
  EXPECT_EQ(n.gpus[0].type, "a100");
  EXPECT_EQ(n.gpus[0].count, 4);
  EXPECT_EQ(n.gpus[1].type, "v100");
  EXPECT_EQ(n.gpus[1].count, 2);
  EXPECT_EQ(n.weight, 10);
  EXPECT_THAT(n.features, ElementsAre("ib", "nvlink"));
}

TEST(SlurmConfTest, QuotedValuesAndFeatures) {
  absl::StatusOr<ClusterConfig> config =
      ParseSlurm("NodeName=n1 Features=\"ib, nvlink,,big\" Reason=\"rack 4 power\"\n");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_THAT(config->nodes[0].features, ElementsAre("ib", "nvlink", "big"));
  EXPECT_THAT(config->unused_keys, ElementsAre("NodeName.Reason"));
}

TEST(SlurmConfTest, GresForms) {
  auto gpus_of = [](const std::string& gres) {
    absl::StatusOr<ClusterConfig> config = ParseSlurm("NodeName=n1 Gres=" + gres);
    EXPECT_TRUE(config.ok()) << gres << ": " << config.status();
    std::vector<std::string> out;
    if (config.ok()) {
      for (const GpuConfig& g : config->nodes[0].gpus) {
        out.push_back(absl::StrCat(g.type, "*", g.count));
      }
    }
    return out;
  };
  EXPECT_THAT(gpus_of("gpu:8"), ElementsAre("*8"));
  EXPECT_THAT(gpus_of("gpu"), ElementsAre("*1"));
  EXPECT_THAT(gpus_of("gpu:h100"), ElementsAre("h100*1"));
  EXPECT_THAT(gpus_of("GPU:h100:8"), ElementsAre("h100*8"));
  EXPECT_THAT(gpus_of("gpu:h100:8(S:0-1)"), ElementsAre("h100*8"));
  EXPECT_THAT(gpus_of("gpu:h100:no_consume:8"), ElementsAre("h100*8"));
  EXPECT_THAT(gpus_of("gpu:a100:2(S:0,1),gpu:v100:1"), ElementsAre("a100*2", "v100*1"));
  EXPECT_THAT(gpus_of("gpu:0"), IsEmpty());
  EXPECT_THAT(gpus_of("(null)"), IsEmpty());
  EXPECT_THAT(gpus_of("mps:100,gpu:4"), ElementsAre("*4"));
  EXPECT_THAT(ParseSlurm("NodeName=n1 Gres=mps:100,nvme:1,mps:5").value().unused_keys,
              ElementsAre("gres/mps", "gres/nvme"));
}

TEST(SlurmConfTest, CpusFromSocketsCoresThreads) {
  EXPECT_EQ(
      ParseSlurm("NodeName=n1 Sockets=2 CoresPerSocket=32 ThreadsPerCore=2").value().nodes[0].cpus,
      128);
  EXPECT_EQ(
      ParseSlurm("NodeName=n1 Boards=2 SocketsPerBoard=2 CoresPerSocket=8").value().nodes[0].cpus,
      32);
  EXPECT_EQ(ParseSlurm("NodeName=n1 CPUs=7 Sockets=2 CoresPerSocket=32").value().nodes[0].cpus, 7);
}

TEST(SlurmConfTest, NodeDefaults) {
  absl::StatusOr<ClusterConfig> config = ParseSlurm(
      "NodeName=DEFAULT CPUs=64 Gres=gpu:h100:8\n"
      "NodeName=a1 RealMemory=100\n"
      "NodeName=DEFAULT RealMemory=200\n"  // adds to the defaults, keeps CPUs and Gres
      "NodeName=a2 Gres=gpu:a100:4\n"
      "nodename=default cpus=2\n"
      "NodeName=a3\n");
  ASSERT_TRUE(config.ok()) << config.status();
  ASSERT_THAT(config->nodes, SizeIs(3));
  EXPECT_EQ(config->nodes[0].cpus, 64);
  EXPECT_EQ(config->nodes[0].real_memory_mib, 100);
  EXPECT_EQ(config->nodes[0].gpus[0].type, "h100");
  EXPECT_EQ(config->nodes[1].real_memory_mib, 200);
  EXPECT_EQ(config->nodes[1].gpus[0].type, "a100");
  EXPECT_EQ(config->nodes[2].cpus, 2);
  EXPECT_EQ(config->nodes[2].real_memory_mib, 200);
  EXPECT_EQ(config->nodes[2].gpus[0].type, "h100");
}

TEST(SlurmConfTest, PartitionKeys) {
  absl::StatusOr<ClusterConfig> config = ParseSlurm(
      "NodeName=n[1-4]\n"
      "PartitionName=batch Nodes=n[1-3],n2 Default=YES MaxTime=1-00:00:00 DefaultTime=30 "
      "MaxNodes=2 State=DRAIN OverSubscribe=NO\n"
      "PartitionName=all Nodes=all MaxTime=UNLIMITED DefaultTime=NONE MaxNodes=UNLIMITED "
      "State=up\n");
  ASSERT_TRUE(config.ok()) << config.status();
  ASSERT_THAT(config->partitions, SizeIs(2));
  const PartitionConfig& batch = config->partitions[0];
  EXPECT_EQ(batch.name, "batch");
  EXPECT_THAT(batch.nodes, ElementsAre("n1", "n2", "n3"));  // repeated n2 dropped
  EXPECT_TRUE(batch.is_default);
  EXPECT_FALSE(batch.up);
  EXPECT_EQ(batch.max_time, absl::Hours(24));
  EXPECT_EQ(batch.default_time, absl::Minutes(30));
  EXPECT_EQ(batch.max_nodes, 2);
  const PartitionConfig& all = config->partitions[1];
  EXPECT_THAT(all.nodes, ElementsAre("n1", "n2", "n3", "n4"));
  EXPECT_FALSE(all.is_default);
  EXPECT_TRUE(all.up);
  EXPECT_EQ(all.max_time, absl::InfiniteDuration());
  EXPECT_EQ(all.default_time, absl::InfiniteDuration());
  EXPECT_EQ(all.max_nodes, -1);
  EXPECT_THAT(config->unused_keys, ElementsAre("PartitionName.OverSubscribe"));
}

TEST(SlurmConfTest, PartitionAllIncludesNodesDefinedLater) {
  absl::StatusOr<ClusterConfig> config =
      ParseSlurm("PartitionName=p Nodes=ALL\nNodeName=a\nNodeName=b\n");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_THAT(config->partitions[0].nodes, ElementsAre("a", "b"));
}

TEST(SlurmConfTest, PartitionDefaults) {
  absl::StatusOr<ClusterConfig> config = ParseSlurm(
      "NodeName=n[1-2]\n"
      "PartitionName=DEFAULT Nodes=ALL MaxTime=60 State=DOWN\n"
      "PartitionName=a\n"
      "PartitionName=b Nodes=n1 State=UP\n");
  ASSERT_TRUE(config.ok()) << config.status();
  ASSERT_THAT(config->partitions, SizeIs(2));
  EXPECT_THAT(config->partitions[0].nodes, ElementsAre("n1", "n2"));
  EXPECT_EQ(config->partitions[0].max_time, absl::Hours(1));
  EXPECT_FALSE(config->partitions[0].up);
  EXPECT_THAT(config->partitions[1].nodes, ElementsAre("n1"));
  EXPECT_EQ(config->partitions[1].max_time, absl::Hours(1));
  EXPECT_TRUE(config->partitions[1].up);
}

TEST(SlurmConfTest, LexicalForms) {
  absl::StatusOr<ClusterConfig> config = ParseSlurm(
      "# comment line\r\n"
      "   \t\r\n"
      "ClusterName=c\\#1   # trailing comment\r\n"
      "NodeName=n1 \\\n"
      "  CPUs=4 \\\n"
      "  Weight=3\n"
      "ClusterName=x NodeName=n2 CPUs=2\n");  // an object key takes the rest of the line
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->cluster_name, "x");
  ASSERT_THAT(config->nodes, SizeIs(2));
  EXPECT_EQ(config->nodes[0].cpus, 4);
  EXPECT_EQ(config->nodes[0].weight, 3);
  EXPECT_EQ(config->nodes[1].cpus, 2);
  EXPECT_EQ(ParseSlurm("ClusterName=c\\#1\nNodeName=n").value().cluster_name, "c#1");
}

TEST(SlurmConfTest, UnusedKeysOnceInFileOrder) {
  absl::StatusOr<ClusterConfig> config = ParseSlurm(
      "SelectType=select/cons_tres\n"
      "CredType=cred/munge\n"
      "selecttype=select/linear\n"
      "NodeSet=ns Nodes=n1\n"
      "DownNodes=n1 State=DOWN\n"
      "NodeName=n1 State=IDLE Sockets=1 NodeAddr=x\n"
      "NodeName=n2 State=IDLE\n"
      "TopologyParam=SwitchAsNodeRank\n");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_THAT(config->unused_keys, ElementsAre("SelectType", "CredType", "NodeSet", "DownNodes",
                                               "NodeName.State", "TopologyParam"));
  EXPECT_EQ(config->nodes[0].addr, "x");
  EXPECT_EQ(config->nodes[1].addr, "");
}

TEST(SlurmConfTest, TopologyPluginValues) {
  EXPECT_EQ(ParseSlurm("TopologyPlugin=topology/flat\nNodeName=n").value().topology_plugin, "");
  EXPECT_EQ(ParseSlurm("TopologyPlugin=topology/none\nNodeName=n").value().topology_plugin, "");
  EXPECT_EQ(ParseSlurm("TopologyPlugin=topology/default\nNodeName=n").value().topology_plugin, "");
  absl::StatusOr<ClusterConfig> tree =
      ParseSlurmConf("TopologyPlugin=Topology/Tree\nNodeName=n", "/etc/slurm/slurm.conf", false);
  ASSERT_TRUE(tree.ok()) << tree.status();
  EXPECT_EQ(tree->topology_plugin, "topology/tree");
  EXPECT_EQ(tree->topology.kind, TopologySource::Kind::kNone);  // not read: read_topology=false
  EXPECT_EQ(tree->topology.origin, "/etc/slurm/topology.conf");
}

TEST(SlurmConfTest, MissingTopologyConfIsNotFound) {
  const std::string dir = ::testing::TempDir() + "/canopy_config_no_topology";
  std::filesystem::create_directories(dir);
  std::filesystem::remove(dir + "/topology.conf");
  absl::StatusOr<ClusterConfig> config =
      ParseSlurmConf("NodeName=n\nTopologyPlugin=topology/block\n", dir + "/slurm.conf");
  ASSERT_FALSE(config.ok());
  EXPECT_EQ(config.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(config.status().message(),
            absl::StrCat(dir,
                         "/slurm.conf:2: TopologyPlugin=topology/block needs topology.conf: "
                         "cannot open ",
                         dir, "/topology.conf: No such file or directory"));
}

// ---------------------------------------------------------------------------------------------
// Bad inputs, each with its exact message.

TEST(SlurmConfErrorTest, NodeValues) {
  EXPECT_EQ(SlurmErrorOf("ClusterName=c\n\nNodeName=gpu[001-016] CPUs=x"),
            "slurm.conf:3: NodeName=gpu[001-016]: CPUs: expected a positive integer, got 'x'");
  EXPECT_EQ(SlurmErrorOf("NodeName=n CPUs=0"),
            "slurm.conf:1: NodeName=n: CPUs: expected a positive integer, got '0'");
  EXPECT_EQ(SlurmErrorOf("NodeName=n CPUs=-4"),
            "slurm.conf:1: NodeName=n: CPUs: expected a positive integer, got '-4'");
  EXPECT_EQ(SlurmErrorOf("NodeName=n CPUs=99999999999"),
            "slurm.conf:1: NodeName=n: CPUs: expected a positive integer, got '99999999999'");
  EXPECT_EQ(SlurmErrorOf("NodeName=n CPUs="),
            "slurm.conf:1: NodeName=n: CPUs: expected a positive integer, got ''");
  EXPECT_EQ(SlurmErrorOf("NodeName=n RealMemory=1G"),
            "slurm.conf:1: NodeName=n: RealMemory: expected a positive number of MiB, got '1G'");
  EXPECT_EQ(SlurmErrorOf("NodeName=n Weight=-1"),
            "slurm.conf:1: NodeName=n: Weight: expected a non-negative integer, got '-1'");
  EXPECT_EQ(SlurmErrorOf("NodeName=n Sockets=two"),
            "slurm.conf:1: NodeName=n: Sockets: expected a positive integer, got 'two'");
  EXPECT_EQ(SlurmErrorOf("NodeName=n Sockets=65536 CoresPerSocket=65536"),
            "slurm.conf:1: NodeName=n: CPUs: Sockets x CoresPerSocket x ThreadsPerCore is too "
            "large");
  EXPECT_EQ(SlurmErrorOf("NodeName=DEFAULT CPUs=abc\nNodeName=n"),
            "slurm.conf:1: NodeName=DEFAULT: CPUs: expected a positive integer, got 'abc'");
  EXPECT_EQ(SlurmErrorOf("NodeName=n CPUs"),
            "slurm.conf:1: NodeName=n: expected Key=Value, got 'CPUs'");
  EXPECT_EQ(SlurmErrorOf("NodeName=a CPUs=2 NodeName=b"),
            "slurm.conf:1: NodeName=a: NodeName: start a new line for each NodeName or "
            "PartitionName");
  EXPECT_EQ(SlurmErrorOf("NodeName=n Features=ib, big"),
            "slurm.conf:1: NodeName=n: expected Key=Value, got 'big'");
}

TEST(SlurmConfErrorTest, Gres) {
  EXPECT_EQ(SlurmErrorOf("NodeName=n Gres=gpu:h100:x"),
            "slurm.conf:1: NodeName=n: Gres: expected gpu[:type]:count with a whole-number "
            "count, got 'gpu:h100:x'");
  EXPECT_EQ(SlurmErrorOf("NodeName=n Gres=gpu:a:b:8"),
            "slurm.conf:1: NodeName=n: Gres: expected gpu[:type]:count, got 'gpu:a:b:8'");
  EXPECT_EQ(SlurmErrorOf("NodeName=n Gres=gpu::8"),
            "slurm.conf:1: NodeName=n: Gres: expected gpu[:type]:count, got 'gpu::8'");
  EXPECT_EQ(SlurmErrorOf("NodeName=n Gres=gpu:h100:8,"),
            "slurm.conf:1: NodeName=n: Gres: expected name[:type][:count] entries separated by "
            "commas, got ''");
  EXPECT_EQ(SlurmErrorOf("NodeName=n Gres=gpu:8(S:0"),
            "slurm.conf:1: NodeName=n: Gres: expected name[:type][:count] entries separated by "
            "commas, got 'gpu:8(S:0'");
  EXPECT_EQ(SlurmErrorOf("NodeName=n Gres=gpu:h100:8,gpu:h100:2"),
            "slurm.conf:1: NodeName=n: Gres: gpu type 'h100' is listed twice in "
            "'gpu:h100:8,gpu:h100:2'");
}

TEST(SlurmConfErrorTest, NodeNames) {
  EXPECT_EQ(SlurmErrorOf("NodeName="),
            "slurm.conf:1: NodeName: expected a hostlist such as gpu[001-016], got ''");
  EXPECT_EQ(SlurmErrorOf("NodeName=a[1-4]\nNodeName=a[4-5]"),
            "slurm.conf:2: NodeName=a[4-5]: node 'a4' is already defined on line 1");
  EXPECT_EQ(SlurmErrorOf("NodeName=a,b,a"),
            "slurm.conf:1: NodeName=a,b,a: node 'a' is already defined on line 1");
  EXPECT_THAT(SlurmErrorOf("NodeName=gpu[1-"), StartsWith("slurm.conf:1: NodeName=gpu[1-: "));
}

TEST(SlurmConfErrorTest, Partitions) {
  EXPECT_EQ(SlurmErrorOf("NodeName=n[1-2]\nPartitionName=p Nodes=n[2-3]"),
            "slurm.conf:2: PartitionName=p: Nodes: unknown node 'n3' (no node entry defines it)");
  EXPECT_EQ(SlurmErrorOf("NodeName=n\nPartitionName=DEFAULT Nodes=m\nPartitionName=p"),
            "slurm.conf:2: PartitionName=DEFAULT: Nodes: unknown node 'm' (no node entry "
            "defines it)");
  EXPECT_EQ(SlurmErrorOf("NodeName=n\nPartitionName=a Default=YES\nPartitionName=b Default=yes"),
            "slurm.conf:3: PartitionName=b: Default: only one partition can be the default, and "
            "partition 'a' (line 2) already is");
  EXPECT_EQ(SlurmErrorOf("NodeName=n\nPartitionName=a\n#\nPartitionName=a"),
            "slurm.conf:4: PartitionName: partition 'a' is already defined on line 2");
  EXPECT_EQ(SlurmErrorOf("NodeName=n\nPartitionName=a Default=maybe"),
            "slurm.conf:2: PartitionName=a: Default: expected YES or NO, got 'maybe'");
  EXPECT_EQ(SlurmErrorOf("NodeName=n\nPartitionName=a State=OPEN"),
            "slurm.conf:2: PartitionName=a: State: expected UP, DOWN, DRAIN or INACTIVE, got "
            "'OPEN'");
  EXPECT_EQ(SlurmErrorOf("NodeName=n\nPartitionName=a MaxTime=1h"),
            "slurm.conf:2: PartitionName=a: MaxTime: expected a Slurm time (MINUTES, "
            "MINUTES:SECONDS, HOURS:MINUTES:SECONDS, DAYS-HOURS, DAYS-HOURS:MINUTES, "
            "DAYS-HOURS:MINUTES:SECONDS or UNLIMITED), got '1h'");
  EXPECT_THAT(SlurmErrorOf("NodeName=n\nPartitionName=a DefaultTime=soon"),
              StartsWith("slurm.conf:2: PartitionName=a: DefaultTime: expected a Slurm time"));
  EXPECT_EQ(SlurmErrorOf("NodeName=n\nPartitionName=a MaxNodes=-1"),
            "slurm.conf:2: PartitionName=a: MaxNodes: expected a non-negative integer or "
            "UNLIMITED, got '-1'");
  EXPECT_EQ(SlurmErrorOf("NodeName=n\nPartitionName="),
            "slurm.conf:2: PartitionName: expected a partition name, got ''");
  EXPECT_THAT(SlurmErrorOf("NodeName=n\nPartitionName=p Nodes=n[1"),
              StartsWith("slurm.conf:2: PartitionName=p: Nodes: "));
}

TEST(SlurmConfErrorTest, TopLevelValues) {
  EXPECT_EQ(SlurmErrorOf("SlurmctldPort=70000\nNodeName=n"),
            "slurm.conf:1: SlurmctldPort: expected a port (1-65535) or a range such as "
            "6817-6818, got '70000'");
  EXPECT_EQ(SlurmErrorOf("SlurmctldPort=0\nNodeName=n"),
            "slurm.conf:1: SlurmctldPort: expected a port (1-65535) or a range such as "
            "6817-6818, got '0'");
  EXPECT_EQ(SlurmErrorOf("SlurmctldPort=6818-6817\nNodeName=n"),
            "slurm.conf:1: SlurmctldPort: expected a port (1-65535) or a range such as "
            "6817-6818, got '6818-6817'");
  EXPECT_EQ(SlurmErrorOf("SlurmctldPort=1-2-3\nNodeName=n"),
            "slurm.conf:1: SlurmctldPort: expected a port (1-65535) or a range such as "
            "6817-6818, got '1-2-3'");
  EXPECT_EQ(SlurmErrorOf("SlurmctldHost=head(10.0.0.1\nNodeName=n"),
            "slurm.conf:1: SlurmctldHost: expected host or host(address), got 'head(10.0.0.1'");
  EXPECT_EQ(SlurmErrorOf("SlurmctldHost=(10.0.0.1)\nNodeName=n"),
            "slurm.conf:1: SlurmctldHost: expected host or host(address), got '(10.0.0.1)'");
  EXPECT_EQ(SlurmErrorOf("SlurmctldHost=head()\nNodeName=n"),
            "slurm.conf:1: SlurmctldHost: expected host or host(address), got 'head()'");
  EXPECT_EQ(SlurmErrorOf("SlurmctldHost=\nNodeName=n"),
            "slurm.conf:1: SlurmctldHost: expected host or host(address), got ''");
  EXPECT_EQ(SlurmErrorOf("ClusterName=\nNodeName=n"),
            "slurm.conf:1: ClusterName: expected a name, got ''");
  EXPECT_EQ(SlurmErrorOf("SlurmdTimeout=5m\nNodeName=n"),
            "slurm.conf:1: SlurmdTimeout: expected a number of seconds, got '5m'");
  EXPECT_EQ(SlurmErrorOf("KillWait=-1\nNodeName=n"),
            "slurm.conf:1: KillWait: expected a number of seconds, got '-1'");
  EXPECT_EQ(SlurmErrorOf("TopologyPlugin=topology/3d_torus\nNodeName=n"),
            "slurm.conf:1: TopologyPlugin: expected topology/tree, topology/block or "
            "topology/flat (Canopy supports no other), got 'topology/3d_torus'");
}

TEST(SlurmConfErrorTest, Syntax) {
  EXPECT_EQ(SlurmErrorOf(""), "slurm.conf: no nodes defined (expected at least one NodeName line)");
  EXPECT_EQ(SlurmErrorOf("# only a comment\n\n"),
            "slurm.conf: no nodes defined (expected at least one NodeName line)");
  EXPECT_EQ(SlurmErrorOf("ClusterName=x\nPartitionName=p"),
            "slurm.conf: no nodes defined (expected at least one NodeName line)");
  EXPECT_EQ(SlurmErrorOf("="), "slurm.conf:1: expected Key=Value, got '='");
  EXPECT_EQ(SlurmErrorOf("=value"), "slurm.conf:1: expected Key=Value, got '=value'");
  EXPECT_EQ(SlurmErrorOf("NodeName=n\nClusterName x"),
            "slurm.conf:2: expected Key=Value, got 'ClusterName'");
  EXPECT_EQ(SlurmErrorOf("Cluster-Name=x"),
            "slurm.conf:1: invalid key 'Cluster-Name' (keys are letters, digits and '_')");
  EXPECT_EQ(SlurmErrorOf("NodeName=n Features=\"ib"),
            "slurm.conf:1: unterminated quote in 'Features=ib'");
  EXPECT_EQ(SlurmErrorOf("include /etc/slurm/nodes.conf\nNodeName=n"),
            "slurm.conf:1: include '/etc/slurm/nodes.conf': include is not supported; copy that "
            "file's lines into this one");
  EXPECT_EQ(SlurmErrorOf("Include"),
            "slurm.conf:1: include '': include is not supported; copy that file's lines into "
            "this one");
  EXPECT_EQ(SlurmErrorOf(std::string("\x01\xff\x00=junk\n", 8)),
            "slurm.conf:1: invalid key '\\x01\\xff\\x00' (keys are letters, digits and '_')");
}

TEST(SlurmConfErrorTest, LongValuesAreCut) {
  const std::string long_value(500, 'x');
  EXPECT_EQ(SlurmErrorOf("NodeName=n CPUs=" + long_value),
            "slurm.conf:1: NodeName=n: CPUs: expected a positive integer, got '" +
                std::string(80, 'x') + "...'");
}

// Whatever the bytes, parsing returns a config or an error and never crashes: mutate a valid
// file at random (fixed seed, so a failure is reproducible).
TEST(SlurmConfFuzzTest, RandomMutationsNeverCrash) {
  const std::string base =
      "ClusterName=demo\nSlurmctldHost=head(10.0.0.1)\nSlurmctldPort=6817-6818\n"
      "NodeName=DEFAULT CPUs=64 Gres=gpu:h100:8\n"
      "NodeName=gpu[001-016] RealMemory=512000 Features=\"ib,nvlink\" State=UNKNOWN \\\n"
      "  Weight=2\nPartitionName=gpu Nodes=ALL Default=YES MaxTime=1-00:00:00 State=UP\n"
      "PartitionName=dbg Nodes=gpu[001-002] MaxNodes=2 DefaultTime=30\n";
  ASSERT_TRUE(ParseSlurm(base).ok());
  std::mt19937 rng(20240601);
  const std::string alphabet = "=#\\\"[]-,:()\n \tx0 9\x01\xff";
  int parsed = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string text = base;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const size_t pos = rng() % text.size();
      switch (rng() % 3) {
        case 0:
          text[pos] = alphabet[rng() % alphabet.size()];
          break;
        case 1:
          text.erase(pos, 1 + rng() % 8);
          break;
        default:
          text.insert(pos, 1, alphabet[rng() % alphabet.size()]);
      }
      if (text.empty()) {
        text = "x";
      }
    }
    absl::StatusOr<ClusterConfig> config = ParseSlurm(text);
    if (config.ok()) {
      ++parsed;
    } else {
      EXPECT_EQ(config.status().code(), absl::StatusCode::kInvalidArgument) << config.status();
      EXPECT_THAT(std::string(config.status().message()), StartsWith("slurm.conf"));
    }
  }
  EXPECT_GT(parsed, 0);  // the mutations are not all fatal
}

}  // namespace
}  // namespace canopy::config
