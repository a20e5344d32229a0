// Tests of the Canopy YAML topology reader: the documented schema, and errors with lines.
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

std::vector<std::string> YamlNames(absl::string_view prefix, int first, int last) {
  std::vector<std::string> out;
  for (int i = first; i <= last; ++i) {
    out.push_back(absl::StrCat(prefix, i));
  }
  return out;
}

absl::StatusOr<Topology> ParseYamlTopology(std::string text, std::vector<std::string> nodes,
                                           int first_line = 1) {
  config::TopologySource source;
  source.kind = config::TopologySource::Kind::kYaml;
  source.origin = "canopy.yaml";
  source.text = std::move(text);
  source.first_line = first_line;
  TopologyBuilder builder(std::move(nodes));
  if (absl::Status s = MakeYamlTopologyReader()->Read(source, builder); !s.ok()) {
    return s;
  }
  return std::move(builder).Build();
}

TEST(YamlTopologyReaderTest, DocumentedExample) {
  // The example of docs/formats/topology.md.
  absl::StatusOr<Topology> topo = ParseYamlTopology(R"(topology:
  switches:
    - name: leaf1
      nodes: "gpu[1-4]"
    - name: leaf2
      nodes: [gpu5, "gpu[6-8]"]
    - name: spine1
      switches: "leaf[1-2]"
  blocks:
    - {name: nvl1, nodes: "gpu[1-2]"}
    - {name: nvl2, nodes: "gpu[3-4]"}
  block_sizes: [2, 4]
)",
                                                    YamlNames("gpu", 1, 8));
  ASSERT_TRUE(topo.ok()) << topo.status();
  EXPECT_EQ(topo->switch_count(), 3);
  EXPECT_EQ(topo->level(topo->FindSwitch("spine1")), 1);
  EXPECT_EQ(topo->leaf_nodes(topo->FindSwitch("leaf2")).size(), 4u);
  EXPECT_EQ(topo->block_count(), 2);
  EXPECT_THAT(topo->block_sizes(), ElementsAre(2, 4));
}

TEST(YamlTopologyReaderTest, BodyWithoutWrapperAndEmptySection) {
  absl::StatusOr<Topology> topo =
      ParseYamlTopology("switches:\n  - {name: l, nodes: \"n[1-2]\"}\n", YamlNames("n", 1, 2));
  ASSERT_TRUE(topo.ok()) << topo.status();
  EXPECT_EQ(topo->switch_count(), 1);
  absl::StatusOr<Topology> flat = ParseYamlTopology("", YamlNames("n", 1, 2));
  ASSERT_TRUE(flat.ok()) << flat.status();
  EXPECT_FALSE(flat->has_switches());
}

TEST(YamlTopologyReaderTest, ErrorsNameOriginAndLine) {
  std::vector<std::string> nodes = YamlNames("n", 1, 4);
  EXPECT_THAT(
      ParseYamlTopology("switches:\n  - {name: l1, nodes: \"n[1-2]\"}\n  - {name: l2, nodes: n2}\n",
                        nodes)
          .status()
          .message(),
      HasSubstr("canopy.yaml:3: node 'n2' is under two leaf switches"));
  // first_line = 20: the section's first line is line 20 of canopy.yaml.
  EXPECT_THAT(
      ParseYamlTopology("switches:\n  - {name: l1, nodez: n1}\n", nodes, 20).status().message(),
      HasSubstr("canopy.yaml:21: unknown key 'nodez' in a switch"));
  EXPECT_THAT(ParseYamlTopology("switches: [ {name: l1\n", nodes).status().message(),
              HasSubstr("canopy.yaml:"));
  EXPECT_THAT(ParseYamlTopology("switch:\n  - {name: l1}\n", nodes).status().message(),
              HasSubstr("canopy.yaml:1: unknown key 'switch'"));
  EXPECT_THAT(ParseYamlTopology("switches:\n  - {nodes: n1}\n", nodes).status().message(),
              HasSubstr("canopy.yaml:2: switch without a name"));
  EXPECT_THAT(ParseYamlTopology("blocks:\n  - {name: b}\n", nodes).status().message(),
              HasSubstr("block 'b' needs nodes"));
  EXPECT_THAT(ParseYamlTopology("blocks:\n  - {name: b, nodes: n1}\nblock_sizes: [1, x]\n", nodes)
                  .status()
                  .message(),
              HasSubstr("canopy.yaml:3: block_sizes: expected an integer"));
  EXPECT_THAT(ParseYamlTopology("switches: 3\n", nodes).status().message(),
              HasSubstr("switches: expected a list"));
}

}  // namespace
}  // namespace canopy::topology
