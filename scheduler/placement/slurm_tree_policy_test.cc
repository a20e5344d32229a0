// Tests of placement/slurm_tree against the placements observed with real Slurm 22.05
// (SLURM-NOTES.md, "How real Slurm 22.05 placed jobs on 8 leaf switches of 8 nodes").
#include "scheduler/placement/slurm_tree_policy.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/placement/canopy_policy.h"
#include "scheduler/placement/placement_test_util.h"

namespace canopy::placement {
namespace {

using testing::Hosts;
using testing::Leaves;
using testing::MakeTopology;
using testing::Start;
using testing::ViewBuilder;

using testing::kT0;

// One spine over 8 leaves of 8 nodes.
constexpr char kEightLeaves[] = R"(SwitchName=l1 Nodes=n[01-08]
SwitchName=l2 Nodes=n[09-16]
SwitchName=l3 Nodes=n[17-24]
SwitchName=l4 Nodes=n[25-32]
SwitchName=l5 Nodes=n[33-40]
SwitchName=l6 Nodes=n[41-48]
SwitchName=l7 Nodes=n[49-56]
SwitchName=l8 Nodes=n[57-64]
SwitchName=spine Switches=l[1-8]
)";

PlacementRequest ExclusiveNodes(int n) {
  PlacementRequest r;
  r.min_nodes = n;
  r.gpus_per_node = 8;
  r.exclusive = true;
  return r;
}

// Free per leaf 2, 5, 3, 7, 8, 8, 8, 8.
ViewBuilder ObservedState(const topology::Topology& topo) {
  ViewBuilder b(topo);
  b.Busy("n[01-06]").Busy("n[09-11]").Busy("n[17-21]").Busy("n25");
  return b;
}

TEST(SlurmTreePolicyTest, ObservedSequence) {
  auto topo = MakeTopology("n[01-64]", kEightLeaves);
  CapacityView view = ObservedState(*topo).Build();
  SlurmTreePolicy policy;
  // A 4-node job goes to the leaf with 5 free.
  PlacementResult four = policy.Place(view, ExclusiveNodes(4), kT0);
  ASSERT_TRUE(four.placed()) << four.detail;
  EXPECT_EQ(Hosts(*topo, four), "n[12-15]");
  EXPECT_EQ(Leaves(*topo, four), "l2");
  Start(view, four, /*exclusive=*/true);
  // Then (free 2, 1, 3, 7, 8, 8, 8, 8) a 12-node job takes a full leaf plus 4 of the 7-free leaf.
  PlacementResult twelve = policy.Place(view, ExclusiveNodes(12), kT0);
  ASSERT_TRUE(twelve.placed()) << twelve.detail;
  EXPECT_EQ(Hosts(*topo, twelve), "n[26-29,33-40]");
  EXPECT_EQ(Leaves(*topo, twelve), "l4,l5");
  EXPECT_EQ(twelve.explanation.units_used, 2);
  EXPECT_EQ(twelve.explanation.min_units, 2);
  EXPECT_EQ(twelve.explanation.policy, "placement/slurm_tree");
}

TEST(SlurmTreePolicyTest, LeafChoiceComesBeforeSharing) {
  // A 1-node 2-GPU job goes to an empty node of the leaf with the fewest usable nodes (l1, two
  // left), not onto the partly used node n33; Canopy packs it onto n33 instead.
  auto topo = MakeTopology("n[01-64]", kEightLeaves);
  CapacityView view = ViewBuilder(*topo).Busy("n[01-06]").Use("n33", 4).Build();
  PlacementRequest req;
  req.gpus_per_node = 2;
  EXPECT_EQ(Hosts(*topo, SlurmTreePolicy().Place(view, req, kT0)), "n07");
  EXPECT_EQ(Hosts(*topo, CanopyPolicy().Place(view, req, kT0)), "n33");
}

TEST(SlurmTreePolicyTest, SwitchLimitWaitsThenSpreads) {
  // Every leaf has 5 free; a 6-node job with --switches=1@0:0:30 stays pending.
  auto topo = MakeTopology("n[01-64]", kEightLeaves);
  ViewBuilder b(*topo);
  for (const char* busy : {"n[01-03]", "n[09-11]", "n[17-19]", "n[25-27]", "n[33-35]", "n[41-43]",
                           "n[49-51]", "n[57-59]"}) {
    b.Busy(busy);
  }
  CapacityView view = b.Build();
  PlacementRequest req = ExclusiveNodes(6);
  req.max_switches = 1;
  req.max_switch_wait = absl::Seconds(30);
  req.switch_wait_start = kT0;
  SlurmTreePolicy policy;
  PlacementResult wait = policy.Place(view, req, kT0 + absl::Seconds(5));
  EXPECT_EQ(wait.outcome, Outcome::kWait);
  EXPECT_EQ(wait.reason, PendingReason::kSwitchLimit);
  EXPECT_EQ(SlurmReasonName(wait.reason), "Resources");
  // A whole leaf frees up: the job takes it.
  std::vector<NodeUse> done;
  for (const char* name : {"n41", "n42", "n43"}) {
    done.push_back({topo->FindNode(name), 8, 64, 512 * 1024});
  }
  ASSERT_TRUE(view.ApplyJob(done, /*exclusive=*/true, /*start=*/false).ok());
  PlacementResult leaf = policy.Place(view, req, kT0 + absl::Seconds(10));
  EXPECT_EQ(Hosts(*topo, leaf), "n[41-46]");
  // With no whole leaf, after the wait it spreads over several leaves.
  CapacityView still = b.Build();
  PlacementResult late = policy.Place(still, req, kT0 + absl::Seconds(31));
  ASSERT_TRUE(late.placed());
  EXPECT_EQ(late.explanation.units_used, 2);
  EXPECT_TRUE(late.explanation.switch_limit_waived);
}

TEST(SlurmTreePolicyTest, FirstFitInsideLeafAndLowestSwitch) {
  auto topo = MakeTopology("n[01-64]", kEightLeaves);
  CapacityView view = ViewBuilder(*topo).Use("n02", 4).Busy("n05").Build();
  PlacementRequest req = ExclusiveNodes(3);
  req.exclusive = false;
  req.gpus_per_node = 4;
  // All leaves fit; l1 has the fewest usable nodes (7); first fit takes n01..n03 (n02 shared).
  EXPECT_EQ(Hosts(*topo, SlurmTreePolicy().Place(view, req, kT0)), "n[01-03]");
  EXPECT_EQ(SlurmTreePolicy().Place(view, ExclusiveNodes(65), kT0).outcome, Outcome::kInfeasible);
}

}  // namespace
}  // namespace canopy::placement
