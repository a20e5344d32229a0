// Tests for the scheduling pass and the plan applier.
#include <memory>

#include "gtest/gtest.h"
#include "scheduler/core/job_table.h"
#include "scheduler/placement/placement_test_util.h"
#include "scheduler/placement/registry.h"
#include "scheduler/plan/applier.h"
#include "scheduler/plan/pass.h"

namespace canopy::plan {
namespace {

using placement::testing::MakeTopology;
using placement::testing::ViewBuilder;

const absl::Time kNow = absl::FromUnixSeconds(10'000);

// 2 leaves x 4 nodes x 8 GPUs under one spine.
class PassTest : public ::testing::Test {
 protected:
  PassTest()
      : topo_(MakeTopology("n[1-8]",
                           "SwitchName=l1 Nodes=n[1-4]\nSwitchName=l2 Nodes=n[5-8]\n"
                           "SwitchName=s Switches=l[1-2]\n")),
        view_(ViewBuilder(*topo_).Build()),
        policy_(*placement::MakePlacementPolicy("placement/canopy")) {}

  core::Job& Add(uint32_t id, int nodes, int gpus, bool exclusive = false) {
    core::Job j;
    j.id = core::JobId(id);
    j.resources.min_nodes = nodes;
    j.resources.gpus_per_node = gpus;
    j.resources.exclusive = exclusive;
    j.submit_time = j.eligible_time = kNow - absl::Seconds(100 - id);
    EXPECT_TRUE(jobs_.Add(j).ok());
    return *jobs_.Find(j.id);
  }

  Plan Pass(const PassOptions& opts = {}) {
    std::vector<const core::Job*> pending = jobs_.Pending();
    return RunPass(view_, pending, kNow, *policy_, opts);
  }

  std::unique_ptr<topology::Topology> topo_;
  placement::CapacityView view_;
  std::unique_ptr<placement::PlacementPolicy> policy_;
  core::JobTable jobs_;
  PlanApplier applier_;
};

TEST_F(PassTest, StartsWhatFitsAndExplainsTheRest) {
  Add(1, 4, 8, true);
  Add(2, 4, 8, true);
  Add(3, 1, 8, true);  // no node left
  Add(4, 9, 8);        // larger than the cluster
  Plan plan = Pass({.compute_min_units = true});
  ASSERT_EQ(plan.starts.size(), 2u);
  EXPECT_EQ(plan.starts[0].job, core::JobId(1));
  EXPECT_EQ(plan.starts[0].explanation.units_used, 1);
  EXPECT_EQ(plan.starts[0].min_units_possible, 1);
  // Job 3 comes when no GPU is free anywhere: passed over without a note (it keeps its reason).
  EXPECT_EQ(plan.stats.not_reached, 1);
  // Job 4 asks for more than the cluster has: the policy calls it infeasible.
  ASSERT_EQ(plan.pending.size(), 1u);
  EXPECT_EQ(plan.pending[0].job, core::JobId(4));
  EXPECT_TRUE(plan.pending[0].infeasible);
  EXPECT_EQ(plan.stats.placed, 2);
  // The input view is untouched; the applier commits.
  EXPECT_EQ(view_.stats(view_.domains().roots()[0]).idle, 8);
  auto report = applier_.Apply(plan, view_, jobs_, kNow);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->started.size(), 2u);
  EXPECT_EQ(jobs_.Find(core::JobId(1))->state, core::JobState::kRunning);
  EXPECT_EQ(jobs_.Find(core::JobId(1))->allocation.nodes.size(), 4u);
  EXPECT_EQ(jobs_.Find(core::JobId(3))->reason, core::JobReason::kNone);
  EXPECT_EQ(jobs_.Find(core::JobId(4))->reason, core::JobReason::kBadConstraints);
  EXPECT_EQ(view_.stats(view_.domains().roots()[0]).idle, 0);
}

TEST_F(PassTest, InfeasibleIsMarked) {
  Add(1, 9, 8);
  Plan plan = Pass();
  ASSERT_EQ(plan.pending.size(), 1u);
  EXPECT_TRUE(plan.pending[0].infeasible);
  EXPECT_EQ(plan.pending[0].reason, core::JobReason::kBadConstraints);
}

TEST_F(PassTest, SkipIdenticalAfterFirstFailure) {
  view_ = ViewBuilder(*topo_).Busy("n[1-3],n[5-7]").Build();  // one node free per leaf
  Add(1, 2, 8, true);                                         // fits: one node in each leaf
  Add(2, 2, 8, true);                                         // fails: nothing left
  Add(3, 2, 8, true);                                         // identical: skipped
  Add(4, 2, 8, true);
  Plan plan = Pass();
  EXPECT_EQ(plan.stats.placed, 1);
  EXPECT_EQ(plan.stats.policy_calls, 1);
  EXPECT_EQ(plan.stats.not_reached, 3);  // nothing is free after job 1
  // With capacity left but the shape failing, identical jobs are not placed again.
  view_ = ViewBuilder(*topo_).Busy("n[1-3],n[5-7]").Use("n4", 0).Build();
  jobs_ = core::JobTable();
  Add(1, 2, 8, true);  // n4 is not idle: fails
  Add(2, 2, 8, true);
  Add(3, 1, 4);  // a different shape still goes
  plan = Pass();
  EXPECT_EQ(plan.stats.policy_calls, 2);
  EXPECT_EQ(plan.stats.skipped_identical, 1);
  ASSERT_EQ(plan.starts.size(), 1u);
  EXPECT_EQ(plan.starts[0].job, core::JobId(3));
}

TEST_F(PassTest, DepthCapLeavesPriority) {
  Add(1, 1, 1);
  Add(2, 1, 2);
  Add(3, 1, 3);
  Plan plan = Pass({.max_policy_calls = 2});
  EXPECT_EQ(plan.starts.size(), 2u);
  ASSERT_EQ(plan.pending.size(), 1u);
  EXPECT_EQ(plan.pending[0].reason, core::JobReason::kPriority);
}

TEST_F(PassTest, ApplierRefusesWholeGangWhenOneNodeChanged) {
  Add(1, 2, 8, true);
  Plan plan = Pass();
  ASSERT_EQ(plan.starts.size(), 1u);
  // Between plan and apply, the second node of the gang goes down.
  placement::NodeCapacity down = view_.node(plan.starts[0].nodes[1].node);
  down.up = false;
  ASSERT_TRUE(view_.UpdateNode(plan.starts[0].nodes[1].node, down).ok());
  auto report = applier_.Apply(plan, view_, jobs_, kNow);
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report->started.empty());
  ASSERT_EQ(report->refused.size(), 1u);
  const core::Job* j = jobs_.Find(core::JobId(1));
  EXPECT_EQ(j->state, core::JobState::kPending);
  EXPECT_TRUE(j->allocation.empty());
  // Nothing of the gang was committed: the first node is still idle.
  EXPECT_EQ(view_.node(plan.starts[0].nodes[0].node).jobs, 0);
}

TEST_F(PassTest, ApplierRefusesJobNoLongerPending) {
  Add(1, 1, 8);
  Plan plan = Pass();
  ASSERT_TRUE(
      core::TransitionTo(*jobs_.Find(core::JobId(1)), core::JobState::kCancelled, kNow).ok());
  auto report = applier_.Apply(plan, view_, jobs_, kNow);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->refused.size(), 1u);
  EXPECT_EQ(view_.node(plan.starts[0].nodes[0].node).jobs, 0);
}

TEST_F(PassTest, EndAndRequeueFreeCapacity) {
  Add(1, 2, 8, true);
  Add(2, 2, 8, true).spec.Mutable().requeue = false;
  ASSERT_TRUE(applier_.Apply(Pass(), view_, jobs_, kNow).ok());
  core::Job& a = *jobs_.Find(core::JobId(1));
  core::Job& b = *jobs_.Find(core::JobId(2));
  ASSERT_EQ(a.state, core::JobState::kRunning);
  ASSERT_TRUE(FailJobOnNodeLoss(view_, a, kNow + absl::Seconds(5)).ok());
  EXPECT_EQ(a.state, core::JobState::kPending);
  EXPECT_EQ(a.restart_count, 1);
  ASSERT_TRUE(FailJobOnNodeLoss(view_, b, kNow + absl::Seconds(5)).ok());
  EXPECT_EQ(b.state, core::JobState::kNodeFail);
  EXPECT_TRUE(a.allocation.empty());         // back in the queue: no nodes
  EXPECT_EQ(b.allocation.nodes.size(), 2u);  // ended: where it ran
  EXPECT_EQ(view_.stats(view_.domains().roots()[0]).idle, 8);
  EXPECT_EQ(EndJob(view_, b, core::JobState::kCompleted, kNow).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(FailJobOnNodeLoss(view_, a, kNow).code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(PassTest, DeterministicPlans) {
  for (uint32_t i = 1; i <= 20; ++i) {
    Add(i, 1 + i % 3, 1 + i % 8, i % 2 == 0);
  }
  Plan p1 = Pass();
  Plan p2 = Pass();
  ASSERT_EQ(p1.starts.size(), p2.starts.size());
  for (size_t i = 0; i < p1.starts.size(); ++i) {
    EXPECT_EQ(p1.starts[i].job, p2.starts[i].job);
    EXPECT_EQ(p1.starts[i].nodes, p2.starts[i].nodes);
  }
}

}  // namespace
}  // namespace canopy::plan
