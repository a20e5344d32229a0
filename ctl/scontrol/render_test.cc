// `scontrol show topology` for the reference cluster of
// tests/data/slurm-reference/cli-outputs-22.05.txt (8 leaves of 8 nodes under one core switch),
// compared with what Slurm 22.05 printed there.
#include "ctl/scontrol/render.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"

namespace canopy::ctl::scontrol {
namespace {

canopy::v1::GetTopologyResponse ReferenceTree() {
  canopy::v1::GetTopologyResponse topo;
  for (int leaf = 1; leaf <= 8; ++leaf) {
    canopy::v1::Switch* s = topo.add_switches();
    s->set_name(absl::StrCat("leaf", leaf));
    s->set_level(0);
    s->set_parent("core");
    for (int n = 1; n <= 8; ++n) {
      s->add_nodes(absl::StrFormat("gpu%03d", (leaf - 1) * 8 + n));
    }
  }
  canopy::v1::Switch* core = topo.add_switches();
  core->set_name("core");
  core->set_level(1);
  for (int leaf = 1; leaf <= 8; ++leaf) {
    core->add_child_switches(absl::StrCat("leaf", leaf));
  }
  return topo;
}

TEST(ScontrolRenderTest, ShowTopologyMatchesSlurm) {
  EXPECT_EQ(RenderTopology(ReferenceTree(), std::nullopt),
            "SwitchName=leaf1 Level=0 LinkSpeed=1 Nodes=gpu[001-008]\n"
            "SwitchName=leaf2 Level=0 LinkSpeed=1 Nodes=gpu[009-016]\n"
            "SwitchName=leaf3 Level=0 LinkSpeed=1 Nodes=gpu[017-024]\n"
            "SwitchName=leaf4 Level=0 LinkSpeed=1 Nodes=gpu[025-032]\n"
            "SwitchName=leaf5 Level=0 LinkSpeed=1 Nodes=gpu[033-040]\n"
            "SwitchName=leaf6 Level=0 LinkSpeed=1 Nodes=gpu[041-048]\n"
            "SwitchName=leaf7 Level=0 LinkSpeed=1 Nodes=gpu[049-056]\n"
            "SwitchName=leaf8 Level=0 LinkSpeed=1 Nodes=gpu[057-064]\n"
            "SwitchName=core Level=1 LinkSpeed=1 Nodes=gpu[001-064] Switches=leaf[1-8]\n");
}

TEST(ScontrolRenderTest, ShowTopologyOfANodeMatchesSlurm) {
  EXPECT_EQ(RenderTopology(ReferenceTree(), "gpu010"),
            "SwitchName=leaf2 Level=0 LinkSpeed=1 Nodes=gpu[009-016]\n"
            "SwitchName=core Level=1 LinkSpeed=1 Nodes=gpu[001-064] Switches=leaf[1-8]\n");
  EXPECT_EQ(RenderTopology(ReferenceTree(), "nosuchnode"), "");
}

}  // namespace
}  // namespace canopy::ctl::scontrol
