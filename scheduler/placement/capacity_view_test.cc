// Tests of the capacity view: aggregates, incremental updates equal to a full rebuild, errors;
// and of the domain tree it is built on.
#include "scheduler/placement/capacity_view.h"

#include <random>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/placement/placement_test_util.h"

namespace canopy::placement {
namespace {

using ::testing::HasSubstr;
using testing::MakeTopology;
using testing::ViewBuilder;

constexpr char kTree[] = R"(SwitchName=l1 Nodes=n[1-4]
SwitchName=l2 Nodes=n[5-8]
SwitchName=s Switches=l[1-2]
)";

int DomainOf(const CapacityView& view, absl::string_view name) {
  for (int d = 0; d < view.domains().size(); ++d) {
    if (view.domains().Name(d) == name) {
      return d;
    }
  }
  return -1;
}

TEST(DomainTreeTest, ShapesForEachTopologyKind) {
  auto tree = MakeTopology("n[1-9]", kTree);
  DomainTree t(*tree);
  EXPECT_EQ(t.size(), 4);  // s, l1, l2, lone n9
  EXPECT_EQ(t.roots().size(), 2u);
  EXPECT_EQ(t.units().size(), 3u);
  EXPECT_EQ(t.max_level(), 1);
  EXPECT_EQ(t.domain(t.group_of(tree->FindNode("n9"))).kind, DomainKind::kLoneNode);

  auto blocks = MakeTopology("g[1-12]", R"(BlockName=b1 Nodes=g[1-4]
BlockName=b2 Nodes=g[5-8]
BlockName=b3 Nodes=g[9-12]
BlockSizes=4,8
)");
  DomainTree b(*blocks);
  // b1..b2 (with b1, b2) and a trailing group b3..b3 holding b3.
  EXPECT_EQ(b.roots().size(), 2u);
  EXPECT_EQ(b.Name(b.roots()[0]), "b1..b2");
  EXPECT_EQ(b.units().size(), 3u);

  auto flat = MakeTopology("n[1-3]", "");
  DomainTree f(*flat);
  EXPECT_EQ(f.size(), 1);
  EXPECT_EQ(f.Name(0), "cluster");
  EXPECT_EQ(f.nodes(0).size(), 3u);
}

TEST(CapacityViewTest, AggregatesPerDomain) {
  auto topo = MakeTopology("n[1-8]", kTree);
  CapacityView view = ViewBuilder(*topo).Busy("n1").Use("n2", 3).Down("n5").Drain("n6").Build();
  const DomainStats& l1 = view.stats(DomainOf(view, "l1"));
  EXPECT_EQ(l1.nodes, 4);
  EXPECT_EQ(l1.usable, 4);
  EXPECT_EQ(l1.idle, 2);
  EXPECT_EQ(l1.partly_used, 1);
  EXPECT_EQ(l1.open, 3);
  EXPECT_EQ(l1.open_free_gpus, 5 + 8 + 8);
  EXPECT_EQ(l1.max_open_free_gpus, 8);
  EXPECT_EQ(l1.max_partly_free_gpus, 5);
  const DomainStats& l2 = view.stats(DomainOf(view, "l2"));
  EXPECT_EQ(l2.usable, 2);
  EXPECT_EQ(l2.max_partly_free_gpus, -1);
  const DomainStats& s = view.stats(DomainOf(view, "s"));
  EXPECT_EQ(s.nodes, 8);
  EXPECT_EQ(s.idle, 4);
  EXPECT_EQ(s.open_free_gpus, 21 + 16);
}

TEST(CapacityViewTest, ApplyJobStartAndEnd) {
  auto topo = MakeTopology("n[1-8]", kTree);
  CapacityView view = ViewBuilder(*topo).Build();
  std::vector<NodeUse> uses = {{topo->FindNode("n1"), 8, 64, 1024},
                               {topo->FindNode("n5"), 2, 4, 0}};
  ASSERT_TRUE(view.ApplyJob(uses, /*exclusive=*/false, /*start=*/true).ok());
  EXPECT_EQ(view.node(topo->FindNode("n1")).free_gpus, 0);
  EXPECT_EQ(view.node(topo->FindNode("n5")).jobs, 1);
  EXPECT_EQ(view.stats(DomainOf(view, "s")).idle, 6);
  EXPECT_EQ(view.stats(DomainOf(view, "l2")).max_partly_free_gpus, 6);
  // Too much: nothing changes.
  absl::Status s = view.ApplyJob(uses, false, true);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(view.node(topo->FindNode("n5")).jobs, 1);
  ASSERT_TRUE(view.ApplyJob(uses, false, /*start=*/false).ok());
  EXPECT_EQ(view.stats(DomainOf(view, "s")).idle, 8);
  EXPECT_EQ(view.stats(DomainOf(view, "l2")).max_partly_free_gpus, -1);
}

TEST(CapacityViewTest, RejectsBadInput) {
  auto topo = MakeTopology("n[1-2]", "");
  std::vector<NodeCapacity> nodes(2);
  EXPECT_TRUE(CapacityView::Build(*topo, {}, {}, nodes).ok());
  EXPECT_THAT(CapacityView::Build(*topo, {}, {}, {NodeCapacity()}).status().message(),
              HasSubstr("1 nodes given for a topology of 2"));
  nodes[1].free_gpus = 3;
  EXPECT_THAT(CapacityView::Build(*topo, {}, {}, nodes).status().message(),
              HasSubstr("node n2: free GPUs 3 not within 0..0"));
  nodes[1] = NodeCapacity();
  nodes[0].gpu_type = 2;
  EXPECT_THAT(CapacityView::Build(*topo, {}, {"h100"}, nodes).status().message(),
              HasSubstr("gpu_type index 2 out of range"));
  std::vector<std::string> many(65, "p");
  EXPECT_FALSE(CapacityView::Build(*topo, many, {}, std::vector<NodeCapacity>(2)).ok());
  absl::StatusOr<CapacityView> view =
      CapacityView::Build(*topo, {}, {}, std::vector<NodeCapacity>(2));
  ASSERT_TRUE(view.ok());
  EXPECT_FALSE(view->UpdateNode(core::NodeId(7), NodeCapacity()).ok());
}

// Random updates applied incrementally must give the same aggregates as a rebuild. Seed fixed.
TEST(CapacityViewTest, IncrementalEqualsRebuild) {
  auto topo = MakeTopology("n[01-24]", R"(SwitchName=l1 Nodes=n[01-05]
SwitchName=l2 Nodes=n[06-12]
SwitchName=l3 Nodes=n[13-20]
SwitchName=s1 Switches=l[1-2]
SwitchName=core Switches=s1,l3
BlockName=b1 Nodes=n[01-03]
BlockName=b2 Nodes=n[13-16]
)");
  CapacityView view = ViewBuilder(*topo).Build();
  std::mt19937 rng(20240601);
  for (int step = 0; step < 500; ++step) {
    NodeCapacity n;
    n.total_gpus = 8;
    n.free_gpus = static_cast<int>(rng() % 9);
    n.jobs = n.free_gpus == 8 ? static_cast<int>(rng() % 2) : 1 + static_cast<int>(rng() % 3);
    n.exclusive = n.jobs == 1 && rng() % 4 == 0;
    n.up = rng() % 10 != 0;
    n.drained = rng() % 10 == 0;
    n.total_cpus = n.free_cpus = 4;
    n.partitions = 1;
    n.gpu_type = 0;
    core::NodeId id(static_cast<int>(rng() % topo->node_count()));
    ASSERT_TRUE(view.UpdateNode(id, n).ok());
  }
  CapacityView rebuilt = view;
  ASSERT_TRUE(
      rebuilt.Rebuild(std::vector<NodeCapacity>(view.nodes().begin(), view.nodes().end())).ok());
  for (int d = 0; d < view.domains().size(); ++d) {
    const DomainStats& a = view.stats(d);
    const DomainStats& b = rebuilt.stats(d);
    SCOPED_TRACE(view.domains().Name(d));
    EXPECT_EQ(a.nodes, b.nodes);
    EXPECT_EQ(a.usable, b.usable);
    EXPECT_EQ(a.idle, b.idle);
    EXPECT_EQ(a.partly_used, b.partly_used);
    EXPECT_EQ(a.open, b.open);
    EXPECT_EQ(a.open_free_gpus, b.open_free_gpus);
    EXPECT_EQ(a.max_open_free_gpus, b.max_open_free_gpus);
    EXPECT_EQ(a.max_partly_free_gpus, b.max_partly_free_gpus);
  }
}

}  // namespace
}  // namespace canopy::placement
