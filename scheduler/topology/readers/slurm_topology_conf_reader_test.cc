// Tests of the topology.conf reader: both of Slurm's forms, its lexical rules, and error
// messages that name the file and line.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/topology/readers/topology_reader.h"

namespace canopy::topology {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> ConfNames(absl::string_view prefix, int first, int last) {
  std::vector<std::string> out;
  for (int i = first; i <= last; ++i) {
    out.push_back(absl::StrCat(prefix, i));
  }
  return out;
}

absl::StatusOr<Topology> ParseConf(std::string text, std::vector<std::string> nodes,
                                   int first_line = 1) {
  config::TopologySource source;
  source.kind = config::TopologySource::Kind::kSlurmTopologyConf;
  source.origin = "topology.conf";
  source.text = std::move(text);
  source.first_line = first_line;
  TopologyBuilder builder(std::move(nodes));
  if (absl::Status s = MakeSlurmTopologyConfReader()->Read(source, builder); !s.ok()) {
    return s;
  }
  return std::move(builder).Build();
}

TEST(SlurmTopologyConfReaderTest, TreeForm) {
  absl::StatusOr<Topology> topo = ParseConf(R"(# two leaves under a spine
SwitchName=leaf1 Nodes=n[1-4] LinkSpeed=100
switchname=leaf2 nodes=n[5-8]   # keys are case-insensitive
SwitchName=spine1 Switches=leaf[1-2]
)",
                                            ConfNames("n", 1, 8));
  ASSERT_TRUE(topo.ok()) << topo.status();
  EXPECT_EQ(topo->switch_count(), 3);
  SwitchId spine = topo->FindSwitch("spine1");
  EXPECT_EQ(topo->level(spine), 1);
  EXPECT_EQ(topo->leaf_of(topo->FindNode("n6")), topo->FindSwitch("leaf2"));
  EXPECT_EQ(topo->TopologyAddress(topo->FindNode("n6")), "spine1.leaf2.n6");
}

TEST(SlurmTopologyConfReaderTest, ContinuationQuotesAndBlankLines) {
  absl::StatusOr<Topology> topo =
      ParseConf("\n\nSwitchName=l1 \\\n  Nodes=\"a,b\"\n\n", {"a", "b"});
  ASSERT_TRUE(topo.ok()) << topo.status();
  EXPECT_EQ(topo->leaf_nodes(SwitchId(0)).size(), 2u);
}

TEST(SlurmTopologyConfReaderTest, BlockForm) {
  absl::StatusOr<Topology> topo =
      ParseConf(R"(BlockName=rack1 Nodes=gb[01-04]
BlockName=rack2 Nodes=gb[05-08]
BlockSizes=4,8
)",
                {"gb01", "gb02", "gb03", "gb04", "gb05", "gb06", "gb07", "gb08"});
  ASSERT_TRUE(topo.ok()) << topo.status();
  EXPECT_FALSE(topo->has_switches());
  EXPECT_EQ(topo->block_count(), 2);
  EXPECT_THAT(topo->block_sizes(), ElementsAre(4, 8));
  EXPECT_EQ(topo->block_of(topo->FindNode("gb06")), BlockId(1));
}

TEST(SlurmTopologyConfReaderTest, ErrorsNameFileAndLine) {
  std::vector<std::string> nodes = ConfNames("n", 1, 4);
  EXPECT_THAT(ParseConf("SwitchName=l1 Nodes=n[1-2]\nSwitchName=l2 Nodes=n[2-3]\n", nodes)
                  .status()
                  .message(),
              HasSubstr("topology.conf:2: node 'n2' is under two leaf switches"));
  EXPECT_THAT(ParseConf("SwitchName=l1 Nodes=n[1-9]\n", nodes).status().message(),
              HasSubstr("topology.conf:1: switch 'l1': unknown node 'n5'"));
  EXPECT_THAT(ParseConf("SwitchName=l1 Nodes=n1 Speed=3\n", nodes).status().message(),
              HasSubstr("topology.conf:1: unknown key 'Speed'"));
  EXPECT_THAT(ParseConf("NodeName=n1\n", nodes).status().message(),
              HasSubstr("topology.conf:1: unknown key 'NodeName'"));
  EXPECT_THAT(ParseConf("SwitchName=l1 Nodes\n", nodes).status().message(),
              HasSubstr("expected Key=Value"));
  EXPECT_THAT(ParseConf("SwitchName=l1 Nodes=n[3-1]\n", nodes).status().message(),
              HasSubstr("topology.conf:1: Nodes: "));
  EXPECT_THAT(ParseConf("BlockName=b1 Nodes=n1\nBlockSizes=1,x\n", nodes).status().message(),
              HasSubstr("topology.conf:2: BlockSizes: expected"));
  EXPECT_THAT(
      ParseConf("SwitchName=a Switches=b\nSwitchName=b Switches=a\n", nodes).status().message(),
      HasSubstr("switch cycle"));
  EXPECT_THAT(ParseConf("SwitchName= Nodes=n1\n", nodes).status().message(),
              HasSubstr("needs a value"));
  // first_line offsets the numbers (a section embedded in a larger file).
  EXPECT_THAT(ParseConf("\nSwitchName=l1 Nodes=zz\n", nodes, 10).status().message(),
              HasSubstr("topology.conf:11: "));
}

TEST(SlurmTopologyConfReaderTest, NodesOutsideSwitchesAreAllowed) {
  absl::StatusOr<Topology> topo = ParseConf("SwitchName=l1 Nodes=n[1-2]\n", ConfNames("n", 1, 4));
  ASSERT_TRUE(topo.ok()) << topo.status();
  EXPECT_EQ(topo->unattached_nodes().size(), 2u);
}

}  // namespace
}  // namespace canopy::topology
