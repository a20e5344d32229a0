// Tests for choosing preemption victims (preemption.h): the preemptor lands under the fewest
// switches it could get with every candidate gone, and the GPU-hours thrown away are few.
#include "scheduler/plan/preemption.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/placement/placement_test_util.h"
#include "scheduler/placement/registry.h"

namespace canopy::plan {
namespace {

using placement::testing::Expand;
using placement::testing::MakeTopology;
using placement::testing::ViewBuilder;
using ::testing::UnorderedElementsAre;

const absl::Time kPreemptNow = absl::FromUnixSeconds(10'000);

// 4 leaves of 4 nodes x 8 GPUs: l1 = n[01-04], ..., l4 = n[13-16]; every node is busy with a
// one-node exclusive job (job id = node number).
class PreemptionPlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string conf;
    for (int l = 0; l < 4; ++l) {
      absl::StrAppend(&conf, "SwitchName=l", l + 1, " Nodes=n[",
                      absl::Dec(l * 4 + 1, absl::kZeroPad2), "-",
                      absl::Dec(l * 4 + 4, absl::kZeroPad2), "]\n");
    }
    topo_ = MakeTopology("n[01-16]", conf + "SwitchName=s Switches=l[1-4]\n");
    ViewBuilder builder(*topo_);
    builder.Busy("n[01-16]");
    view_ = std::make_unique<placement::CapacityView>(builder.Build());
    for (const std::string& name : Expand("n[01-16]")) {
      shares_.push_back({{topo_->FindNode(name), 8, 64, 512 * 1024, {}}});
    }
  }

  // Candidate for node `n` (1-based) with `cost` GPU-hours.
  void Candidate(int n, double cost) {
    candidates_.push_back({core::JobId(n), shares_[n - 1], true, cost});
  }

  core::Job Preemptor(int nodes) {
    core::Job j;
    j.id = core::JobId(100);
    j.resources.min_nodes = nodes;
    j.resources.gpus_per_node = 8;
    j.resources.cpus_per_node = 8;
    j.resources.exclusive = true;
    j.eligible_time = kPreemptNow;
    return j;
  }

  std::vector<uint32_t> Victims(const PreemptionPlan& p) {
    std::vector<uint32_t> out;
    for (core::JobId id : p.victims) {
      out.push_back(id.value());
    }
    return out;
  }

  std::unique_ptr<topology::Topology> topo_;
  std::unique_ptr<placement::CapacityView> view_;
  std::vector<std::vector<core::NodeShare>> shares_;
  std::vector<PreemptCandidate> candidates_;
  std::unique_ptr<placement::PlacementPolicy> policy_ =
      *placement::MakePlacementPolicy("placement/canopy");
};

TEST_F(PreemptionPlanTest, OneLeafTheCheapestOne) {
  // Leaves 1 and 2 run expensive work, leaf 3 cheap, leaf 4 mixed.
  for (int n = 1; n <= 16; ++n) {
    Candidate(n, n <= 8 ? 100 : (n <= 12 ? 1 : (n % 2 == 0 ? 1 : 50)));
  }
  std::optional<PreemptionPlan> p =
      PlanPreemption(*view_, Preemptor(4), candidates_, kPreemptNow, *policy_);
  ASSERT_TRUE(p.has_value());
  EXPECT_THAT(Victims(*p), UnorderedElementsAre(9, 10, 11, 12));
  EXPECT_DOUBLE_EQ(p->cost, 4);
  EXPECT_EQ(p->placement.explanation.units_used, 1);
}

TEST_F(PreemptionPlanTest, FewestSwitchesBeforeFewestGpuHours) {
  // Only two nodes are cheap, on different leaves; a 2-node job still takes one whole leaf's
  // worth from a single leaf rather than span two.
  for (int n = 1; n <= 16; ++n) {
    Candidate(n, n == 1 || n == 5 ? 0.5 : 10);
  }
  std::optional<PreemptionPlan> p =
      PlanPreemption(*view_, Preemptor(2), candidates_, kPreemptNow, *policy_);
  ASSERT_TRUE(p.has_value());
  ASSERT_EQ(p->victims.size(), 2u);
  EXPECT_EQ(p->placement.explanation.units_used, 1);
  EXPECT_DOUBLE_EQ(p->cost, 10.5);  // a cheap node and a neighbour on its leaf
}

TEST_F(PreemptionPlanTest, OnlyCandidatesCanGoAndNothingWhenItCannotFitOrFitsAlready) {
  Candidate(1, 1);
  EXPECT_FALSE(
      PlanPreemption(*view_, Preemptor(2), candidates_, kPreemptNow, *policy_).has_value());
  std::optional<PreemptionPlan> one =
      PlanPreemption(*view_, Preemptor(1), candidates_, kPreemptNow, *policy_);
  ASSERT_TRUE(one.has_value());
  EXPECT_THAT(Victims(*one), UnorderedElementsAre(1));
  ViewBuilder free(*topo_);
  placement::CapacityView empty = free.Build();
  EXPECT_FALSE(PlanPreemption(empty, Preemptor(2), candidates_, kPreemptNow, *policy_).has_value());
}

TEST_F(PreemptionPlanTest, ManyCandidatesFewVictims) {
  for (int n = 1; n <= 16; ++n) {
    Candidate(n, 100 - n);  // the last nodes are the cheapest
  }
  std::optional<PreemptionPlan> p =
      PlanPreemption(*view_, Preemptor(3), candidates_, kPreemptNow, *policy_);
  ASSERT_TRUE(p.has_value());
  EXPECT_THAT(Victims(*p), UnorderedElementsAre(14, 15, 16));
}

}  // namespace
}  // namespace canopy::plan
