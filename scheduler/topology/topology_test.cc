// Tests of the topology model and its builder: queries on hand-made trees and every structural
// error the builder reports.
#include "scheduler/topology/topology.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/topology/topology_builder.h"

namespace canopy::topology {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::vector<std::string> Names(absl::string_view prefix, int first, int last) {
  std::vector<std::string> out;
  for (int i = first; i <= last; ++i) {
    out.push_back(absl::StrCat(prefix, i));
  }
  return out;
}

std::vector<NodeId> Ids(std::initializer_list<int> values) {
  std::vector<NodeId> out;
  for (int v : values) {
    out.push_back(NodeId(v));
  }
  return out;
}

// core -> {spine1 -> {leaf1: n0..n3, leaf2: n4..n7}, spine2 -> {leaf3: n8..n11}}, n12 alone.
Topology ThreeLevels() {
  TopologyBuilder b(Names("n", 0, 12));
  b.AddSwitch("leaf1", Names("n", 0, 3), {}, "t:1");
  b.AddSwitch("leaf2", Names("n", 4, 7), {}, "t:2");
  b.AddSwitch("leaf3", Names("n", 8, 11), {}, "t:3");
  b.AddSwitch("spine1", {}, {"leaf1", "leaf2"}, "t:4");
  b.AddSwitch("spine2", {}, {"leaf3"}, "t:5");
  b.AddSwitch("core", {}, {"spine1", "spine2"}, "t:6");
  absl::StatusOr<Topology> topo = std::move(b).Build();
  EXPECT_TRUE(topo.ok()) << topo.status();
  return *std::move(topo);
}

TEST(TopologyTest, EmptyBuilderGivesFlatCluster) {
  absl::StatusOr<Topology> topo = TopologyBuilder(Names("n", 0, 2)).Build();
  ASSERT_TRUE(topo.ok()) << topo.status();
  EXPECT_EQ(topo->node_count(), 3);
  EXPECT_FALSE(topo->has_switches());
  EXPECT_FALSE(topo->has_blocks());
  EXPECT_EQ(topo->max_level(), -1);
  EXPECT_EQ(topo->unattached_nodes().size(), 3u);
  EXPECT_FALSE(topo->leaf_of(NodeId(0)).valid());
  EXPECT_EQ(topo->HopDistance(NodeId(0), NodeId(1)), std::nullopt);
  EXPECT_EQ(topo->TopologyAddress(NodeId(2)), "n2");
}

TEST(TopologyTest, NamesLevelsAndParents) {
  Topology topo = ThreeLevels();
  EXPECT_EQ(topo.node_count(), 13);
  EXPECT_EQ(topo.switch_count(), 6);
  EXPECT_EQ(topo.FindNode("n5"), NodeId(5));
  EXPECT_FALSE(topo.FindNode("nope").valid());
  SwitchId core = topo.FindSwitch("core");
  SwitchId spine1 = topo.FindSwitch("spine1");
  SwitchId leaf2 = topo.FindSwitch("leaf2");
  EXPECT_EQ(topo.switch_name(core), "core");
  EXPECT_EQ(topo.level(core), 2);
  EXPECT_EQ(topo.level(spine1), 1);
  EXPECT_EQ(topo.level(leaf2), 0);
  EXPECT_EQ(topo.max_level(), 2);
  EXPECT_EQ(topo.parent(leaf2), spine1);
  EXPECT_FALSE(topo.parent(core).valid());
  EXPECT_EQ(topo.depth(leaf2), 2);
  EXPECT_THAT(topo.roots(), ElementsAre(core));
  EXPECT_THAT(topo.child_switches(core), ElementsAre(spine1, topo.FindSwitch("spine2")));
  EXPECT_THAT(topo.leaves(), ElementsAre(SwitchId(0), SwitchId(1), SwitchId(2)));
  EXPECT_THAT(topo.switches_at_level(1), ElementsAre(spine1, topo.FindSwitch("spine2")));
  EXPECT_THAT(topo.switches_at_level(7), IsEmpty());
}

TEST(TopologyTest, NodesUnderSwitchesAreContiguous) {
  Topology topo = ThreeLevels();
  SwitchId spine1 = topo.FindSwitch("spine1");
  EXPECT_THAT(topo.leaf_nodes(topo.FindSwitch("leaf2")),
              ElementsAre(NodeId(4), NodeId(5), NodeId(6), NodeId(7)));
  EXPECT_THAT(topo.leaf_nodes(spine1), IsEmpty());
  EXPECT_EQ(std::vector<NodeId>(topo.nodes_under(spine1).begin(), topo.nodes_under(spine1).end()),
            Ids({0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(topo.nodes_under(topo.FindSwitch("core")).size(), 12u);
  EXPECT_THAT(topo.unattached_nodes(), ElementsAre(NodeId(12)));
  EXPECT_EQ(topo.dfs_nodes().size(), 13u);
}

TEST(TopologyTest, PathsAddressesLcaAndHops) {
  Topology topo = ThreeLevels();
  SwitchId core = topo.FindSwitch("core");
  SwitchId spine1 = topo.FindSwitch("spine1");
  EXPECT_THAT(topo.SwitchPath(NodeId(5)), ElementsAre(core, spine1, topo.FindSwitch("leaf2")));
  EXPECT_THAT(topo.SwitchPath(NodeId(12)), IsEmpty());
  EXPECT_EQ(topo.TopologyAddress(NodeId(5)), "core.spine1.leaf2.n5");
  EXPECT_EQ(topo.TopologyAddressPattern(NodeId(5)), "switch.switch.switch.node");
  EXPECT_EQ(topo.TopologyAddressPattern(NodeId(12)), "node");
  EXPECT_EQ(topo.root_of(NodeId(9)), core);
  EXPECT_EQ(topo.LowestCommonSwitch(NodeId(0), NodeId(1)), topo.FindSwitch("leaf1"));
  EXPECT_EQ(topo.LowestCommonSwitch(NodeId(0), NodeId(5)), spine1);
  EXPECT_EQ(topo.LowestCommonSwitch(NodeId(0), NodeId(9)), core);
  EXPECT_FALSE(topo.LowestCommonSwitch(NodeId(0), NodeId(12)).valid());
  EXPECT_EQ(topo.HopDistance(NodeId(3), NodeId(3)), 0);
  EXPECT_EQ(topo.HopDistance(NodeId(0), NodeId(1)), 2);
  EXPECT_EQ(topo.HopDistance(NodeId(0), NodeId(5)), 4);
  EXPECT_EQ(topo.HopDistance(NodeId(0), NodeId(9)), 6);
  EXPECT_EQ(topo.HopDistance(NodeId(0), NodeId(12)), std::nullopt);
}

TEST(TopologyTest, UnevenTreeLevelsAndDisjointRoots) {
  // spineA holds a leaf and a mid switch (uneven depth); fabric2 is a separate root.
  TopologyBuilder b(Names("n", 0, 5));
  b.AddSwitch("mid", {}, {"leafB"}, "");
  b.AddSwitch("leafA", {"n0", "n1"}, {}, "");
  b.AddSwitch("leafB", {"n2", "n3"}, {}, "");
  b.AddSwitch("spineA", {}, {"leafA", "mid"}, "");
  b.AddSwitch("fabric2", {"n4", "n5"}, {}, "");
  absl::StatusOr<Topology> topo = std::move(b).Build();
  ASSERT_TRUE(topo.ok()) << topo.status();
  EXPECT_EQ(topo->level(topo->FindSwitch("spineA")), 2);
  EXPECT_EQ(topo->level(topo->FindSwitch("mid")), 1);
  EXPECT_THAT(topo->roots(), ElementsAre(topo->FindSwitch("spineA"), topo->FindSwitch("fabric2")));
  EXPECT_EQ(topo->HopDistance(NodeId(0), NodeId(2)), 5);  // n0-leafA-spineA-mid-leafB-n2
  EXPECT_EQ(topo->HopDistance(NodeId(0), NodeId(4)), std::nullopt);
}

TEST(TopologyTest, Blocks) {
  TopologyBuilder b(Names("g", 0, 7));
  b.AddBlock("rack1", Names("g", 0, 3), "");
  b.AddBlock("rack2", {"g7", "g6", "g5", "g4"}, "");
  b.SetBlockSizes({4, 8}, "");
  absl::StatusOr<Topology> topo = std::move(b).Build();
  ASSERT_TRUE(topo.ok()) << topo.status();
  EXPECT_EQ(topo->block_count(), 2);
  EXPECT_EQ(topo->block_name(BlockId(1)), "rack2");
  EXPECT_EQ(topo->FindBlock("rack2"), BlockId(1));
  EXPECT_THAT(topo->block_nodes(BlockId(1)),
              ElementsAre(NodeId(4), NodeId(5), NodeId(6), NodeId(7)));
  EXPECT_EQ(topo->block_of(NodeId(6)), BlockId(1));
  EXPECT_THAT(topo->block_sizes(), ElementsAre(4, 8));
}

TEST(TopologyTest, DefaultBlockSizesDoubleTheSmallestBlock) {
  TopologyBuilder b(Names("g", 0, 9));
  b.AddBlock("b1", Names("g", 0, 2), "");
  b.AddBlock("b2", Names("g", 3, 5), "");
  b.AddBlock("b3", Names("g", 6, 7), "");
  absl::StatusOr<Topology> topo = std::move(b).Build();
  ASSERT_TRUE(topo.ok()) << topo.status();
  EXPECT_THAT(topo->block_sizes(), ElementsAre(2, 4));
}

absl::Status BuildError(TopologyBuilder b) { return std::move(b).Build().status(); }

TEST(TopologyBuilderTest, RejectsNodeUnderTwoLeaves) {
  TopologyBuilder b(Names("n", 0, 3));
  b.AddSwitch("l1", {"n0", "n1"}, {}, "topology.conf:1");
  b.AddSwitch("l2", {"n1", "n2"}, {}, "topology.conf:2");
  absl::Status s = BuildError(std::move(b));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("topology.conf:2: node 'n1' is under two leaf switches: "
                                     "'l1' (topology.conf:1) and 'l2'"));
}

TEST(TopologyBuilderTest, RejectsUnknownNodeAndSwitch) {
  TopologyBuilder b(Names("n", 0, 1));
  b.AddSwitch("l1", {"n0", "x9"}, {}, "f:3");
  EXPECT_THAT(BuildError(std::move(b)).message(), HasSubstr("f:3: switch 'l1': unknown node 'x9'"));
  TopologyBuilder c(Names("n", 0, 1));
  c.AddSwitch("l1", {"n0"}, {}, "f:1");
  c.AddSwitch("s1", {}, {"l1", "l7"}, "f:2");
  EXPECT_THAT(BuildError(std::move(c)).message(),
              HasSubstr("f:2: switch 's1': unknown child switch 'l7'"));
}

TEST(TopologyBuilderTest, RejectsCycles) {
  TopologyBuilder b(Names("n", 0, 1));
  b.AddSwitch("l1", {"n0"}, {}, "f:1");
  b.AddSwitch("a", {}, {"b"}, "f:2");
  b.AddSwitch("b", {}, {"c"}, "f:3");
  b.AddSwitch("c", {}, {"a"}, "f:4");
  absl::Status s = BuildError(std::move(b));
  EXPECT_THAT(s.message(), HasSubstr("switch cycle: "));
  EXPECT_THAT(s.message(), HasSubstr("a -> b -> c -> a"));
  TopologyBuilder self(Names("n", 0, 0));
  self.AddSwitch("a", {}, {"a"}, "f:9");
  EXPECT_THAT(BuildError(std::move(self)).message(), HasSubstr("f:9: switch cycle: 'a' lists"));
}

TEST(TopologyBuilderTest, RejectsStructuralMistakes) {
  {
    TopologyBuilder b(Names("n", 0, 1));
    b.AddSwitch("s", {"n0"}, {"t"}, "f:1");
    EXPECT_THAT(BuildError(std::move(b)).message(), HasSubstr("both nodes and child switches"));
  }
  {
    TopologyBuilder b(Names("n", 0, 1));
    b.AddSwitch("s", {}, {}, "f:1");
    EXPECT_THAT(BuildError(std::move(b)).message(), HasSubstr("neither nodes nor child"));
  }
  {
    TopologyBuilder b(Names("n", 0, 1));
    b.AddSwitch("s", {"n0"}, {}, "f:1");
    b.AddSwitch("s", {"n1"}, {}, "f:2");
    EXPECT_THAT(BuildError(std::move(b)).message(),
                HasSubstr("f:2: switch 's' is defined twice (first (f:1))"));
  }
  {
    TopologyBuilder b(Names("n", 0, 3));
    b.AddSwitch("l1", {"n0"}, {}, "f:1");
    b.AddSwitch("s1", {}, {"l1"}, "f:2");
    b.AddSwitch("s2", {}, {"l1"}, "f:3");
    EXPECT_THAT(BuildError(std::move(b)).message(),
                HasSubstr("switch 'l1' has two parents: 's1' (f:2) and 's2'"));
  }
  {
    TopologyBuilder b({"n0", "n0"});
    EXPECT_THAT(BuildError(std::move(b)).message(), HasSubstr("defined twice in the cluster"));
  }
}

TEST(TopologyBuilderTest, RejectsBadBlocks) {
  {
    TopologyBuilder b(Names("g", 0, 3));
    b.AddBlock("r1", {"g0", "g1"}, "f:1");
    b.AddBlock("r2", {"g1", "g2"}, "f:2");
    EXPECT_THAT(BuildError(std::move(b)).message(),
                HasSubstr("f:2: node 'g1' is in two blocks: 'r1' (f:1) and 'r2'"));
  }
  {
    TopologyBuilder b(Names("g", 0, 3));
    b.AddBlock("r1", {"g0", "g1"}, "f:1");
    b.SetBlockSizes({2, 6}, "f:3");
    EXPECT_THAT(BuildError(std::move(b)).message(),
                HasSubstr("f:3: BlockSizes: 6 is not a power-of-two multiple of 2"));
  }
  {
    TopologyBuilder b(Names("g", 0, 3));
    b.SetBlockSizes({2}, "f:3");
    EXPECT_THAT(BuildError(std::move(b)).message(), HasSubstr("no blocks are defined"));
  }
  {
    TopologyBuilder b(Names("g", 0, 3));
    b.AddSwitch("l1", {"g0", "g1"}, {}, "f:1");
    b.AddSwitch("l2", {"g2", "g3"}, {}, "f:2");
    b.AddBlock("r1", {"g1", "g2"}, "f:3");
    EXPECT_THAT(BuildError(std::move(b)).message(),
                HasSubstr("f:3: block 'r1' spans leaf switches 'l1' and 'l2'"));
  }
  {
    TopologyBuilder b(Names("g", 0, 3));
    b.AddBlock("r1", {"g0", "zz"}, "f:1");
    EXPECT_THAT(BuildError(std::move(b)).message(), HasSubstr("block 'r1': unknown node 'zz'"));
  }
}

TEST(TopologyBuilderTest, BlocksInsideLeavesAreAccepted) {
  TopologyBuilder b(Names("g", 0, 7));
  b.AddSwitch("l1", Names("g", 0, 3), {}, "");
  b.AddSwitch("l2", Names("g", 4, 7), {}, "");
  b.AddSwitch("s", {}, {"l1", "l2"}, "");
  b.AddBlock("r1", {"g0", "g1"}, "");
  b.AddBlock("r2", {"g2", "g3"}, "");
  b.AddBlock("r3", {"g4", "g5", "g6"}, "");
  absl::StatusOr<Topology> topo = std::move(b).Build();
  ASSERT_TRUE(topo.ok()) << topo.status();
  EXPECT_EQ(topo->block_of(NodeId(7)), BlockId());
  EXPECT_EQ(topo->block_of(NodeId(5)), BlockId(2));
}

}  // namespace
}  // namespace canopy::topology
