// Tests of placement/first_fit, the topology-blind baseline.
#include "scheduler/placement/first_fit_policy.h"

#include "gtest/gtest.h"
#include "scheduler/placement/placement_test_util.h"

namespace canopy::placement {
namespace {

using testing::Hosts;
using testing::Ids;
using testing::MakeTopology;
using testing::ViewBuilder;

using testing::kT0;

TEST(FirstFitPolicyTest, LowestNumberedEligibleNodesAcrossLeaves) {
  auto topo = MakeTopology("n[1-9]", R"(SwitchName=a Nodes=n[1-4]
SwitchName=b Nodes=n[5-8]
SwitchName=s Switches=a,b
)");
  CapacityView view = ViewBuilder(*topo).Busy("n[2-3]").Drain("n5").Build();
  FirstFitPolicy policy;
  PlacementRequest req;
  req.min_nodes = 4;
  req.gpus_per_node = 8;
  req.exclusive = true;
  req.max_switches = 1;  // ignored: topology-blind
  req.switch_wait_start = kT0;
  PlacementResult r = policy.Place(view, req, kT0);
  ASSERT_TRUE(r.placed()) << r.detail;
  EXPECT_EQ(Hosts(*topo, r), "n[1,4,6-7]");
  EXPECT_EQ(r.explanation.leaf_switches.size(), 2u);
  EXPECT_EQ(r.explanation.policy, "placement/first_fit");
  // It even spans the node outside every switch.
  req.min_nodes = 6;
  EXPECT_EQ(Hosts(*topo, policy.Place(view, req, kT0)), "n[1,4,6-9]");
  req.min_nodes = 7;
  PlacementResult wait = policy.Place(view, req, kT0);
  EXPECT_EQ(wait.outcome, Outcome::kWait);
  req.min_nodes = 10;
  EXPECT_EQ(policy.Place(view, req, kT0).outcome, Outcome::kInfeasible);
  req.min_nodes = 2;
  req.required_nodes = Ids(*topo, "n8");
  EXPECT_EQ(Hosts(*topo, policy.Place(view, req, kT0)), "n[1,8]");
}

}  // namespace
}  // namespace canopy::placement
