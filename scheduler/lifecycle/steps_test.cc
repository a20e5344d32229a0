// Steps of running jobs through the lifecycle: srun's layout and limits, scancel of a step,
// scontrol notify and sattach (steps.h).
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/lifecycle/job_lifecycle_test_fixture.h"

namespace canopy::lifecycle {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST_F(JobLifecycleTest, StepLaysTasksOutInBlocksOverTheAllocation) {
  const uint32_t id = StartRunning(2);
  StepRequest req;
  req.job = core::JobId(id);
  req.ntasks = 3;
  req.argv = {"hostname"};
  req.io_address = "127.0.0.1:5000";
  req.io_token = "t";
  Effects e;
  absl::StatusOr<StepAnswer> r = jobs_->CreateStep(req, alice_, e);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->step_id, 0u);
  EXPECT_THAT(r->nodes, ElementsAre("gpu1", "gpu2"));
  EXPECT_THAT(r->tasks_per_node, ElementsAre(2, 1));
  ASSERT_THAT(Targets<LaunchStep>(e), ElementsAre(0, 1));
  const LaunchStep& second = Nth<LaunchStep>(e, 1);
  EXPECT_EQ(second.node_index, 1);
  EXPECT_EQ(second.step->layout.first_rank[1], 2);
  EXPECT_EQ(second.step->nodelist, "gpu[1-2]");
  EXPECT_EQ(second.step->layout.TasksPerNodeString(), "2,1");
  // Accounting saw the step start: named after its program, RUNNING, on both nodes.
  ASSERT_EQ(e.steps.size(), 1u);
  EXPECT_EQ(e.steps[0].name, "hostname");
  EXPECT_EQ(e.steps[0].state, core::JobState::kRunning);
  EXPECT_EQ(e.steps[0].ntasks, 3);
  EXPECT_EQ(e.steps[0].cpus, 3);
  EXPECT_EQ(e.steps[0].nodes.size(), 2u);
  EXPECT_EQ(jobs_->CreateStep(req, alice_, e)->step_id, 1u);
  EXPECT_EQ(jobs_->CreateStep(req, bob_, e).status().code(), absl::StatusCode::kPermissionDenied);

  e = Effects();
  EXPECT_TRUE(jobs_->CancelStep(CancelStepRequest{core::JobId(id), 0, 0}, alice_, e).ok());
  EXPECT_THAT(Targets<KillStep>(e), ElementsAre(0, 1));
  // Once every part has exited, the step is gone; killed after scancel, it ended CANCELLED.
  jobs_->StepReported(core::NodeId(0), StepReport{core::JobId(id), 0, 0, true, 0, 15}, e);
  EXPECT_TRUE(e.steps.empty());
  jobs_->StepReported(core::NodeId(1), StepReport{core::JobId(id), 0, 1, true, 0, 15}, e);
  ASSERT_EQ(e.steps.size(), 1u);
  EXPECT_EQ(e.steps[0].state, core::JobState::kCancelled);
  EXPECT_EQ(e.steps[0].exit_signal, 15);
  EXPECT_EQ(jobs_->CancelStep(CancelStepRequest{core::JobId(id), 0, 0}, alice_, e).code(),
            absl::StatusCode::kNotFound);
}

// srun -n 2147483647 inside an allocation: refused before any agent is asked to start a task
// (it used to lay out and send billions of ranks, growing canopyd past 4 GiB).
TEST_F(JobLifecycleTest, StepWithMoreTasksThanNodesMayRunIsRefused) {
  const uint32_t id = StartRunning(2);
  StepRequest req;
  req.job = core::JobId(id);
  req.ntasks = 2147483647;
  req.argv = {"true"};
  req.io_address = "127.0.0.1:5000";
  Effects e;
  absl::StatusOr<StepAnswer> r = jobs_->CreateStep(req, alice_, e);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("more than MaxTasksPerNode (512)"));
  EXPECT_TRUE(e.messages.empty());
  EXPECT_TRUE(e.steps.empty());
  req.ntasks = 1024;  // 512 on each of the 2 nodes: allowed
  EXPECT_TRUE(jobs_->CreateStep(req, alice_, e).ok());
}

TEST_F(JobLifecycleTest, NotifyGoesToTheBatchHostOrToEachStepsSrun) {
  const uint32_t batch = StartRunning(2);
  Effects e;
  ASSERT_TRUE(jobs_->NotifyJob(NotifyRequest{core::JobId(batch), "hi"}, alice_, e).ok());
  ASSERT_THAT(Targets<JobNotice>(e), ElementsAre(0));  // the batch host, even with steps
  EXPECT_EQ(Nth<JobNotice>(e, 0).message, "hi");
  EXPECT_TRUE(Nth<JobNotice>(e, 0).step_ids.empty());
  EXPECT_EQ(jobs_->NotifyJob(NotifyRequest{core::JobId(batch), "x"}, bob_, e).code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(jobs_->NotifyJob(NotifyRequest{core::JobId(999), "x"}, alice_, e).code(),
            absl::StatusCode::kNotFound);

  // A job srun allocated: through one node of each running step; none running: refused.
  const uint32_t alloc = Submit(1, 0, /*script=*/"");
  Schedule();
  const int node = static_cast<int>(Job(alloc).allocation.nodes[0].node.value());
  Report(node, alloc, JobPhase::kLaunched);
  e = Effects();
  EXPECT_EQ(jobs_->NotifyJob(NotifyRequest{core::JobId(alloc), "x"}, alice_, e).code(),
            absl::StatusCode::kFailedPrecondition);
  StepRequest step;
  step.job = core::JobId(alloc);
  step.argv = {"sleep"};
  step.io_address = "127.0.0.1:5000";
  ASSERT_TRUE(jobs_->CreateStep(step, alice_, e).ok());
  ASSERT_TRUE(jobs_->CreateStep(step, alice_, e).ok());
  e = Effects();
  ASSERT_TRUE(jobs_->NotifyJob(NotifyRequest{core::JobId(alloc), "yo"}, alice_, e).ok());
  ASSERT_THAT(Targets<JobNotice>(e), ElementsAre(node));
  EXPECT_THAT(Nth<JobNotice>(e, 0).step_ids, ElementsAre(0, 1));

  // Pending: Slurm's "presently disabled".
  const uint32_t pending = Submit(4, 4);  // not scheduled: PENDING
  EXPECT_EQ(jobs_->NotifyJob(NotifyRequest{core::JobId(pending), "x"}, alice_, e).message(),
            "Requested operation is presently disabled");
}

TEST_F(JobLifecycleTest, AttachStepReachesEveryNodeOfTheStepAndAnswersItsLayout) {
  const uint32_t id = StartRunning(2);
  StepRequest req;
  req.job = core::JobId(id);
  req.ntasks = 3;
  req.argv = {"hostname"};
  req.io_address = "127.0.0.1:5000";
  Effects e;
  ASSERT_TRUE(jobs_->CreateStep(req, alice_, e).ok());
  e = Effects();
  absl::StatusOr<StepAnswer> layout =
      jobs_->AttachStep(AttachRequest{core::JobId(id), 0, "", ""}, alice_, e);
  ASSERT_TRUE(layout.ok()) << layout.status();
  EXPECT_THAT(layout->nodes, ElementsAre("gpu1", "gpu2"));
  EXPECT_THAT(layout->tasks_per_node, ElementsAre(2, 1));
  EXPECT_EQ(layout->ntasks, 3);
  EXPECT_TRUE(e.messages.empty());  // no address: the layout only
  ASSERT_TRUE(
      jobs_->AttachStep(AttachRequest{core::JobId(id), 0, "10.0.0.1:7", "tok"}, alice_, e).ok());
  ASSERT_THAT(Targets<StepAttach>(e), ElementsAre(0, 1));
  EXPECT_EQ(Nth<StepAttach>(e, 1).io_address, "10.0.0.1:7");
  EXPECT_EQ(Nth<StepAttach>(e, 1).io_token, "tok");
  EXPECT_EQ(
      jobs_->AttachStep(AttachRequest{core::JobId(id), 0, "a:1", "t"}, bob_, e).status().code(),
      absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(
      jobs_->AttachStep(AttachRequest{core::JobId(id), 5, "a:1", "t"}, alice_, e).status().code(),
      absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace canopy::lifecycle
