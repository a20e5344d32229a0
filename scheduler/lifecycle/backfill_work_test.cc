// A backfill pass planned away from the owner (backfill_work.h): it plans what the inline pass
// plans, nothing runs while it is out, and what changed meanwhile is not started from a stale
// plan.
#include "scheduler/lifecycle/backfill_work.h"

#include <memory>
#include <utility>

#include "scheduler/lifecycle/job_lifecycle_test_fixture.h"

namespace canopy::lifecycle {
namespace {

class BackfillWorkTest : public JobLifecycleTest {
 protected:
  void SetUp() override {
    JobLifecycleTest::SetUp();
    jobs_->set_plan_backfill_elsewhere(true);
    AllNodesUp();
  }

  // A pass that hands out its backfill work; fails the test when it did not.
  std::shared_ptr<BackfillWork> HandOut() {
    Effects e = Schedule();
    EXPECT_NE(e.backfill_work, nullptr) << "no backfill pass was handed out";
    EXPECT_TRUE(e.messages.empty()) << "a pass handed out must start nothing itself";
    return e.backfill_work;
  }
  Effects GiveBack(BackfillWork& work) {
    PlanBackfill(work);
    Effects e;
    jobs_->BackfillPlanned(work, e);
    return e;
  }
};

TEST_F(BackfillWorkTest, PlansWhatTheInlinePassPlansAndNoPassRunsMeanwhile) {
  const uint32_t big = Submit(2, 4);
  const uint32_t small = Submit(1, 2);
  const uint32_t waits = Submit(2, 4);  // the cluster has 4 nodes: behind `big`, it waits
  std::shared_ptr<BackfillWork> work = HandOut();
  ASSERT_NE(work, nullptr);
  EXPECT_EQ(work->pending.size(), 3u);

  // While it is out: no pass, not even a main one, though a job arrived.
  Submit(1, 1);
  clock_.Advance(absl::Seconds(1));
  Effects meanwhile = Schedule();
  EXPECT_EQ(meanwhile.backfill_work, nullptr);
  EXPECT_TRUE(meanwhile.messages.empty());
  EXPECT_EQ(Job(big).state, JobState::kPending);

  Effects applied = GiveBack(*work);
  EXPECT_TRUE(applied.schedule) << "what arrived meanwhile needs a pass";
  ASSERT_TRUE(applied.pass.has_value());
  EXPECT_TRUE(applied.pass_backfilled);
  EXPECT_EQ(Job(big).state, JobState::kConfiguring);
  EXPECT_EQ(Job(small).state, JobState::kConfiguring);
  EXPECT_EQ(Job(waits).state, JobState::kPending);

  // The same queue planned inline starts the same jobs on the same nodes.
  std::vector<std::string> big_nodes = Nodes(big), small_nodes = Nodes(small);
  Reset();
  AllNodesUp();
  Submit(2, 4);
  Submit(1, 2);
  Submit(2, 4);
  Effects inline_pass = Schedule();
  EXPECT_EQ(inline_pass.backfill_work, nullptr);
  EXPECT_EQ(Nodes(big), big_nodes);
  EXPECT_EQ(Nodes(small), small_nodes);
  EXPECT_EQ(Job(waits).state, JobState::kPending);
}

TEST_F(BackfillWorkTest, ThePlannerSortsTheQueueByPriorityItself) {
  // Two jobs that each need the whole cluster: only the one first in queue order starts.
  const uint32_t older = Submit(4, 4);
  const uint32_t urgent = Submit(4, 4);
  Caller operator_caller = alice_;
  operator_caller.is_operator = true;
  Effects e;
  ASSERT_TRUE(
      jobs_->SetJobPriority(core::JobId(urgent), Job(older).priority + 1, operator_caller, e).ok());
  std::shared_ptr<BackfillWork> work = HandOut();
  ASSERT_NE(work, nullptr);
  GiveBack(*work);
  EXPECT_EQ(Job(urgent).state, JobState::kConfiguring);
  EXPECT_EQ(Job(older).state, JobState::kPending);
  ASSERT_EQ(work->pending.size(), 2u);
  EXPECT_EQ(work->pending[0]->id.value(), urgent) << "the copies are left in queue order";
}

TEST_F(BackfillWorkTest, JobsCancelledHeldOrEditedMeanwhileAreNotStartedFromThePlan) {
  const uint32_t cancelled = Submit(1, 4);
  const uint32_t held = Submit(1, 4);
  const uint32_t edited = Submit(1, 4);
  const uint32_t kept = Submit(1, 4);
  std::shared_ptr<BackfillWork> work = HandOut();
  ASSERT_NE(work, nullptr);

  Effects e;
  jobs_->Cancel(CancelRequest{{cancelled}}, alice_, e);
  jobs_->ControlJobs(JobActionRequest{{held}, JobAction::kUserHold}, alice_, e);
  JobEdit two_nodes;
  two_nodes.min_nodes = 2;
  ASSERT_TRUE(jobs_->EditJob(core::JobId(edited), two_nodes, alice_, e).ok());

  Effects applied = GiveBack(*work);
  EXPECT_EQ(Job(cancelled).state, JobState::kCancelled);
  EXPECT_EQ(Job(held).state, JobState::kPending);
  EXPECT_EQ(Job(held).reason, core::JobReason::kJobHeldUser) << "the plan's reason must not "
                                                                "overwrite the hold";
  EXPECT_EQ(Job(edited).state, JobState::kPending) << "planned for one node, now asks for two";
  EXPECT_EQ(Job(kept).state, JobState::kConfiguring);

  // The next pass plans the edited job as it is now.
  clock_.Advance(absl::Seconds(1));
  Effects main_pass = Schedule();
  EXPECT_EQ(main_pass.backfill_work, nullptr) << "bf_interval has not passed: a main pass";
  EXPECT_EQ(Job(edited).state, JobState::kConfiguring);
  EXPECT_EQ(Job(edited).allocation.nodes.size(), 2u);
}

TEST_F(BackfillWorkTest, AWorkSharesTheCopiesOfJobsThatDidNotChangeSinceTheLast) {
  const uint32_t everything = Submit(4, 4);  // takes the whole cluster
  const uint32_t waiting = Submit(1, 4);
  const uint32_t edited = Submit(1, 4);
  std::shared_ptr<BackfillWork> first = HandOut();
  ASSERT_NE(first, nullptr);
  GiveBack(*first);
  ASSERT_EQ(Job(everything).state, JobState::kConfiguring);
  Effects e;
  JobEdit two_nodes;
  two_nodes.min_nodes = 2;
  ASSERT_TRUE(jobs_->EditJob(core::JobId(edited), two_nodes, alice_, e).ok());

  clock_.Advance(config_->scheduling.scheduler.parameters.bf_interval);
  std::shared_ptr<BackfillWork> second = HandOut();  // the first gave `waiting` its reason
  ASSERT_NE(second, nullptr);
  GiveBack(*second);
  Effects edit;
  ASSERT_TRUE(jobs_->EditJob(core::JobId(edited), two_nodes, alice_, edit).ok());
  two_nodes.min_nodes = 3;
  ASSERT_TRUE(jobs_->EditJob(core::JobId(edited), two_nodes, alice_, edit).ok());

  clock_.Advance(config_->scheduling.scheduler.parameters.bf_interval);
  std::shared_ptr<BackfillWork> third = HandOut();
  ASSERT_NE(third, nullptr);
  auto copy_of = [](const BackfillWork& work, uint32_t id) -> const core::Job* {
    for (const std::shared_ptr<const core::Job>& job : work.pending) {
      if (job->id.value() == id) {
        return job.get();
      }
    }
    return nullptr;
  };
  ASSERT_NE(copy_of(*third, waiting), nullptr);
  EXPECT_EQ(copy_of(*third, waiting), copy_of(*second, waiting)) << "copied again unchanged";
  ASSERT_NE(copy_of(*third, edited), nullptr);
  EXPECT_NE(copy_of(*third, edited), copy_of(*second, edited));
  EXPECT_EQ(copy_of(*third, edited)->resources.min_nodes, 3);
  EXPECT_EQ(copy_of(*third, everything), nullptr) << "no longer pending";
}

TEST_F(BackfillWorkTest, ANodeLostMeanwhileRefusesTheStartsPlannedOnIt) {
  const uint32_t whole = Submit(4, 4);  // every node
  std::shared_ptr<BackfillWork> work = HandOut();
  ASSERT_NE(work, nullptr);
  Effects e;
  jobs_->NodeChanged(Node(3, /*up=*/false), e);
  GiveBack(*work);
  EXPECT_EQ(Job(whole).state, JobState::kPending);
  EXPECT_TRUE(Job(whole).allocation.empty());
  for (int n = 0; n < 3; ++n) {
    EXPECT_EQ(FreeGpus(n), 4) << "a refused gang takes nothing";
  }
}

TEST_F(BackfillWorkTest, AWorkThatNeverComesBackIsGivenUpAndTheNextPassPlannedInline) {
  const uint32_t id = Submit(1, 1);
  std::shared_ptr<BackfillWork> lost = HandOut();
  ASSERT_NE(lost, nullptr);
  clock_.Advance(kBackfillWorkTimeout - absl::Seconds(1));
  EXPECT_EQ(Schedule().backfill_work, nullptr);  // still waiting for it
  EXPECT_EQ(Job(id).state, JobState::kPending);
  clock_.Advance(absl::Seconds(1));
  Effects after = Schedule();
  ASSERT_EQ(after.warnings.size(), 1u);
  EXPECT_THAT(after.warnings[0], ::testing::HasSubstr("did not come back"));
  // A planner that slow would be given up on again: this pass is planned here.
  EXPECT_EQ(after.backfill_work, nullptr);
  EXPECT_TRUE(after.pass_backfilled);
  EXPECT_EQ(Job(id).state, JobState::kConfiguring);
  // The lost one, should it come back after all, changes nothing.
  Effects late = GiveBack(*lost);
  EXPECT_FALSE(late.pass.has_value());
  EXPECT_TRUE(late.messages.empty());
}

TEST_F(BackfillWorkTest, StartsPlannedOnTheNodesOfADroppedStartAreDroppedToo) {
  const uint32_t gang = Submit(3, 4);  // three whole nodes: one node keeps 4 free GPUs
  std::shared_ptr<BackfillWork> first = HandOut();
  ASSERT_NE(first, nullptr);
  GiveBack(*first);
  ASSERT_EQ(Job(gang).state, JobState::kConfiguring);
  const uint32_t before = Submit(1, 2);
  const uint32_t after = Submit(1, 2);
  clock_.Advance(config_->scheduling.scheduler.parameters.bf_interval);
  std::shared_ptr<BackfillWork> second = HandOut();
  ASSERT_NE(second, nullptr);
  PlanBackfill(*second);
  ASSERT_EQ(second->plan.starts.size(), 2u) << "both on the one free node";
  // `before` changes while the plan is made: its start is dropped, and so is the start of
  // `after` on the same node, which would otherwise take half of what `before` waits for.
  Effects e;
  JobEdit two_nodes;
  two_nodes.min_nodes = 2;
  ASSERT_TRUE(jobs_->EditJob(core::JobId(before), two_nodes, alice_, e).ok());
  Effects applied;
  jobs_->BackfillPlanned(*second, applied);
  EXPECT_EQ(Job(before).state, JobState::kPending);
  EXPECT_EQ(Job(after).state, JobState::kPending);
  EXPECT_TRUE(applied.schedule);
}

}  // namespace
}  // namespace canopy::lifecycle
