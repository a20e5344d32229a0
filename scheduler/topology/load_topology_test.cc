// LoadTopology end to end: Canopy YAML and slurm.conf text through the real config parsers,
// reader dispatch, and errors that point at the right line of the original file.
#include "scheduler/topology/load_topology.h"

#include <string>
#include <vector>

#include "common/config/cluster_config.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::topology {
namespace {

using ::testing::HasSubstr;

config::ClusterConfig WithNodes(const std::vector<std::string>& names) {
  config::ClusterConfig config;
  for (const std::string& name : names) {
    config::NodeConfig node;
    node.name = name;
    config.nodes.push_back(std::move(node));
  }
  return config;
}

TEST(LoadTopologyTest, FlatWithoutTopology) {
  absl::StatusOr<Topology> topo = LoadTopology(WithNodes({"a", "b", "c"}));
  ASSERT_TRUE(topo.ok()) << topo.status();
  EXPECT_EQ(topo->node_count(), 3);
  EXPECT_EQ(topo->FindNode("c"), NodeId(2));  // ids follow ClusterConfig::nodes
  EXPECT_FALSE(topo->has_switches());
}

TEST(LoadTopologyTest, CanopyYamlInlineSection) {
  absl::StatusOr<config::ClusterConfig> config = config::ParseCanopyYaml(R"(cluster_name: t
nodes:
  - names: "gpu[1-4]"
topology:
  switches:
    - name: leaf1
      nodes: "gpu[1-2]"
    - name: leaf2
      nodes: "gpu[3-4]"
    - name: spine
      switches: "leaf[1-2]"
)",
                                                                         "canopy.yaml");
  ASSERT_TRUE(config.ok()) << config.status();
  absl::StatusOr<Topology> topo = LoadTopology(*config);
  ASSERT_TRUE(topo.ok()) << topo.status();
  EXPECT_EQ(topo->TopologyAddress(topo->FindNode("gpu3")), "spine.leaf2.gpu3");
}

TEST(LoadTopologyTest, YamlErrorsNameTheOriginalFileAndLine) {
  absl::StatusOr<config::ClusterConfig> config = config::ParseCanopyYaml(R"(cluster_name: t
nodes:
  - names: "gpu[1-4]"
topology:
  switches:
    - {name: leaf1, nodes: "gpu[1-2]"}
    - {name: leaf2, nodes: "gpu[2-4]"}
)",
                                                                         "canopy.yaml");
  ASSERT_TRUE(config.ok()) << config.status();
  absl::StatusOr<Topology> topo = LoadTopology(*config);
  EXPECT_EQ(topo.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(topo.status().message(),
              HasSubstr("canopy.yaml:7: node 'gpu2' is under two leaf switches"));
}

TEST(LoadTopologyTest, SlurmConfWithTopologyConfText) {
  config::ClusterConfig config = WithNodes({"n1", "n2"});
  config.topology.kind = config::TopologySource::Kind::kSlurmTopologyConf;
  config.topology.origin = "/etc/slurm/topology.conf";
  config.topology.text = "SwitchName=s1 Nodes=n1\nSwitchName=s2 Nodes=n3\n";
  EXPECT_THAT(LoadTopology(config).status().message(),
              HasSubstr("/etc/slurm/topology.conf:2: switch 's2': unknown node 'n3'"));
}

}  // namespace
}  // namespace canopy::topology
