// Tests for ParseCanopyYaml: the documented example, a YAML twin of the demo-16 slurm.conf,
// every accepted spelling, and bad inputs with the exact message each must give.
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/config/cluster_config.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::StartsWith;

absl::StatusOr<ClusterConfig> ParseYaml(const std::string& text) {
  return ParseCanopyYaml(text, "canopy.yaml", /*read_topology=*/false);
}

std::string YamlErrorOf(const std::string& text) {
  absl::StatusOr<ClusterConfig> config = ParseYaml(text);
  if (config.ok()) {
    return "<parsed OK>";
  }
  EXPECT_EQ(config.status().code(), absl::StatusCode::kInvalidArgument) << config.status();
  return std::string(config.status().message());
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

constexpr char kOneYamlNode[] = "nodes:\n  - names: n1\n";

// ---------------------------------------------------------------------------------------------
// The documented example and the demo-16 twin.

// The first ```yaml block of docs/formats/config.md, so the documentation cannot rot.
std::string DocumentedExample() {
  const std::string doc = ReadFile(absl::StrCat(CANOPY_SOURCE_DIR, "/docs/formats/config.md"));
  const std::string open = "```yaml\n";
  const size_t start = doc.find(open);
  if (start == std::string::npos) {
    return "";
  }
  const size_t end = doc.find("```", start + open.size());
  return doc.substr(start + open.size(), end - start - open.size());
}

TEST(CanopyYamlTest, DocumentedExample) {
  const std::string text = DocumentedExample();
  ASSERT_FALSE(text.empty()) << "no ```yaml block in docs/formats/config.md";
  absl::StatusOr<ClusterConfig> config = ParseCanopyYaml(text, "canopy.yaml");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->format, ConfigFormat::kCanopyYaml);
  EXPECT_EQ(config->path, "canopy.yaml");
  EXPECT_EQ(config->cluster_name, "demo16");
  EXPECT_EQ(config->controller_host, "head01");
  EXPECT_EQ(config->controller_port, 6817);
  EXPECT_EQ(config->unix_socket, "/var/spool/canopy/canopyd.sock");
  EXPECT_EQ(config->state_dir, "/var/spool/canopy");
  EXPECT_EQ(config->node_timeout, absl::Minutes(5));
  EXPECT_EQ(config->heartbeat_interval, absl::Seconds(10));
  EXPECT_EQ(config->kill_wait, absl::Seconds(30));
  ASSERT_THAT(config->nodes, SizeIs(16));
  const NodeConfig& n = config->nodes[15];
  EXPECT_EQ(n.name, "gpu016");
  EXPECT_EQ(n.cpus, 64);
  EXPECT_EQ(n.real_memory_mib, 512000);
  ASSERT_THAT(n.gpus, SizeIs(1));
  EXPECT_EQ(n.gpus[0].type, "h100");
  EXPECT_EQ(n.gpus[0].count, 8);
  EXPECT_EQ(n.weight, 1);
  EXPECT_THAT(n.features, ElementsAre("ib", "nvlink"));
  ASSERT_THAT(config->partitions, SizeIs(2));
  const PartitionConfig& gpu = config->partitions[0];
  EXPECT_EQ(gpu.name, "gpu");
  EXPECT_THAT(gpu.nodes, SizeIs(16));
  EXPECT_TRUE(gpu.is_default);
  EXPECT_TRUE(gpu.up);
  EXPECT_EQ(gpu.max_time, absl::InfiniteDuration());
  EXPECT_EQ(gpu.default_time, absl::Hours(4));
  EXPECT_EQ(gpu.max_nodes, -1);
  const PartitionConfig& debug = config->partitions[1];
  EXPECT_THAT(debug.nodes, ElementsAre("gpu001", "gpu002"));
  EXPECT_FALSE(debug.is_default);
  EXPECT_EQ(debug.max_time, absl::Minutes(30));
  EXPECT_EQ(debug.default_time, absl::InfiniteDuration());
  EXPECT_EQ(debug.max_nodes, 2);
  EXPECT_EQ(config->topology_plugin, "topology/tree");
  EXPECT_EQ(config->topology.kind, TopologySource::Kind::kYaml);
  EXPECT_EQ(config->topology.origin, "canopy.yaml");
  EXPECT_THAT(config->topology.text, StartsWith("switches:\n"));
  EXPECT_THAT(config->topology.text, HasSubstr("leaf[001-002]"));
  // first_line is the line of the section's first key ("  switches:").
  int line = 1;
  for (size_t i = 0; i < text.find("  switches:"); ++i) {
    line += text[i] == '\n';
  }
  EXPECT_EQ(config->topology.first_line, line);
  EXPECT_THAT(config->unused_keys, IsEmpty());
}

TEST(CanopyYamlTest, SameClusterAsDemo16SlurmConf) {
  const std::string dir = absl::StrCat(CANOPY_TEST_DATA_DIR, "/clusters/demo-16");
  // The origin sits in the cluster's folder so topology_file finds the real topology.conf.
  absl::StatusOr<ClusterConfig> yaml = ParseCanopyYaml(R"(
cluster_name: demo16
controller: {host: localhost}
nodes:
  - names: gpu[001-016]
    cpus: 64
    memory_mib: 512000
    gpus: {type: h100, count: 8}
partitions:
  - {name: gpu, nodes: ALL, default: yes, max_time: INFINITE, state: UP}
topology_file: topology.conf
)",
                                                       dir + "/canopy.yaml");
  ASSERT_TRUE(yaml.ok()) << yaml.status();
  absl::StatusOr<ClusterConfig> slurm = LoadClusterConfig(dir + "/slurm.conf");
  ASSERT_TRUE(slurm.ok()) << slurm.status();

  EXPECT_EQ(yaml->cluster_name, slurm->cluster_name);
  EXPECT_EQ(ControllerAddress(*yaml).value(), ControllerAddress(*slurm).value());
  ASSERT_EQ(yaml->nodes.size(), slurm->nodes.size());
  for (size_t i = 0; i < yaml->nodes.size(); ++i) {
    const NodeConfig& a = yaml->nodes[i];
    const NodeConfig& b = slurm->nodes[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.cpus, b.cpus);
    EXPECT_EQ(a.real_memory_mib, b.real_memory_mib);
    ASSERT_EQ(a.gpus.size(), b.gpus.size());
    EXPECT_EQ(a.gpus[0].type, b.gpus[0].type);
    EXPECT_EQ(a.gpus[0].count, b.gpus[0].count);
    EXPECT_EQ(a.weight, b.weight);
    EXPECT_EQ(a.features, b.features);
  }
  ASSERT_EQ(yaml->partitions.size(), slurm->partitions.size());
  for (size_t i = 0; i < yaml->partitions.size(); ++i) {
    const PartitionConfig& a = yaml->partitions[i];
    const PartitionConfig& b = slurm->partitions[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.nodes, b.nodes);
    EXPECT_EQ(a.is_default, b.is_default);
    EXPECT_EQ(a.up, b.up);
    EXPECT_EQ(a.max_time, b.max_time);
    EXPECT_EQ(a.default_time, b.default_time);
    EXPECT_EQ(a.max_nodes, b.max_nodes);
  }
  EXPECT_EQ(yaml->topology_plugin, slurm->topology_plugin);
  EXPECT_EQ(yaml->topology.kind, TopologySource::Kind::kSlurmTopologyConf);
  EXPECT_EQ(yaml->topology.origin, slurm->topology.origin);
  EXPECT_EQ(yaml->topology.text, slurm->topology.text);
}

// ---------------------------------------------------------------------------------------------
// Good inputs.

TEST(CanopyYamlTest, Defaults) {
  absl::StatusOr<ClusterConfig> config = ParseYaml(kOneYamlNode);
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->cluster_name, "canopy");
  EXPECT_EQ(config->controller_host, "");
  EXPECT_EQ(config->controller_port, 6817);
  EXPECT_EQ(config->state_dir, "/var/spool/canopy");
  EXPECT_EQ(config->unix_socket, "/var/spool/canopy/canopyd.sock");
  EXPECT_EQ(config->node_timeout, absl::Seconds(300));
  EXPECT_EQ(config->heartbeat_interval, absl::Seconds(10));
  EXPECT_EQ(config->kill_wait, absl::Seconds(30));
  EXPECT_EQ(config->topology_plugin, "");
  EXPECT_EQ(config->topology.kind, TopologySource::Kind::kNone);
  EXPECT_THAT(config->partitions, IsEmpty());
  ASSERT_THAT(config->nodes, SizeIs(1));
  EXPECT_EQ(config->nodes[0].cpus, 1);
  EXPECT_EQ(config->nodes[0].real_memory_mib, 1);
  EXPECT_EQ(config->nodes[0].weight, 1);
}

// The CPU layout reads the same from YAML as from slurm.conf's Sockets/CoresPerSocket/
// ThreadsPerCore: missing parts count one, and the product is the CPU count unless given.
TEST(CanopyYamlTest, CpuLayoutMatchesSlurmConf) {
  absl::StatusOr<ClusterConfig> yaml = ParseYaml(R"(
nodes:
  - names: a[1-2]
    sockets: 2
    cores_per_socket: 16
  - names: b1
    cpus: 8
)");
  ASSERT_TRUE(yaml.ok()) << yaml.status();
  absl::StatusOr<ClusterConfig> slurm = ParseSlurmConf(
      "NodeName=a[1-2] Sockets=2 CoresPerSocket=16\nNodeName=b1 CPUs=8\n", "slurm.conf",
      /*read_topology=*/false);
  ASSERT_TRUE(slurm.ok()) << slurm.status();
  ASSERT_EQ(yaml->nodes.size(), 3u);
  ASSERT_EQ(slurm->nodes.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const NodeConfig& a = yaml->nodes[i];
    const NodeConfig& b = slurm->nodes[i];
    EXPECT_EQ(a.cpus, b.cpus) << a.name;
    EXPECT_EQ(a.boards, b.boards) << a.name;
    EXPECT_EQ(a.sockets, b.sockets) << a.name;
    EXPECT_EQ(a.cores_per_socket, b.cores_per_socket) << a.name;
    EXPECT_EQ(a.threads_per_core, b.threads_per_core) << a.name;
  }
  EXPECT_EQ(yaml->nodes[0].cpus, 32);
  EXPECT_EQ(yaml->nodes[0].threads_per_core, 1);
  EXPECT_EQ(yaml->nodes[2].sockets, 0);  // only CPUs: Slurm's default layout, decided later

  absl::StatusOr<ClusterConfig> huge = ParseYaml(R"(
nodes:
  - names: c1
    sockets: 2147483647
    cores_per_socket: 2147483647
    threads_per_core: 2147483647
)");
  EXPECT_THAT(huge.status().message(), HasSubstr("too large"));
}

TEST(CanopyYamlTest, Durations) {
  auto timeout = [](const std::string& value) {
    absl::StatusOr<ClusterConfig> config = ParseYaml(
        absl::StrCat("node_timeout: ", value, "\nheartbeat_interval: 1s\n", kOneYamlNode));
    EXPECT_TRUE(config.ok()) << value << ": " << config.status();
    return config.ok() ? config->node_timeout : absl::ZeroDuration();
  };
  EXPECT_EQ(timeout("30s"), absl::Seconds(30));
  EXPECT_EQ(timeout("5m"), absl::Minutes(5));
  EXPECT_EQ(timeout("1h30m"), absl::Minutes(90));
  EXPECT_EQ(timeout("1.5h"), absl::Minutes(90));
  EXPECT_EQ(timeout("2500ms"), absl::Milliseconds(2500));
  EXPECT_EQ(timeout("90"), absl::Seconds(90));
  EXPECT_EQ(timeout("\"90\""), absl::Seconds(90));
  EXPECT_EQ(ParseYaml(absl::StrCat("kill_wait: 0\n", kOneYamlNode)).value().kill_wait,
            absl::ZeroDuration());
}

TEST(CanopyYamlTest, GpuForms) {
  auto gpus_of = [](const std::string& gpus) {
    absl::StatusOr<ClusterConfig> config =
        ParseYaml(absl::StrCat("nodes:\n  - names: n1\n    gpus: ", gpus, "\n"));
    EXPECT_TRUE(config.ok()) << gpus << ": " << config.status();
    std::vector<std::string> out;
    if (config.ok()) {
      for (const GpuConfig& g : config->nodes[0].gpus) {
        out.push_back(absl::StrCat(g.type, "*", g.count));
      }
    }
    return out;
  };
  EXPECT_THAT(gpus_of("8"), ElementsAre("*8"));
  EXPECT_THAT(gpus_of("0"), IsEmpty());
  EXPECT_THAT(gpus_of("{type: h100, count: 8}"), ElementsAre("h100*8"));
  EXPECT_THAT(gpus_of("{count: 2}"), ElementsAre("*2"));
  EXPECT_THAT(gpus_of("[{type: a100, count: 4}, {type: v100, count: 2}]"),
              ElementsAre("a100*4", "v100*2"));
  EXPECT_THAT(gpus_of("[]"), IsEmpty());
}

TEST(CanopyYamlTest, FeaturesForms) {
  EXPECT_THAT(
      ParseYaml("nodes:\n  - {names: n1, features: [ib, nvlink]}").value().nodes[0].features,
      ElementsAre("ib", "nvlink"));
  EXPECT_THAT(
      ParseYaml("nodes:\n  - {names: n1, features: \"ib, nvlink,\"}").value().nodes[0].features,
      ElementsAre("ib", "nvlink"));
  EXPECT_THAT(ParseYaml("nodes:\n  - {names: n1, features: []}").value().nodes[0].features,
              IsEmpty());
}

TEST(CanopyYamlTest, PartitionForms) {
  absl::StatusOr<ClusterConfig> config = ParseYaml(R"(
nodes:
  - names: n[1-4]
partitions:
  - name: a
    nodes: n[1-2],n1
    default: on
    max_time: 2-00:00:00
    default_time: 90
    max_nodes: 0
    state: drain
  - name: b
    nodes: all
    default: false
    max_time: "1:30:00"
    default_time: NONE
    max_nodes: infinite
    state: INACTIVE
  - name: c
)");
  ASSERT_TRUE(config.ok()) << config.status();
  ASSERT_THAT(config->partitions, SizeIs(3));
  const PartitionConfig& a = config->partitions[0];
  EXPECT_THAT(a.nodes, ElementsAre("n1", "n2"));
  EXPECT_TRUE(a.is_default);
  EXPECT_EQ(a.max_time, absl::Hours(48));
  EXPECT_EQ(a.default_time, absl::Minutes(90));
  EXPECT_EQ(a.max_nodes, 0);
  EXPECT_FALSE(a.up);
  const PartitionConfig& b = config->partitions[1];
  EXPECT_THAT(b.nodes, SizeIs(4));
  EXPECT_EQ(b.max_time, absl::Minutes(90));
  EXPECT_EQ(b.default_time, absl::InfiniteDuration());
  EXPECT_EQ(b.max_nodes, -1);
  EXPECT_FALSE(b.up);
  EXPECT_THAT(config->partitions[2].nodes, IsEmpty());
}

TEST(CanopyYamlTest, ControllerForms) {
  absl::StatusOr<ClusterConfig> config = ParseYaml(absl::StrCat(
      "controller:\n  host: localhost\n  port: 7000\nstate_dir: /srv/canopy/\n", kOneYamlNode));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(ControllerAddress(*config).value(), "127.0.0.1:7000");
  EXPECT_EQ(config->unix_socket, "/srv/canopy/canopyd.sock");
}

TEST(CanopyYamlTest, UnknownKeysAreRecordedOnce) {
  absl::StatusOr<ClusterConfig> config = ParseYaml(R"(
logging: {level: debug}
scheduler: {interval: 5s, type: builtin}
controller: {tls: true, host: h}
nodes:
  - names: a
    boards: 2
    gpus: {type: h100, count: 1, memory: 80g}
  - names: b
    boards: 2
partitions:
  - {name: p, qos: high}
Logging: again
)");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_THAT(config->unused_keys,
              ElementsAre("logging", "scheduler.interval", "controller.tls", "nodes.boards",
                          "nodes.gpus.memory", "partitions.qos"));
}

TEST(CanopyYamlTest, TopologySectionIsReEmitted) {
  absl::StatusOr<ClusterConfig> config =
      ParseYaml(absl::StrCat(kOneYamlNode, R"(topology_plugin: topology/block
topology:
  blocks:
    - {name: rack1, nodes: "n1"}
  block_sizes: [18, 36]
)"));
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->topology_plugin, "topology/block");
  EXPECT_EQ(config->topology.kind, TopologySource::Kind::kYaml);
  EXPECT_EQ(config->topology.first_line, 5);
  EXPECT_EQ(config->topology.text, "blocks:\n  - {name: rack1, nodes: n1}\nblock_sizes: [18, 36]");
}

TEST(CanopyYamlTest, TopologyFileIsRelativeToTheConfig) {
  const std::string dir = ::testing::TempDir() + "/canopy_config_yaml_topology";
  std::filesystem::create_directories(dir + "/conf");
  std::ofstream(dir + "/conf/site-topology.conf") << "SwitchName=s1 Nodes=n1\n";
  absl::StatusOr<ClusterConfig> config = ParseCanopyYaml(
      absl::StrCat(kOneYamlNode, "topology_file: site-topology.conf\n"), dir + "/conf/canopy.yaml");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->topology_plugin, "topology/tree");
  EXPECT_EQ(config->topology.kind, TopologySource::Kind::kSlurmTopologyConf);
  EXPECT_EQ(config->topology.origin, dir + "/conf/site-topology.conf");
  EXPECT_EQ(config->topology.text, "SwitchName=s1 Nodes=n1\n");

  absl::StatusOr<ClusterConfig> missing = ParseCanopyYaml(
      absl::StrCat(kOneYamlNode, "topology_file: nothing.conf\n"), dir + "/conf/canopy.yaml");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(),
            absl::StrCat(dir, "/conf/canopy.yaml:3: topology_file: cannot open ", dir,
                         "/conf/nothing.conf: No such file or directory"));
}

// ---------------------------------------------------------------------------------------------
// Bad inputs, each with its exact message.

TEST(CanopyYamlErrorTest, NodeFields) {
  EXPECT_EQ(YamlErrorOf("nodes:\n  - names: a\n  - names: b\n    cpus: abc\n"),
            "canopy.yaml:4: nodes[1].cpus: expected a positive integer, got \"abc\"");
  EXPECT_EQ(YamlErrorOf("nodes:\n  - {names: a, cpus: 0}"),
            "canopy.yaml:2: nodes[0].cpus: expected a positive integer, got \"0\"");
  EXPECT_EQ(YamlErrorOf("nodes:\n  - {names: a, cpus: [1]}"),
            "canopy.yaml:2: nodes[0].cpus: expected a positive integer, got a list");
  EXPECT_EQ(YamlErrorOf("nodes:\n  - names: a\n    cpus:\n"),
            "canopy.yaml:3: nodes[0].cpus: expected a positive integer, got nothing");
  EXPECT_EQ(YamlErrorOf("nodes:\n  - {names: a, memory_mib: 1.5}"),
            "canopy.yaml:2: nodes[0].memory_mib: expected a positive number of MiB, got \"1.5\"");
  EXPECT_EQ(YamlErrorOf("nodes:\n  - {names: a, weight: -1}"),
            "canopy.yaml:2: nodes[0].weight: expected a non-negative integer, got \"-1\"");
  EXPECT_EQ(YamlErrorOf("nodes:\n  - {names: a, features: {ib: true}}"),
            "canopy.yaml:2: nodes[0].features: expected a list of strings, got a mapping");
  EXPECT_EQ(YamlErrorOf("nodes:\n  - {names: a, features: [ib, [x]]}"),
            "canopy.yaml:2: nodes[0].features[1]: expected a string, got a list");
  EXPECT_EQ(YamlErrorOf("nodes:\n  - cpus: 4\n"),
            "canopy.yaml:2: nodes[0]: names: required (a hostlist such as gpu[001-016])");
  EXPECT_EQ(YamlErrorOf("nodes:\n  - names: \"\"\n"),
            "canopy.yaml:2: nodes[0].names: expected a hostlist such as gpu[001-016], got \"\"");
  EXPECT_THAT(YamlErrorOf("nodes:\n  - names: gpu[1-\n"),
              StartsWith("canopy.yaml:2: nodes[0].names: "));
  EXPECT_EQ(YamlErrorOf("nodes:\n  - just-a-string\n"),
            "canopy.yaml:2: nodes[0]: expected a mapping of keys to values, got \"just-a-string\"");
  EXPECT_EQ(YamlErrorOf("nodes: {names: a}\n"),
            "canopy.yaml:1: nodes: expected a list, got a mapping");
  EXPECT_EQ(YamlErrorOf("nodes:\n"), "canopy.yaml:1: nodes: expected a list, got nothing");
  EXPECT_EQ(YamlErrorOf("nodes: []\n"), "canopy.yaml: nodes: expected at least one node entry");
  EXPECT_EQ(YamlErrorOf("cluster_name: x\n"),
            "canopy.yaml: nodes: expected at least one node entry");
}

TEST(CanopyYamlErrorTest, Gpus) {
  EXPECT_EQ(YamlErrorOf("nodes:\n  - names: a\n    gpus: eight\n"),
            "canopy.yaml:3: nodes[0].gpus: expected a GPU count, {type, count}, or a list of "
            "{type, count}, got \"eight\"");
  EXPECT_EQ(YamlErrorOf("nodes:\n  - names: a\n    gpus: {type: h100}\n"),
            "canopy.yaml:3: nodes[0].gpus: count: required (the number of GPUs of this type)");
  EXPECT_EQ(YamlErrorOf("nodes:\n  - names: a\n    gpus: {type: h100, count: x}\n"),
            "canopy.yaml:3: nodes[0].gpus.count: expected a non-negative integer, got \"x\"");
  EXPECT_EQ(YamlErrorOf("nodes:\n  - names: a\n    gpus: [{type: [h100], count: 1}]\n"),
            "canopy.yaml:3: nodes[0].gpus[0].type: expected a string, got a list");
  EXPECT_EQ(YamlErrorOf("nodes:\n  - names: a\n    gpus:\n      - {type: a, count: 1}\n"
                        "      - {type: a, count: 2}\n"),
            "canopy.yaml:5: nodes[0].gpus[1].type: GPU type \"a\" is listed twice");
}

TEST(CanopyYamlErrorTest, CrossEntryChecks) {
  EXPECT_EQ(YamlErrorOf("nodes:\n  - names: n[1-2]\n  - names: n2\n"),
            "canopy.yaml:3: nodes[1].names: node \"n2\" is already defined on line 2");
  EXPECT_EQ(YamlErrorOf("nodes:\n  - names: n1\npartitions:\n  - name: p\n    nodes: n[1-9]\n"),
            "canopy.yaml:5: partitions[0].nodes: unknown node \"n2\" (no node entry defines it)");
  EXPECT_EQ(YamlErrorOf("nodes:\n  - names: n1\npartitions:\n  - name: a\n    default: true\n"
                        "  - name: b\n    default: true\n"),
            "canopy.yaml:7: partitions[1].default: only one partition can be the default, and "
            "partition \"a\" (line 4) already is");
  EXPECT_EQ(YamlErrorOf("nodes:\n  - names: n1\npartitions:\n  - name: a\n  - name: a\n"),
            "canopy.yaml:5: partitions[1].name: partition \"a\" is already defined on line 4");
}

TEST(CanopyYamlErrorTest, PartitionFields) {
  const std::string head = "nodes:\n  - names: n1\npartitions:\n";
  EXPECT_EQ(YamlErrorOf(head + "  - nodes: ALL\n"),
            "canopy.yaml:4: partitions[0].name: required (a partition name such as gpu)");
  EXPECT_EQ(YamlErrorOf(head + "  - {name: p, default: maybe}\n"),
            "canopy.yaml:4: partitions[0].default: expected true or false, got \"maybe\"");
  EXPECT_EQ(YamlErrorOf(head + "  - {name: p, state: OPEN}\n"),
            "canopy.yaml:4: partitions[0].state: expected UP, DOWN, DRAIN or INACTIVE, got "
            "\"OPEN\"");
  EXPECT_EQ(YamlErrorOf(head + "  - {name: p, max_time: 1h}\n"),
            "canopy.yaml:4: partitions[0].max_time: expected a Slurm time such as 60, 4:00:00 or "
            "2-00:00:00, or UNLIMITED, got \"1h\"");
  EXPECT_EQ(YamlErrorOf(head + "  - {name: p, max_time: NONE}\n"),
            "canopy.yaml:4: partitions[0].max_time: expected a Slurm time such as 60, 4:00:00 or "
            "2-00:00:00, or UNLIMITED, got \"NONE\"");
  EXPECT_EQ(YamlErrorOf(head + "  - {name: p, default_time: [1]}\n"),
            "canopy.yaml:4: partitions[0].default_time: expected a Slurm time such as 60, "
            "4:00:00 or 2-00:00:00, UNLIMITED or NONE, got a list");
  EXPECT_EQ(YamlErrorOf(head + "  - {name: p, max_nodes: lots}\n"),
            "canopy.yaml:4: partitions[0].max_nodes: expected a non-negative integer or "
            "UNLIMITED, got \"lots\"");
  EXPECT_EQ(YamlErrorOf(head + "  - {name: p, nodes: [n1]}\n"),
            "canopy.yaml:4: partitions[0].nodes: expected a string, got a list");
  EXPECT_EQ(YamlErrorOf("nodes:\n  - names: n1\npartitions: gpu\n"),
            "canopy.yaml:3: partitions: expected a list, got \"gpu\"");
}

TEST(CanopyYamlErrorTest, TopLevelFields) {
  EXPECT_EQ(YamlErrorOf(absl::StrCat("controller:\n  port: 70000\n", kOneYamlNode)),
            "canopy.yaml:2: controller.port: expected a port number (1-65535), got \"70000\"");
  EXPECT_EQ(YamlErrorOf(absl::StrCat("controller:\n  port: 0\n", kOneYamlNode)),
            "canopy.yaml:2: controller.port: expected a port number (1-65535), got \"0\"");
  EXPECT_EQ(YamlErrorOf(absl::StrCat("controller: head01\n", kOneYamlNode)),
            "canopy.yaml:1: controller: expected a mapping of keys to values, got \"head01\"");
  EXPECT_EQ(YamlErrorOf(absl::StrCat("cluster_name: \"\"\n", kOneYamlNode)),
            "canopy.yaml:1: cluster_name: expected a name, got \"\"");
  EXPECT_EQ(YamlErrorOf(absl::StrCat("cluster_name: {a: b}\n", kOneYamlNode)),
            "canopy.yaml:1: cluster_name: expected a string, got a mapping");
  EXPECT_EQ(YamlErrorOf(absl::StrCat("kill_wait: 5 minutes\n", kOneYamlNode)),
            "canopy.yaml:1: kill_wait: expected a duration such as 30s, 5m or 1h30m, got "
            "\"5 minutes\"");
  EXPECT_EQ(YamlErrorOf(absl::StrCat("kill_wait: -5s\n", kOneYamlNode)),
            "canopy.yaml:1: kill_wait: expected a duration such as 30s, 5m or 1h30m, got "
            "\"-5s\"");
  EXPECT_EQ(YamlErrorOf(absl::StrCat("kill_wait: inf\n", kOneYamlNode)),
            "canopy.yaml:1: kill_wait: expected a duration such as 30s, 5m or 1h30m, got "
            "\"inf\"");
  EXPECT_EQ(YamlErrorOf(absl::StrCat("node_timeout: 0\n", kOneYamlNode)),
            "canopy.yaml:1: node_timeout: expected a positive duration such as 30s, 5m or "
            "1h30m, got \"0\"");
  EXPECT_EQ(YamlErrorOf(absl::StrCat("topology_plugin: topology/torus\n", kOneYamlNode)),
            "canopy.yaml:1: topology_plugin: expected topology/tree, topology/block or "
            "topology/flat, got \"topology/torus\"");
  EXPECT_EQ(YamlErrorOf(absl::StrCat("topology:\n", kOneYamlNode)),
            "canopy.yaml:1: topology: expected a topology description, got nothing");
  EXPECT_EQ(YamlErrorOf(absl::StrCat(kOneYamlNode, "topology: {a: 1}\ntopology_file: t.conf\n")),
            "canopy.yaml:4: topology_file: give either topology (inline) or topology_file, not "
            "both");
  EXPECT_EQ(YamlErrorOf(absl::StrCat(kOneYamlNode, "topology_file: [a]\n")),
            "canopy.yaml:3: topology_file: expected a string, got a list");
}

TEST(CanopyYamlErrorTest, DocumentShape) {
  EXPECT_EQ(YamlErrorOf(""),
            "canopy.yaml: the file is empty; expected a mapping of settings (cluster_name, "
            "nodes, partitions, ...)");
  EXPECT_EQ(YamlErrorOf("# nothing here\n"),
            "canopy.yaml: the file is empty; expected a mapping of settings (cluster_name, "
            "nodes, partitions, ...)");
  EXPECT_EQ(YamlErrorOf("- a\n- b\n"),
            "canopy.yaml:1: expected a mapping of settings at the top level, got a list");
  EXPECT_EQ(YamlErrorOf("hello\n"),
            "canopy.yaml:1: expected a mapping of settings at the top level, got \"hello\"");
  EXPECT_EQ(YamlErrorOf(absl::StrCat(kOneYamlNode, "---\nnodes: []\n")),
            "canopy.yaml:3: expected a single YAML document; found a second one ('---') or text "
            "that is not YAML");
  EXPECT_EQ(YamlErrorOf(absl::StrCat("cluster_name: a\n", kOneYamlNode, "cluster_name: b\n")),
            "canopy.yaml:4: cluster_name: given twice (first on line 1)");
  EXPECT_EQ(YamlErrorOf(absl::StrCat("? [a, b]\n: c\n", kOneYamlNode)),
            "canopy.yaml:1: expected a plain key, got a list");
}

TEST(CanopyYamlErrorTest, SyntaxErrorsBecomeStatus) {
  EXPECT_THAT(YamlErrorOf("nodes: [a, b\n"), StartsWith("canopy.yaml:2: invalid YAML: "));
  EXPECT_THAT(YamlErrorOf("nodes:\n  - names: a\n bad indent: x\n"),
              StartsWith("canopy.yaml:3: invalid YAML: "));
  EXPECT_THAT(YamlErrorOf("a: b: c\n"), StartsWith("canopy.yaml:1: invalid YAML: "));
  // yaml-cpp's recursion guard throws; that too must come back as a Status.
  EXPECT_THAT(YamlErrorOf(std::string(5000, '[') + std::string(5000, ']')),
              HasSubstr("invalid YAML"));
  absl::StatusOr<ClusterConfig> junk = ParseYaml(std::string("\x00\xff\xfe\x01: [\x80", 8));
  EXPECT_FALSE(junk.ok());
  EXPECT_EQ(junk.status().code(), absl::StatusCode::kInvalidArgument);
}

// Random mutations of a valid file give a config or an InvalidArgument, never a crash or an
// exception (fixed seed, so a failure is reproducible).
TEST(CanopyYamlFuzzTest, RandomMutationsNeverCrash) {
  const std::string base = R"(cluster_name: demo
controller: {host: h, port: 6817}
node_timeout: 5m
nodes:
  - names: gpu[001-016]
    cpus: 64
    gpus: [{type: h100, count: 8}]
    features: [ib]
partitions:
  - {name: gpu, nodes: ALL, default: true, max_time: "1-00:00:00"}
topology:
  switches: [{name: s1, nodes: "gpu[001-016]"}]
)";
  ASSERT_TRUE(ParseYaml(base).ok());
  std::mt19937 rng(7);
  const std::string alphabet =
      ":-[]{},\"'\n #&*!|>?%@`\t\x01\xff"
      "ab09";
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
    absl::StatusOr<ClusterConfig> config = ParseYaml(text);
    if (config.ok()) {
      ++parsed;
    } else {
      EXPECT_EQ(config.status().code(), absl::StatusCode::kInvalidArgument) << config.status();
      EXPECT_THAT(std::string(config.status().message()), StartsWith("canopy.yaml"));
    }
  }
  EXPECT_GT(parsed, 0);
}

}  // namespace
}  // namespace canopy::config
