// Agent reports that say the node, not the job, is at fault: a launch that failed for a reason of
// the node's (drain it, run the job elsewhere) and a run the agent fenced after losing the
// controller (lost as on a failed node).
#include "scheduler/lifecycle/agent_reports.h"

#include <csignal>

#include "scheduler/lifecycle/job_lifecycle_test_fixture.h"

namespace canopy::lifecycle {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

class AgentReportsTest : public JobLifecycleTest {
 protected:
  Effects ReportWith(int node, uint32_t job, JobPhase phase, uint32_t run_id,
                     void (*set)(JobReport&), int exit_signal = 0) {
    JobReport r;
    r.job = core::JobId(job);
    r.phase = phase;
    r.run_id = run_id;
    r.exit_signal = exit_signal;
    set(r);
    Effects e;
    jobs_->JobReported(core::NodeId(node), r, e);
    return e;
  }
  // Requeues running job `id` (scontrol requeue, as root) and schedules it again: its newer
  // run is CONFIGURING on the node returned.
  int RequeueAndSchedule(uint32_t id) {
    JobActionRequest requeue;
    requeue.action = JobAction::kRequeue;
    requeue.job_ids = {id};
    Effects e;
    EXPECT_TRUE(jobs_->ControlJobs(requeue, Root(), e).at(0).ok);
    Schedule();
    EXPECT_EQ(Job(id).state, JobState::kConfiguring);
    return Job(id).allocation.nodes[0].node.value();
  }
  static Caller Root() {
    Caller root;
    root.authenticated = true;
    root.is_operator = true;
    root.user_name = "root";
    return root;
  }
};

TEST_F(AgentReportsTest, ANodeSideLaunchFailureDrainsTheNodeAndRequeuesTheJob) {
  AllNodesUp();
  const uint32_t id = Submit(1, 1);
  Schedule();
  ASSERT_EQ(Job(id).state, JobState::kConfiguring);
  const uint32_t run = Job(id).run_id;
  Effects e = ReportWith(0, id, JobPhase::kLaunchFailed, run, [](JobReport& r) {
    r.node_fault = true;
    r.message = "execve /var/spool/canopy/job1.x/script: Text file busy";
  });
  ASSERT_EQ(e.drains.size(), 1u);
  EXPECT_EQ(e.drains[0].node, core::NodeId(0));
  EXPECT_EQ(e.drains[0].reason, "batch job complete failure");
  // Back in the queue, held as Slurm holds it; no restart counted (it never ran).
  EXPECT_EQ(Job(id).state, JobState::kPending);
  EXPECT_EQ(Job(id).reason, core::JobReason::kJobHeldUser);
  EXPECT_EQ(Job(id).priority, 0);
  EXPECT_EQ(Job(id).restart_count, 0);
  EXPECT_THAT(Job(id).state_message, HasSubstr("launch failed requeued held"));
  EXPECT_THAT(Job(id).state_message, HasSubstr("Text file busy"));
  EXPECT_THAT(Targets<KillJob>(e), ElementsAre(0));
  // It stays out of the next passes (it would drain node after node) until released.
  Schedule();
  EXPECT_EQ(Job(id).state, JobState::kPending);
  const Caller root = Root();
  JobActionRequest release;
  release.action = JobAction::kRelease;
  release.job_ids = {id};
  e = Effects();
  ASSERT_TRUE(jobs_->ControlJobs(release, root, e).at(0).ok);
  Schedule();
  EXPECT_EQ(Job(id).state, JobState::kConfiguring);
}

TEST_F(AgentReportsTest, AJobSideLaunchFailureStillFailsTheJobAndDrainsNothing) {
  AllNodesUp();
  const uint32_t id = Submit(1, 1);
  Schedule();
  Effects e = ReportWith(0, id, JobPhase::kLaunchFailed, Job(id).run_id, [](JobReport& r) {
    r.message = "chdir to /nope: No such file or directory";
  });
  EXPECT_THAT(e.drains, IsEmpty());
  EXPECT_EQ(Job(id).state, JobState::kCompleting);
}

// A prolog that fails drains the node with Slurm's reason for it, and the job is requeued held.
TEST_F(AgentReportsTest, AFailedPrologDrainsWithPrologError) {
  AllNodesUp();
  const uint32_t id = Submit(1, 1);
  Schedule();
  Effects e = ReportWith(0, id, JobPhase::kLaunchFailed, Job(id).run_id, [](JobReport& r) {
    r.node_fault = true;
    r.drain_reason = "Prolog error";
    r.message = "prolog failed status=1:0";
  });
  ASSERT_EQ(e.drains.size(), 1u);
  EXPECT_EQ(e.drains[0].reason, "Prolog error");
  EXPECT_EQ(Job(id).state, JobState::kPending);
  EXPECT_THAT(Job(id).state_message, HasSubstr("launch failed requeued held"));
}

// An epilog that fails drains the node ("Epilog error"); the job ends as it would have.
TEST_F(AgentReportsTest, AFailedEpilogDrainsTheNodeAndTheJobStillEnds) {
  const uint32_t id = StartRunning(1);
  const uint32_t run = Job(id).run_id;
  ReportWith(0, id, JobPhase::kExited, run, [](JobReport&) {});
  ASSERT_EQ(Job(id).state, JobState::kCompleting);
  Effects e = ReportWith(0, id, JobPhase::kCleanedUp, run,
                         [](JobReport& r) { r.drain_reason = "Epilog error"; });
  ASSERT_EQ(e.drains.size(), 1u);
  EXPECT_EQ(e.drains[0].node, core::NodeId(0));
  EXPECT_EQ(e.drains[0].reason, "Epilog error");
  EXPECT_EQ(Job(id).state, JobState::kCompleted);
}

// A batch host that cleaned its part up with the script's end says so in the EXITED
// (JobStatus.cleaned_up): the job ends at once, with no KillJob to the node and one ack.
TEST_F(AgentReportsTest, AnExitCleanedUpWithItEndsTheJobWithoutAKill) {
  const uint32_t id = StartRunning(1);
  const int free_before = FreeGpus(0);
  Effects e = ReportWith(0, id, JobPhase::kExited, Job(id).run_id, [](JobReport& r) {
    r.cleaned_up = true;
    r.exit_code = 2;
  });
  EXPECT_EQ(Job(id).state, JobState::kFailed);
  EXPECT_EQ(Job(id).exit_code, 2);
  EXPECT_EQ(FreeGpus(0), free_before + 4);
  EXPECT_THAT(Targets<KillJob>(e), IsEmpty());
  ASSERT_THAT(Targets<JobReportAck>(e), ElementsAre(0));
  EXPECT_EQ(Nth<JobReportAck>(e, 0).phase, JobPhase::kExited);
}

// In a gang, only the other nodes are sent KillJob, and the job ends once they clean up.
TEST_F(AgentReportsTest, AGangsBatchHostThatCleanedUpWithItsExitIsSentNoKill) {
  const uint32_t id = StartRunning(2);
  const uint32_t run = Job(id).run_id;
  Effects e = ReportWith(0, id, JobPhase::kExited, run, [](JobReport& r) { r.cleaned_up = true; });
  EXPECT_EQ(Job(id).state, JobState::kCompleting);
  EXPECT_THAT(Targets<KillJob>(e), ElementsAre(1));
  ReportWith(1, id, JobPhase::kCleanedUp, run, [](JobReport&) {});
  EXPECT_EQ(Job(id).state, JobState::kCompleted);
}

// A script that ends while the job is being cancelled: the EXITED that says the node cleaned up
// counts as its CLEANED_UP, and the job ends as cancelled.
TEST_F(AgentReportsTest, AnExitCleanedUpWithItFinishesACancelledJob) {
  const uint32_t id = StartRunning(1);
  Effects e;
  CancelRequest cancel;
  cancel.job_ids = {id};
  jobs_->Cancel(cancel, alice_, e);
  ASSERT_EQ(Job(id).state, JobState::kCompleting);
  ReportWith(
      0, id, JobPhase::kExited, Job(id).run_id, [](JobReport& r) { r.cleaned_up = true; }, SIGTERM);
  EXPECT_EQ(Job(id).state, JobState::kCancelled);
  EXPECT_EQ(Job(id).exit_signal, SIGTERM);
}

// The node's SPANK plugins failed the batch script's set-up after the launch was confirmed:
// as slurmctld on a batch completion with an error, the node is drained and the gang requeued
// held; the other nodes of the gang are told to kill it.
TEST_F(AgentReportsTest, ABatchExitThatIsTheNodesFaultDrainsAndRequeuesHeld) {
  const uint32_t id = StartRunning(2);
  const uint32_t run = Job(id).run_id;
  // Only the batch host's report counts.
  Effects e = ReportWith(1, id, JobPhase::kExited, run, [](JobReport& r) { r.node_fault = true; });
  EXPECT_THAT(e.drains, IsEmpty());
  EXPECT_EQ(Job(id).state, JobState::kRunning);
  e = ReportWith(0, id, JobPhase::kExited, run, [](JobReport& r) {
    r.node_fault = true;
    r.drain_reason = "batch job complete failure";
    r.exit_code = 1;
  });
  ASSERT_EQ(e.drains.size(), 1u);
  EXPECT_EQ(e.drains[0].node, core::NodeId(0));
  EXPECT_EQ(e.drains[0].reason, "batch job complete failure");
  EXPECT_EQ(Job(id).state, JobState::kPending);
  EXPECT_EQ(Job(id).reason, core::JobReason::kJobHeldUser);
  EXPECT_THAT(Job(id).state_message, HasSubstr("launch failed requeued held"));
  EXPECT_THAT(Job(id).state_message, HasSubstr("batch job set-up failed on "));
  EXPECT_THAT(Targets<KillJob>(e), ElementsAre(0, 1));
  EXPECT_THAT(Targets<JobReportAck>(e), ElementsAre(0));
}

// The same failure reported before every node of the gang confirmed its launch (the batch host
// is quick, another node's prolog still runs; or, after a restart, the batch host sends its
// unacknowledged exit again before the others registered): still the node's fault. It used to
// fail the job and leave the node to fail the next ones.
TEST_F(AgentReportsTest, ABatchExitThatIsTheNodesFaultBeforeTheGangIsConfirmedDrainsToo) {
  AllNodesUp();
  const uint32_t id = Submit(2, 4);
  Schedule();
  ASSERT_EQ(Job(id).state, JobState::kConfiguring);
  const uint32_t run = Job(id).run_id;
  ReportWith(0, id, JobPhase::kLaunched, run, [](JobReport&) {});
  ASSERT_EQ(Job(id).state, JobState::kConfiguring) << "the second node has not confirmed yet";
  Effects e = ReportWith(0, id, JobPhase::kExited, run, [](JobReport& r) {
    r.node_fault = true;
    r.drain_reason = "batch job complete failure";
    r.exit_code = 1;
  });
  ASSERT_EQ(e.drains.size(), 1u);
  EXPECT_EQ(e.drains[0].node, core::NodeId(0));
  EXPECT_EQ(Job(id).state, JobState::kPending);
  EXPECT_EQ(Job(id).reason, core::JobReason::kJobHeldUser);
  EXPECT_THAT(Job(id).state_message, HasSubstr("launch failed requeued held"));
  EXPECT_THAT(Targets<JobReportAck>(e), ElementsAre(0));
}

// The batch host cleaned up with the same report (its EXITED says cleaned_up): it is sent no
// KillJob and holds nothing; the gang's other node is told to kill the job and stays held until
// it cleans up. Before the gang is confirmed (CONFIGURING) as after (RUNNING).
TEST_F(AgentReportsTest, ABatchHostThatCleanedUpWithItsNodeFaultExitIsSentNoKill) {
  for (const bool confirmed : {true, false}) {
    SCOPED_TRACE(confirmed ? "RUNNING" : "CONFIGURING");
    Reset();
    AllNodesUp();
    const uint32_t id = Submit(2, 4);
    Schedule();
    ASSERT_EQ(Job(id).state, JobState::kConfiguring);
    ReportWith(0, id, JobPhase::kLaunched, Job(id).run_id, [](JobReport&) {});
    if (confirmed) {
      ReportWith(1, id, JobPhase::kLaunched, Job(id).run_id, [](JobReport&) {});
      ASSERT_EQ(Job(id).state, JobState::kRunning);
    }
    Effects e = ReportWith(0, id, JobPhase::kExited, Job(id).run_id, [](JobReport& r) {
      r.node_fault = true;
      r.drain_reason = "batch job complete failure";
      r.exit_code = 1;
      r.cleaned_up = true;
    });
    EXPECT_EQ(Job(id).state, JobState::kPending);
    EXPECT_EQ(Job(id).reason, core::JobReason::kJobHeldUser);
    EXPECT_THAT(Targets<KillJob>(e), ElementsAre(1));
    EXPECT_THAT(Targets<JobReportAck>(e), ElementsAre(0));
    EXPECT_EQ(FreeGpus(0), 4);
    EXPECT_EQ(FreeGpus(1), 0);
  }
}

// A node that registers again while it still kills an older run of a job does not confirm the
// job's newer run, whose LaunchJob it never got (its stream was down when it was sent, or
// canopyd died after the commit): the launch goes again. Confirming it left the job RUNNING with
// nothing running it, until its time limit, or for good without one.
TEST_F(AgentReportsTest, ARegistrationListingAnOlderRunDoesNotConfirmTheNewerOne) {
  AllNodesUp();
  const uint32_t id = Submit(1, 1);  // one GPU of four: the next run fits beside the old one
  Schedule();
  Report(0, id, JobPhase::kLaunched, 0, 0, Job(id).run_id);
  ASSERT_EQ(Job(id).state, JobState::kRunning);
  const uint32_t old_run = Job(id).run_id;
  const int node = RequeueAndSchedule(id);
  const uint32_t new_run = Job(id).run_id;
  ASSERT_GT(new_run, old_run);
  Effects reg;
  jobs_->NodeRegistered(Node(node), {RunningJob{core::JobId(id), old_run, {0}, 1, {}}}, reg);
  EXPECT_EQ(Job(id).state, JobState::kConfiguring);
  EXPECT_THAT(Targets<LaunchJob>(reg), ElementsAre(node));
  // The agent starts the newer run once the old one is cleaned up, and says so.
  Report(node, id, JobPhase::kCleanedUp, 0, 0, old_run);
  Report(node, id, JobPhase::kLaunched, 0, 0, new_run);
  EXPECT_EQ(Job(id).state, JobState::kRunning);
  // Listing the current run (or not saying which, as an older agent) still confirms it.
  Effects again;
  jobs_->NodeRegistered(Node(node), {RunningJob{core::JobId(id), 0, {0}, 1, {}}}, again);
  EXPECT_THAT(Targets<LaunchJob>(again), IsEmpty());
  EXPECT_EQ(Job(id).state, JobState::kRunning);
}

// The step ends a node lists for an older run of a job are that run's: step ids start again at
// 0 in each run, so applying them ended the current run's steps of the same ids (FAILED with the
// old step's exit code, while they still ran).
TEST_F(AgentReportsTest, StepEndsListedForAnOlderRunDoNotEndTheCurrentRunsSteps) {
  AllNodesUp();
  const uint32_t id = Submit(1, 1);
  Schedule();
  const uint32_t old_run = Job(id).run_id;
  Report(0, id, JobPhase::kLaunched, 0, 0, old_run);
  const int node = RequeueAndSchedule(id);
  const uint32_t new_run = Job(id).run_id;
  ASSERT_GT(new_run, old_run);
  Report(node, id, JobPhase::kLaunched, 0, 0, new_run);
  ASSERT_EQ(Job(id).state, JobState::kRunning);
  StepRequest step;
  step.job = core::JobId(id);
  step.ntasks = 1;
  step.argv = {"hostname"};
  step.io_address = "127.0.0.1:5000";
  step.io_token = "t";
  Effects e;
  ASSERT_EQ(jobs_->CreateStep(step, alice_, e)->step_id, 0u);

  const StepReport old_step_end{core::JobId(id), 0, 0, true, 3, 0};
  Effects reg;
  jobs_->NodeRegistered(Node(node), {RunningJob{core::JobId(id), old_run, {0}, 1, {old_step_end}}},
                        reg);
  EXPECT_THAT(reg.steps, IsEmpty());
  // The current run's step 0 still runs: scancel reaches it.
  Effects cancel;
  EXPECT_TRUE(jobs_->CancelStep(CancelStepRequest{core::JobId(id), 0, 0}, alice_, cancel).ok());

  // Listed for the current run (or by an agent that does not say which), the end counts.
  const StepReport step_end{core::JobId(id), 0, 0, true, 0, 15};
  Effects current;
  jobs_->NodeRegistered(Node(node), {RunningJob{core::JobId(id), new_run, {0}, 1, {step_end}}},
                        current);
  ASSERT_EQ(current.steps.size(), 1u);
  EXPECT_EQ(current.steps[0].state, JobState::kCancelled);
}

TEST_F(AgentReportsTest, ANodeSideFailureOfAnOlderRunChangesNothing) {
  AllNodesUp();
  const uint32_t id = Submit(1, 1);
  Schedule();
  Effects e = ReportWith(0, id, JobPhase::kLaunchFailed, Job(id).run_id + 7,
                         [](JobReport& r) { r.node_fault = true; });
  EXPECT_THAT(e.drains, IsEmpty());
  EXPECT_EQ(Job(id).state, JobState::kConfiguring);
}

TEST_F(AgentReportsTest, AFencedBatchExitRequeuesTheRunningGang) {
  const uint32_t id = StartRunning(2);
  const uint32_t run = Job(id).run_id;
  // The batch host killed the script itself (SIGKILL): not the job's own failure.
  Effects e = ReportWith(
      0, id, JobPhase::kExited, run, [](JobReport& r) { r.fenced = true; }, /*exit_signal=*/9);
  EXPECT_EQ(Job(id).state, JobState::kPending);
  EXPECT_EQ(Job(id).restart_count, 1);
  EXPECT_THAT(Job(id).state_message, HasSubstr("fenced"));
  EXPECT_THAT(Targets<KillJob>(e), ElementsAre(0, 1));
  EXPECT_THAT(e.drains, IsEmpty());
  // The report is acknowledged like any exit, so the agent forgets it.
  EXPECT_THAT(Targets<JobReportAck>(e), ElementsAre(0));
}

// The same exit saying the batch host cleaned up too: that node is sent no KillJob and holds
// nothing; the other node is told to kill the job.
TEST_F(AgentReportsTest, AFencedBatchExitThatCleanedUpSendsNoKillToTheBatchHost) {
  const uint32_t id = StartRunning(2);
  Effects e = ReportWith(
      0, id, JobPhase::kExited, Job(id).run_id,
      [](JobReport& r) {
        r.fenced = true;
        r.cleaned_up = true;
      },
      /*exit_signal=*/9);
  EXPECT_EQ(Job(id).state, JobState::kPending);
  EXPECT_THAT(Targets<KillJob>(e), ElementsAre(1));
  EXPECT_EQ(FreeGpus(0), 4);
  EXPECT_EQ(FreeGpus(1), 0);
}

TEST_F(AgentReportsTest, AFencedCleanUpOfAnotherNodeRequeuesToo) {
  const uint32_t id = StartRunning(2);
  Effects e = ReportWith(1, id, JobPhase::kCleanedUp, Job(id).run_id,
                         [](JobReport& r) { r.fenced = true; });
  EXPECT_EQ(Job(id).state, JobState::kPending);
  EXPECT_EQ(Job(id).restart_count, 1);
}

TEST_F(AgentReportsTest, AFencedRunOfANoRequeueJobEndsNodeFail) {
  AllNodesUp();
  SubmitRequest once = Request(1, 4);
  once.spec.Mutable().requeue = false;
  Effects e;
  const uint32_t id = jobs_->Submit(once, alice_, e)->job_id.value();
  Schedule();
  Report(0, id, JobPhase::kLaunched, 0, 0, Job(id).run_id);
  ASSERT_EQ(Job(id).state, JobState::kRunning);
  ReportWith(0, id, JobPhase::kExited, Job(id).run_id, [](JobReport& r) { r.fenced = true; });
  EXPECT_EQ(Job(id).state, JobState::kNodeFail);
}

TEST_F(AgentReportsTest, AFencedReportAboutARunAlreadyRequeuedChangesNothing) {
  const uint32_t id = StartRunning(2);
  const uint32_t old_run = Job(id).run_id;
  Effects down;
  jobs_->NodeChanged(Node(1, /*up=*/false), down);  // the controller requeued it first
  Schedule();
  ASSERT_EQ(Job(id).state, JobState::kConfiguring);
  const int32_t restarts = Job(id).restart_count;
  Effects e =
      ReportWith(1, id, JobPhase::kCleanedUp, old_run, [](JobReport& r) { r.fenced = true; });
  EXPECT_EQ(Job(id).state, JobState::kConfiguring);
  EXPECT_EQ(Job(id).restart_count, restarts);
}

TEST_F(AgentReportsTest, ConfirmationLearnedAtRegistrationStartsTheJob) {
  AllNodesUp();
  const uint32_t id = Submit(2, 4);
  Schedule();
  Report(0, id, JobPhase::kLaunched);
  // gpu2's LAUNCHED was lost with its stream; it re-registers listing the job.
  Effects e;
  jobs_->NodeRegistered(Node(1), {RunningJob{core::JobId(id), 0, {}, 0, {}}}, e);
  EXPECT_EQ(Job(id).state, JobState::kRunning);
}

// After a restart the controller remembers no cleanup hold: a node that registers still running
// a job it does not place there keeps what that job uses held until the node reports it gone.
// Before, those GPUs went to the next job while the old processes still ran.
TEST_F(AgentReportsTest, ALeftoverJobAtRegistrationKeepsItsGpusHeldUntilCleanedUp) {
  AllNodesUp();
  Effects e;
  std::vector<uint32_t> kill = jobs_->NodeRegistered(
      Node(0), {RunningJob{core::JobId(42), /*run_id=*/3, /*gpu_indexes=*/{1, 2}, /*cpus=*/2, {}}},
      e);
  EXPECT_THAT(kill, ElementsAre(42));
  EXPECT_EQ(FreeGpus(0), 2);
  EXPECT_EQ(jobs_->cleanup_holds(), 1u);
  // A job for four GPUs goes to another node; one for two fits beside the leftover.
  const uint32_t big = Submit(1, 4);
  const uint32_t small = Submit(1, 2);
  Schedule();
  EXPECT_THAT(Nodes(big), ElementsAre("gpu2"));
  EXPECT_THAT(Nodes(small), ElementsAre("gpu1"));
  EXPECT_THAT(Job(small).allocation.nodes[0].gpu_indexes, ElementsAre(0, 3));
  // A leftover naming GPUs another job now has holds only the free ones: its release must not
  // free the small job's GPU 0.
  jobs_->NodeRegistered(Node(0), {RunningJob{core::JobId(43), 1, {0, 1}, 0, {}}}, e);
  EXPECT_EQ(jobs_->cleanup_holds(), 2u);
  Report(0, 43, JobPhase::kCleanedUp, 0, 0, /*run_id=*/1);
  EXPECT_EQ(jobs_->cleanup_holds(), 1u);
  EXPECT_EQ(FreeGpus(0), 0);  // 0 and 3 are still the small job's, 1 and 2 still held for 42
  // Registering again (a reconnect) does not hold twice.
  jobs_->NodeRegistered(Node(0), {RunningJob{core::JobId(42), 3, {1, 2}, 2, {}}}, e);
  EXPECT_EQ(jobs_->cleanup_holds(), 1u);
  // The node reports the old run gone: free again.
  Report(0, 42, JobPhase::kCleanedUp, 0, 0, /*run_id=*/3);
  EXPECT_EQ(jobs_->cleanup_holds(), 0u);
  EXPECT_EQ(FreeGpus(0), 2);  // the small job's two
}

TEST_F(AgentReportsTest, ALeftoverThatNeverReportsIsReleasedAfterKillWaitAndGrace) {
  AllNodesUp();
  Effects e;
  jobs_->NodeRegistered(Node(0), {RunningJob{core::JobId(42), 1, {0, 1, 2, 3}, 8, {}}}, e);
  EXPECT_EQ(FreeGpus(0), 0);
  clock_.Advance(config_->kill_wait + kCleanupGrace + absl::Seconds(1));
  Tick();
  EXPECT_EQ(FreeGpus(0), 4);
}

TEST_F(AgentReportsTest, AJobAlreadyHeldAfterARequeueIsNotHeldTwice) {
  const uint32_t id = StartRunning(1);
  Effects e;
  // Requeued (a GPU of gpu1 it uses broke): the controller keeps its own hold on gpu1.
  state::NodeRecord broken = Node(0);
  broken.registration.gpus[0].healthy = false;
  jobs_->NodeChanged(broken, e);
  ASSERT_EQ(Job(id).state, JobState::kPending);
  const size_t holds = jobs_->cleanup_holds();
  ASSERT_GE(holds, 1u);
  jobs_->NodeRegistered(broken, {RunningJob{core::JobId(id), 1, {0, 1, 2, 3}, 8, {}}}, e);
  EXPECT_EQ(jobs_->cleanup_holds(), holds);
}

}  // namespace
}  // namespace canopy::lifecycle
