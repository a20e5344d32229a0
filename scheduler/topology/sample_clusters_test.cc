// The sample clusters in tests/data/clusters must load as they are (slurm.conf + topology.conf
// through the real config loader and LoadTopology).
#include <string>

#include "absl/strings/str_cat.h"
#include "common/config/cluster_config.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/topology/load_topology.h"

namespace canopy::topology {
namespace {

using ::testing::ElementsAre;

absl::StatusOr<Topology> LoadSample(const std::string& cluster) {
  const std::string path = absl::StrCat(CANOPY_TEST_DATA_DIR, "/clusters/", cluster, "/slurm.conf");
  absl::StatusOr<config::ClusterConfig> config = config::LoadClusterConfig(path);
  if (!config.ok()) {
    return config.status();
  }
  return LoadTopology(*config);
}

TEST(SampleClustersTest, Demo16) {
  absl::StatusOr<Topology> topo = LoadSample("demo-16");
  ASSERT_TRUE(topo.ok()) << topo.status();
  EXPECT_EQ(topo->node_count(), 16);
  EXPECT_EQ(topo->switch_count(), 3);
  EXPECT_EQ(topo->max_level(), 1);
  EXPECT_EQ(topo->TopologyAddress(topo->FindNode("gpu009")), "spine001.leaf002.gpu009");
  EXPECT_TRUE(topo->unattached_nodes().empty());
}

TEST(SampleClustersTest, FatTree64) {
  absl::StatusOr<Topology> topo = LoadSample("fat-tree-64");
  ASSERT_TRUE(topo.ok()) << topo.status();
  EXPECT_EQ(topo->node_count(), 64);
  EXPECT_EQ(topo->leaves().size(), 8u);
  EXPECT_EQ(topo->max_level(), 2);
  EXPECT_THAT(topo->roots(), ElementsAre(topo->FindSwitch("core001")));
  EXPECT_EQ(topo->HopDistance(topo->FindNode("gpu001"), topo->FindNode("gpu064")), 6);
}

TEST(SampleClustersTest, Philly320) {
  absl::StatusOr<Topology> topo = LoadSample("philly-320");
  ASSERT_TRUE(topo.ok()) << topo.status();
  EXPECT_EQ(topo->node_count(), 320);
  EXPECT_EQ(topo->leaves().size(), 20u);
  EXPECT_EQ(topo->switches_at_level(1).size(), 4u);
  EXPECT_EQ(topo->nodes_under(topo->FindSwitch("spine002")).size(), 80u);
}

TEST(SampleClustersTest, FatTree16k) {
  absl::StatusOr<Topology> topo = LoadSample("fat-tree-16k");
  ASSERT_TRUE(topo.ok()) << topo.status();
  EXPECT_EQ(topo->node_count(), 16384);
  EXPECT_EQ(topo->leaves().size(), 512u);
  EXPECT_EQ(topo->switches_at_level(1).size(), 32u);
  EXPECT_EQ(topo->max_level(), 2);
  EXPECT_TRUE(topo->unattached_nodes().empty());
  EXPECT_EQ(topo->nodes_under(topo->roots()[0]).size(), 16384u);
}

TEST(SampleClustersTest, Gb200Blocks) {
  absl::StatusOr<Topology> topo = LoadSample("gb200-nvl72-8racks");
  ASSERT_TRUE(topo.ok()) << topo.status();
  EXPECT_EQ(topo->node_count(), 144);
  EXPECT_FALSE(topo->has_switches());
  EXPECT_EQ(topo->block_count(), 8);
  EXPECT_THAT(topo->block_sizes(), ElementsAre(18, 36, 72, 144));
  EXPECT_EQ(topo->block_nodes(topo->FindBlock("rack3")).size(), 18u);
  EXPECT_EQ(topo->block_of(topo->FindNode("gb144")), topo->FindBlock("rack8"));
}

}  // namespace
}  // namespace canopy::topology
