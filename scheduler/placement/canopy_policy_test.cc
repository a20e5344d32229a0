// Tests of placement/canopy on hand-made trees: exact nodes chosen, and the leaf-switch count is
// the minimum possible in each state.
#include "scheduler/placement/canopy_policy.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/placement/placement_test_util.h"

namespace canopy::placement {
namespace {

using ::testing::HasSubstr;
using testing::Hosts;
using testing::Ids;
using testing::Leaves;
using testing::MakeTopology;
using testing::ViewBuilder;

using testing::kT0;

// One spine over four leaves of four nodes.
constexpr char kTwoLevels[] = R"(SwitchName=l1 Nodes=n[01-04]
SwitchName=l2 Nodes=n[05-08]
SwitchName=l3 Nodes=n[09-12]
SwitchName=l4 Nodes=n[13-16]
SwitchName=s1 Switches=l[1-4]
)";

// core over two spines of two leaves of four nodes.
constexpr char kThreeLevels[] = R"(SwitchName=l1 Nodes=n[01-04]
SwitchName=l2 Nodes=n[05-08]
SwitchName=l3 Nodes=n[09-12]
SwitchName=l4 Nodes=n[13-16]
SwitchName=s1 Switches=l[1-2]
SwitchName=s2 Switches=l[3-4]
SwitchName=core Switches=s[1-2]
)";

PlacementRequest Nodes(int n, bool exclusive = true) {
  PlacementRequest r;
  r.min_nodes = n;
  r.gpus_per_node = 8;
  r.exclusive = exclusive;
  return r;
}

class CanopyPolicyTest : public ::testing::Test {
 protected:
  PlacementResult Place(const CapacityView& view, const PlacementRequest& r, absl::Time now = kT0) {
    return policy_.Place(view, r, now);
  }
  CanopyPolicy policy_;
};

TEST_F(CanopyPolicyTest, EmptyTreeUsesOneLeafWhenItFits) {
  auto topo = MakeTopology("n[01-16]", kTwoLevels);
  CapacityView view = ViewBuilder(*topo).Build();
  PlacementResult r = Place(view, Nodes(4));
  ASSERT_EQ(r.outcome, Outcome::kPlaced) << r.detail;
  EXPECT_EQ(Hosts(*topo, r), "n[01-04]");
  EXPECT_EQ(r.explanation.domain, "l1");
  EXPECT_EQ(r.explanation.switch_level, 0);
  EXPECT_EQ(r.explanation.units_used, 1);
  EXPECT_EQ(r.explanation.candidates, 4);
  EXPECT_EQ(r.nodes[0].gpus, 8);
}

TEST_F(CanopyPolicyTest, SpreadsOverTheFewestLeaves) {
  auto topo = MakeTopology("n[01-16]", kTwoLevels);
  CapacityView view = ViewBuilder(*topo).Build();
  PlacementResult r = Place(view, Nodes(6));
  ASSERT_TRUE(r.placed()) << r.detail;
  EXPECT_EQ(Hosts(*topo, r), "n[01-06]");
  EXPECT_EQ(Leaves(*topo, r), "l1,l2");
  EXPECT_EQ(r.explanation.domain, "s1");
  EXPECT_EQ(r.explanation.switch_level, 1);
  EXPECT_EQ(r.explanation.min_units, 2);
  EXPECT_THAT(r.explanation.ToString(), HasSubstr("placement/canopy: s1 (switch level 1)"));
}

// Free per leaf: l1 1 (n04), l2 2 (n07-08), l3 3 (n10-12), l4 4 (n13-16).
CapacityView Fragmented(const topology::Topology& topo) {
  return ViewBuilder(topo).Busy("n[01-03]").Busy("n[05-06]").Busy("n09").Build();
}

TEST_F(CanopyPolicyTest, FragmentedTwoLevels) {
  auto topo = MakeTopology("n[01-16]", kTwoLevels);
  CapacityView view = Fragmented(*topo);
  // Tightest single leaf.
  EXPECT_EQ(Hosts(*topo, Place(view, Nodes(3))), "n[10-12]");
  EXPECT_EQ(Hosts(*topo, Place(view, Nodes(4))), "n[13-16]");
  EXPECT_EQ(Hosts(*topo, Place(view, Nodes(1))), "n04");
  // Two leaves either way (l1+l4 or l2+l3); l2+l3 keeps the whole free leaf l4.
  PlacementResult five = Place(view, Nodes(5));
  EXPECT_EQ(Hosts(*topo, five), "n[07-08,10-12]");
  EXPECT_EQ(Leaves(*topo, five), "l2,l3");
  EXPECT_EQ(five.explanation.units_used, 2);
  EXPECT_EQ(five.explanation.min_units, 2);
  // Three leaves; exactly fills l2, l3, l4 and leaves l1's single node.
  PlacementResult nine = Place(view, Nodes(9));
  EXPECT_EQ(Hosts(*topo, nine), "n[07-08,10-16]");
  EXPECT_EQ(nine.explanation.units_used, 3);
  EXPECT_EQ(Place(view, Nodes(10)).explanation.units_used, 4);
}

TEST_F(CanopyPolicyTest, WaitsForResourcesAndRejectsTheImpossible) {
  auto topo = MakeTopology("n[01-16]", kTwoLevels);
  CapacityView view = Fragmented(*topo);
  PlacementResult wait = Place(view, Nodes(11));
  EXPECT_EQ(wait.outcome, Outcome::kWait);
  EXPECT_EQ(wait.reason, PendingReason::kResources);
  EXPECT_EQ(SlurmReasonName(wait.reason), "Resources");
  EXPECT_THAT(wait.detail, HasSubstr("needs 11 nodes; at most 10 are eligible"));
  EXPECT_EQ(wait.explanation.rejected[static_cast<int>(RejectCause::kHeldExclusive)], 6);
  EXPECT_TRUE(wait.nodes.empty());

  PlacementResult never = Place(view, Nodes(17));
  EXPECT_EQ(never.outcome, Outcome::kInfeasible);
  EXPECT_EQ(never.reason, PendingReason::kBadConstraints);
  PlacementRequest too_big = Nodes(1);
  too_big.gpus_per_node = 9;
  EXPECT_EQ(Place(view, too_big).outcome, Outcome::kInfeasible);
  PlacementRequest bad_partition = Nodes(1);
  bad_partition.partition = "nope";
  EXPECT_THAT(Place(view, bad_partition).detail, HasSubstr("unknown partition 'nope'"));
}

TEST_F(CanopyPolicyTest, ThreeLevelsPrefersTheLowestSwitch) {
  auto topo = MakeTopology("n[01-16]", kThreeLevels);
  // l1 4 free, l2 1 (n08), l3 3 (n10-12), l4 3 (n14-16): s1 = 5, s2 = 6.
  CapacityView view = ViewBuilder(*topo).Busy("n[05-07]").Busy("n09").Busy("n13").Build();
  PlacementResult five = Place(view, Nodes(5));
  EXPECT_EQ(Hosts(*topo, five), "n[01-04,08]");
  EXPECT_EQ(five.explanation.domain, "s1");  // both spines need 2 leaves; s1 fits tighter
  EXPECT_EQ(five.explanation.candidates, 2);
  PlacementResult six = Place(view, Nodes(6));
  EXPECT_EQ(Hosts(*topo, six), "n[10-12,14-16]");
  EXPECT_EQ(six.explanation.domain, "s2");
  // Only the core holds 7: l1 (4) + one 3-leaf: 2 leaves, the minimum.
  PlacementResult seven = Place(view, Nodes(7));
  EXPECT_EQ(Hosts(*topo, seven), "n[01-04,10-12]");
  EXPECT_EQ(seven.explanation.domain, "core");
  EXPECT_EQ(seven.explanation.switch_level, 2);
  EXPECT_EQ(seven.explanation.units_used, 2);
}

TEST_F(CanopyPolicyTest, UnevenLeavesExactFit) {
  auto topo = MakeTopology("n[1-10]", R"(SwitchName=a Nodes=n[1-2]
SwitchName=b Nodes=n[3-7]
SwitchName=c Nodes=n[8-10]
SwitchName=s Switches=a,b,c
)");
  CapacityView view = ViewBuilder(*topo).Build();
  EXPECT_EQ(Hosts(*topo, Place(view, Nodes(4))), "n[3-6]");
  EXPECT_EQ(Hosts(*topo, Place(view, Nodes(3))), "n[8-10]");
  // 5 + 2 fills a and b exactly; c stays whole.
  PlacementResult seven = Place(view, Nodes(7));
  EXPECT_EQ(Hosts(*topo, seven), "n[1-7]");
  EXPECT_EQ(seven.explanation.units_used, 2);
}

TEST_F(CanopyPolicyTest, DrainedDownAndUnhealthyNodesAreSkipped) {
  auto topo = MakeTopology("n[01-16]", kTwoLevels);
  CapacityView view =
      ViewBuilder(*topo).Drain("n[01-02]").Down("n05").Unhealthy("n09").Busy("n13").Build();
  PlacementResult three = Place(view, Nodes(3));
  EXPECT_EQ(Hosts(*topo, three), "n[06-08]");  // l2, l3, l4 all have 3; lowest id
  const auto& rej = three.explanation.rejected;
  EXPECT_EQ(rej[static_cast<int>(RejectCause::kDrained)], 2);
  EXPECT_EQ(rej[static_cast<int>(RejectCause::kDown)], 1);
  EXPECT_EQ(rej[static_cast<int>(RejectCause::kUnhealthy)], 1);
  EXPECT_EQ(three.explanation.eligible_nodes, 11);
  PlacementResult twelve = Place(view, Nodes(12));
  EXPECT_EQ(twelve.outcome, Outcome::kWait);  // 16 would match once they come back
}

TEST_F(CanopyPolicyTest, RequiredExcludedPartitionAndGpuType) {
  auto topo = MakeTopology("n[01-16]", kTwoLevels);
  CapacityView view =
      ViewBuilder(*topo).Drain("n01").Debug("n[13-16]").GpuType("n[09-12]", 1).Build();
  PlacementRequest req = Nodes(3);
  req.required_nodes = Ids(*topo, "n[05,09]");
  PlacementResult r = Place(view, req);
  EXPECT_EQ(Hosts(*topo, r), "n[05-06,09]");
  EXPECT_EQ(r.explanation.domain, "s1");

  req.required_nodes = Ids(*topo, "n01");
  PlacementResult drained = Place(view, req);
  EXPECT_EQ(drained.outcome, Outcome::kWait);
  EXPECT_EQ(drained.reason, PendingReason::kReqNodeNotAvail);
  EXPECT_EQ(SlurmReasonName(drained.reason), "ReqNodeNotAvail");
  EXPECT_THAT(drained.detail, HasSubstr("required node n01 is drained"));

  PlacementRequest excl = Nodes(4);
  excl.excluded_nodes = Ids(*topo, "n[02-03]");
  EXPECT_EQ(Hosts(*topo, Place(view, excl)), "n[05-08]");

  PlacementRequest debug = Nodes(2);
  debug.partition = "debug";
  EXPECT_EQ(Hosts(*topo, Place(view, debug)), "n[13-14]");

  PlacementRequest a100 = Nodes(4);
  a100.gpu_type = "a100";
  EXPECT_EQ(Hosts(*topo, Place(view, a100)), "n[09-12]");
  a100.gpu_type = "v100";
  EXPECT_EQ(Place(view, a100).outcome, Outcome::kInfeasible);
  a100.gpu_type = "a100";
  a100.min_nodes = 5;
  EXPECT_EQ(Place(view, a100).outcome, Outcome::kInfeasible);

  PlacementRequest both = Nodes(2);
  both.required_nodes = Ids(*topo, "n05");
  both.excluded_nodes = Ids(*topo, "n05");
  EXPECT_EQ(Place(view, both).outcome, Outcome::kInfeasible);
}

TEST_F(CanopyPolicyTest, SwitchLimitWaitsThenTakesWhatItCanGet) {
  auto topo = MakeTopology("n[01-16]", kTwoLevels);
  CapacityView view = Fragmented(*topo);
  PlacementRequest req = Nodes(5);
  req.max_switches = 1;
  req.max_switch_wait = absl::Seconds(30);
  req.switch_wait_start = kT0;
  PlacementResult wait = Place(view, req, kT0 + absl::Seconds(10));
  EXPECT_EQ(wait.outcome, Outcome::kWait);
  EXPECT_EQ(wait.reason, PendingReason::kSwitchLimit);
  EXPECT_EQ(SlurmReasonName(wait.reason), "Resources");
  EXPECT_THAT(wait.detail, HasSubstr("--switches=1"));
  EXPECT_EQ(wait.explanation.min_units, 2);

  PlacementResult late = Place(view, req, kT0 + absl::Seconds(30));
  ASSERT_TRUE(late.placed());
  EXPECT_EQ(late.explanation.units_used, 2);
  EXPECT_TRUE(late.explanation.switch_limit_waived);

  // A job that fits one leaf is not held back.
  req.min_nodes = 4;
  PlacementResult fits = Place(view, req, kT0);
  EXPECT_EQ(Hosts(*topo, fits), "n[13-16]");
  EXPECT_FALSE(fits.explanation.switch_limit_waived);
}

TEST_F(CanopyPolicyTest, SwitchLimitCanGoUpALevel) {
  // s1 holds 6 over three leaves; only the core holds 6 within 2 leaves.
  auto topo = MakeTopology("n[01-14]", R"(SwitchName=l1 Nodes=n[01-02]
SwitchName=l2 Nodes=n[03-04]
SwitchName=l3 Nodes=n[05-06]
SwitchName=l4 Nodes=n[07-10]
SwitchName=l5 Nodes=n[11-14]
SwitchName=s1 Switches=l[1-3]
SwitchName=s2 Switches=l4
SwitchName=s3 Switches=l5
SwitchName=core Switches=s[1-3]
)");
  CapacityView view = ViewBuilder(*topo).Build();
  PlacementRequest req = Nodes(6);
  EXPECT_EQ(Place(view, req).explanation.domain, "s1");
  req.max_switches = 2;
  req.switch_wait_start = kT0;
  PlacementResult r = Place(view, req);
  EXPECT_EQ(r.explanation.domain, "core");
  // 2 + 4 fills l1 and l4 exactly and keeps l5 whole (l4 + l5 would leave only 2-node leaves).
  EXPECT_EQ(Leaves(*topo, r), "l1,l4");
  EXPECT_EQ(Hosts(*topo, r), "n[01-02,07-10]");
  EXPECT_EQ(r.explanation.units_used, 2);
}

TEST_F(CanopyPolicyTest, SmallJobsPackOntoPartlyUsedNodesInBusyLeaves) {
  auto topo = MakeTopology("n[01-16]", kTwoLevels);
  // l2: n06 has 4 GPUs free; l3: n10 has 2 free; l4: n[13-15] busy, n16 idle; l1 idle.
  CapacityView view = ViewBuilder(*topo).Use("n06", 4).Use("n10", 6).Busy("n[13-15]").Build();
  PlacementRequest one = Nodes(1, /*exclusive=*/false);
  one.gpus_per_node = 1;
  PlacementResult r = Place(view, one);
  EXPECT_EQ(Hosts(*topo, r), "n10");  // l3 is the busier of the two leaves with a shared node
  EXPECT_EQ(r.explanation.domain, "l3");
  one.gpus_per_node = 3;
  EXPECT_EQ(Hosts(*topo, Place(view, one)), "n06");
  one.gpus_per_node = 8;  // no partly used node fits: an idle node in the busiest leaf
  EXPECT_EQ(Hosts(*topo, Place(view, one)), "n16");
  PlacementRequest whole = Nodes(1, /*exclusive=*/true);
  EXPECT_EQ(Hosts(*topo, Place(view, whole)), "n16");
  // A 2-node shared gang also packs onto partly used nodes of one leaf.
  PlacementRequest pair = Nodes(2, /*exclusive=*/false);
  pair.gpus_per_node = 2;
  PlacementResult p = Place(view, pair);
  EXPECT_EQ(p.explanation.units_used, 1);
}

TEST_F(CanopyPolicyTest, SmallJobOnAFullClusterWaits) {
  auto topo = MakeTopology("n[01-16]", kTwoLevels);
  CapacityView view = ViewBuilder(*topo).Busy("n[01-16]").Build();
  PlacementRequest one = Nodes(1, false);
  one.gpus_per_node = 1;
  PlacementResult r = Place(view, one);
  EXPECT_EQ(r.outcome, Outcome::kWait);
  EXPECT_EQ(r.reason, PendingReason::kResources);
  EXPECT_EQ(r.explanation.rejected[static_cast<int>(RejectCause::kHeldExclusive)], 16);
}

TEST_F(CanopyPolicyTest, BlockTopology) {
  auto topo = MakeTopology("g[01-16]", R"(BlockName=rack1 Nodes=g[01-04]
BlockName=rack2 Nodes=g[05-08]
BlockName=rack3 Nodes=g[09-12]
BlockName=rack4 Nodes=g[13-16]
BlockSizes=4,8,16
)");
  CapacityView empty = ViewBuilder(*topo, 4).Build();
  PlacementRequest four = Nodes(4);
  four.gpus_per_node = 4;
  PlacementResult r = Place(empty, four);
  EXPECT_EQ(Hosts(*topo, r), "g[01-04]");
  EXPECT_EQ(r.explanation.domain, "rack1");
  ASSERT_EQ(r.explanation.blocks.size(), 1u);

  // Free per block: 3, 2, 4, 4.
  CapacityView view = ViewBuilder(*topo, 4).Busy("g01").Busy("g[05-06]").Build();
  EXPECT_EQ(Hosts(*topo, Place(view, four)), "g[09-12]");
  PlacementRequest five = four;
  five.min_nodes = 5;
  PlacementResult r5 = Place(view, five);
  EXPECT_EQ(Hosts(*topo, r5), "g[02-04,07-08]");  // the 36-node-style pair rack1..rack2
  EXPECT_EQ(r5.explanation.domain, "rack1..rack2");
  PlacementRequest nine = four;
  nine.min_nodes = 9;
  PlacementResult r9 = Place(view, nine);
  EXPECT_EQ(Hosts(*topo, r9), "g[02-04,07-12]");  // rack4 stays whole
  EXPECT_EQ(r9.explanation.units_used, 3);
  nine.min_nodes = 17;
  EXPECT_EQ(Place(view, nine).outcome, Outcome::kInfeasible);
}

TEST_F(CanopyPolicyTest, BlocksInsideLeaves) {
  auto topo = MakeTopology("n[01-16]", R"(SwitchName=l1 Nodes=n[01-08]
SwitchName=l2 Nodes=n[09-16]
SwitchName=s Switches=l[1-2]
BlockName=b1 Nodes=n[01-04]
BlockName=b2 Nodes=n[05-08]
BlockName=b3 Nodes=n[09-12]
BlockName=b4 Nodes=n[13-14]
)");
  CapacityView empty = ViewBuilder(*topo).Build();
  PlacementResult r = Place(empty, Nodes(4));
  EXPECT_EQ(Hosts(*topo, r), "n[01-04]");
  EXPECT_EQ(r.explanation.domain, "b1");
  EXPECT_EQ(Leaves(*topo, r), "l1");
  CapacityView view = ViewBuilder(*topo).Busy("n01").Build();
  EXPECT_EQ(Hosts(*topo, Place(view, Nodes(4))), "n[05-08]");
  PlacementResult six = Place(view, Nodes(6));
  EXPECT_EQ(six.explanation.domain, "l1");
  EXPECT_EQ(six.explanation.blocks.size(), 2u);
  EXPECT_EQ(Hosts(*topo, six), "n[02-07]");
  // Loose nodes of a leaf form their own group: n[15-16].
  EXPECT_EQ(Hosts(*topo, Place(view, Nodes(2))), "n[13-14]");
}

TEST_F(CanopyPolicyTest, NodesOutsideSwitchesNeverShareAJob) {
  auto topo = MakeTopology("n[1-5]", "SwitchName=l1 Nodes=n[1-4]\n");
  CapacityView busy = ViewBuilder(*topo).Busy("n[1-3]").Build();
  PlacementResult two = Place(busy, Nodes(2));
  EXPECT_EQ(two.outcome, Outcome::kWait);  // n4 + n5 would span two fabrics
  EXPECT_EQ(Place(busy, Nodes(5)).outcome, Outcome::kInfeasible);
  // A one-node job takes the lone node first, keeping the leaf whole.
  CapacityView empty = ViewBuilder(*topo).Build();
  EXPECT_EQ(Hosts(*topo, Place(empty, Nodes(1))), "n5");
}

TEST_F(CanopyPolicyTest, FlatClusterIsOneDomain) {
  auto topo = MakeTopology("n[1-8]", "");
  CapacityView view = ViewBuilder(*topo).Busy("n[2-3]").Build();
  PlacementResult r = Place(view, Nodes(5));
  EXPECT_EQ(Hosts(*topo, r), "n[1,4-7]");
  EXPECT_EQ(r.explanation.domain, "cluster");
  EXPECT_TRUE(r.explanation.leaf_switches.empty());
}

TEST_F(CanopyPolicyTest, NodeRangeTakesAsManyAsOnePlacementGives) {
  auto topo = MakeTopology("n[01-16]", kTwoLevels);
  CapacityView view = Fragmented(*topo);
  PlacementRequest range = Nodes(2);
  range.max_nodes = 6;
  PlacementResult r = Place(view, range);
  EXPECT_EQ(r.nodes.size(), 6u);
  EXPECT_EQ(Hosts(*topo, r), "n[07-08,13-16]");  // l4 + l2: exactly 6 in two leaves
  range.max_nodes = 20;
  EXPECT_EQ(Place(view, range).nodes.size(), 10u);
  range.max_switches = 1;
  range.switch_wait_start = kT0;
  EXPECT_EQ(Hosts(*topo, Place(view, range)), "n[13-16]");
}

TEST_F(CanopyPolicyTest, Deterministic) {
  auto topo = MakeTopology("n[01-16]", kThreeLevels);
  CapacityView view = ViewBuilder(*topo).Busy("n[02,07,11,16]").Use("n05", 3).Build();
  for (int n = 1; n <= 12; ++n) {
    PlacementRequest req = Nodes(n, n % 2 == 0);
    req.gpus_per_node = 4;
    EXPECT_EQ(Place(view, req).nodes, Place(view, req).nodes) << n;
  }
}

}  // namespace
}  // namespace canopy::placement
