// Restart recovery (restore.h): jobs and their capacity come back; what no longer fits the
// configuration is cancelled.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/lifecycle/job_lifecycle_test_fixture.h"

namespace canopy::lifecycle {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The --signal warning went out before the restart: it does not go out again (it did: the flag
// lived only in memory), and the time limit still ends the job.
TEST_F(JobLifecycleTest, ASignalSentBeforeARestartIsNotSentAgain) {
  AllNodesUp();
  SubmitRequest req = Request(1, 0, "#!/bin/sh\nsleep 1000\n");
  req.spec.Mutable().time_limit = absl::Minutes(1);
  req.spec.Mutable().warn_signal = 10;
  req.spec.Mutable().warn_time = absl::Seconds(20);
  Effects e;
  const uint32_t id = jobs_->Submit(req, alice_, e)->job_id.value();
  Schedule();
  Report(0, id, JobPhase::kLaunched);
  clock_.Advance(absl::Seconds(40));
  e = Tick();
  ASSERT_THAT(Targets<SignalJob>(e), ElementsAre(0));
  EXPECT_TRUE(e.dirty.contains(core::JobId(id)));  // saved with the batch
  EXPECT_TRUE(Job(id).warn_sent);

  persistence::StoredJobs saved;
  for (const auto& [job_id, job] : jobs_->jobs().jobs()) {
    saved.jobs.push_back(*job);
    saved.jobs.back().resources = {};
  }
  saved.next_job_id = jobs_->next_job_id();
  Reset();
  e = Effects();
  ASSERT_TRUE(jobs_->Restore(saved, e).ok());
  AllNodesUp();
  EXPECT_EQ(jobs_->NextDeadline(), Job(id).start_time + absl::Minutes(1));
  clock_.Advance(absl::Seconds(5));
  EXPECT_THAT(Targets<SignalJob>(Tick()), ElementsAre());
  clock_.Advance(absl::Seconds(15));
  Tick();
  EXPECT_EQ(Job(id).state, JobState::kCompleting);
}

TEST_F(JobLifecycleTest, RestoreRebuildsJobsAndTheirCapacity) {
  const uint32_t running = StartRunning(2);
  const uint32_t pending = Submit(4, 4);
  Schedule();

  // What the store would give back: every record, without the derived resources.
  persistence::StoredJobs saved;
  for (const auto& [id, job] : jobs_->jobs().jobs()) {
    saved.jobs.push_back(*job);
    saved.jobs.back().resources = {};
  }
  saved.next_job_id = jobs_->next_job_id();

  Reset();
  Effects e;
  ASSERT_TRUE(jobs_->Restore(saved, e).ok());
  EXPECT_TRUE(e.dirty.empty());
  AllNodesUp();
  EXPECT_EQ(Job(running).state, JobState::kRunning);
  EXPECT_EQ(Job(pending).state, JobState::kPending);
  EXPECT_EQ(Job(pending).resources.min_nodes, 4);  // derived again
  EXPECT_EQ(FreeGpus(0), 0);                       // held again
  EXPECT_EQ(jobs_->next_job_id(), pending + 1);
  EXPECT_EQ(jobs_->pending_count(), 1u);

  // The batch host re-registers without the job and never re-sends an exit: the job is lost.
  std::vector<uint32_t> kill = jobs_->NodeRegistered(
      Node(0),
      {RunningJob{core::JobId(running), 0, {}, 0, {}}, RunningJob{core::JobId(42), 0, {}, 0, {}}},
      e);
  EXPECT_THAT(kill, ElementsAre(42));
  e = Effects();
  jobs_->NodeRegistered(Node(0), {}, e);
  EXPECT_EQ(jobs_->NextDeadline(), clock_.Now() + kLostBatchGrace);
  clock_.Advance(absl::Seconds(31));
  Tick();
  EXPECT_EQ(Job(running).state, JobState::kPending);
  EXPECT_EQ(Job(running).restart_count, 1);
}

// What was decided at submission stays across a restart, as in Slurm: a job put in the default
// partition stays there when another partition becomes the default, with its time limit.
TEST_F(JobLifecycleTest, RestoreKeepsThePartitionAndLimitDecidedAtSubmission) {
  const uint32_t id = Submit(1, 1);
  ASSERT_EQ(Job(id).partition, "gpu");
  persistence::StoredJobs saved;
  saved.jobs.push_back(Job(id));
  std::string yaml(testing::kTwoLeafCluster);
  yaml.replace(yaml.find("    default: true\n"), 18, "");
  yaml.replace(yaml.find("    nodes: gpu1\n"), 16, "    nodes: gpu1\n    default: true\n");
  testing::TestCluster changed = testing::LoadTestCluster(yaml);
  ASSERT_NE(changed.config, nullptr);
  ASSERT_TRUE(changed.config->partitions[1].is_default);
  absl::StatusOr<std::unique_ptr<JobLifecycle>> lc =
      JobLifecycle::Create(changed.config, changed.topology, clock_);
  ASSERT_TRUE(lc.ok()) << lc.status();
  jobs_ = *std::move(lc);
  Effects e;
  ASSERT_TRUE(jobs_->Restore(saved, e).ok());
  EXPECT_EQ(Job(id).partition, "gpu");
  EXPECT_EQ(Job(id).resources.partition, "gpu");
  EXPECT_EQ(Job(id).time_limit, absl::Hours(1));
  EXPECT_EQ(Job(id).state, JobState::kPending);
}

TEST_F(JobLifecycleTest, RestoreCancelsWhatNoLongerFits) {
  const uint32_t running = StartRunning(2);
  persistence::StoredJobs saved;
  saved.jobs.push_back(Job(running));
  saved.jobs.back().allocation = {};  // the store could not place one of its nodes
  saved.problems.push_back({core::JobId(running), "node gpu9 is no longer configured"});
  Reset();
  Effects e;
  ASSERT_TRUE(jobs_->Restore(saved, e).ok());
  EXPECT_EQ(Job(running).state, JobState::kCancelled);
  EXPECT_THAT(Job(running).state_message, HasSubstr("gpu9"));
  EXPECT_THAT(e.dirty, ElementsAre(core::JobId(running)));
  ASSERT_EQ(e.warnings.size(), 1u);
}

// canopyd restarted under a running srun: the step is live again (sattach's layout, scancel) and
// its end is recorded when its parts report. Before, it was forgotten, and its accounting row
// stayed RUNNING after the job had ended. An open step of an earlier run is closed.
TEST_F(JobLifecycleTest, ARunningStepComesBackAfterARestart) {
  const uint32_t id = StartRunning(2);
  StepRequest req;
  req.job = core::JobId(id);
  req.ntasks = 3;
  req.argv = {"/usr/bin/train"};
  req.io_address = "127.0.0.1:5000";
  req.io_token = "t";
  Effects e;
  ASSERT_TRUE(jobs_->CreateStep(req, alice_, e).ok());
  ASSERT_EQ(e.steps.size(), 1u);

  persistence::StoredJobs saved;
  for (const auto& [job_id, job] : jobs_->jobs().jobs()) {
    saved.jobs.push_back(*job);
    saved.jobs.back().resources = {};
  }
  saved.next_job_id = jobs_->next_job_id();
  saved.open_steps = e.steps;  // as the store has it: started, not ended
  core::StepRecord stale = e.steps[0];
  stale.attempt = Job(id).restart_count - 1;  // of a run that was requeued meanwhile
  saved.open_steps.push_back(stale);
  Reset();
  e = Effects();
  ASSERT_TRUE(jobs_->Restore(saved, e).ok());
  AllNodesUp();
  ASSERT_EQ(e.steps.size(), 1u);  // the stale one, closed
  EXPECT_EQ(e.steps[0].attempt, stale.attempt);
  EXPECT_EQ(e.steps[0].state, JobState::kCancelled);

  e = Effects();
  absl::StatusOr<StepAnswer> attached =
      jobs_->AttachStep(AttachRequest{core::JobId(id), 0, "127.0.0.1:6000", "u"}, alice_, e);
  ASSERT_TRUE(attached.ok()) << attached.status();
  EXPECT_THAT(attached->tasks_per_node, ElementsAre(2, 1));
  // Its step id is not given again.
  EXPECT_EQ(jobs_->CreateStep(req, alice_, e)->step_id, 1u);

  // gpu1's part ended while canopyd was down: its agent says so when it registers again (listed
  // twice: counted once).
  e = Effects();
  const StepReport ended{core::JobId(id), 0, 0, true, 0, 0};
  jobs_->NodeRegistered(Node(0), {RunningJob{core::JobId(id), 0, {}, 0, {ended, ended}}}, e);
  EXPECT_TRUE(e.steps.empty());
  jobs_->StepReported(core::NodeId(1), StepReport{core::JobId(id), 0, 1, true, 0, 0}, e);
  ASSERT_EQ(e.steps.size(), 1u);
  EXPECT_EQ(e.steps[0].state, JobState::kCompleted);
  EXPECT_EQ(e.steps[0].name, "train");
}

}  // namespace
}  // namespace canopy::lifecycle
