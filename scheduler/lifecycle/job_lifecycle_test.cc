// The job lifecycle as a state machine driven by events, with no I/O: submit, gang launch with
// confirmation, exits and cleanup, limits, cancel, node loss, arrays. Steps are in steps_test.cc,
// restart recovery in restore_test.cc; the fixture in job_lifecycle_test_fixture.h.
#include "scheduler/lifecycle/job_lifecycle.h"

#include <map>
#include <random>
#include <string>
#include <variant>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/lifecycle/job_lifecycle_test_fixture.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/test_cluster.h"

namespace canopy::lifecycle {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST_F(JobLifecycleTest, GangLaunchConfirmExitCleanupComplete) {
  AllNodesUp();
  const uint32_t id = Submit(2, 4);
  EXPECT_EQ(id, 1u);
  EXPECT_EQ(Job(id).state, JobState::kPending);
  EXPECT_EQ(Job(id).user_name, "alice");
  EXPECT_EQ(Job(id).partition, "gpu");
  EXPECT_EQ(Job(id).time_limit, absl::Hours(1));  // partition MaxTime

  Effects e = Schedule();
  EXPECT_EQ(Job(id).state, JobState::kConfiguring);
  EXPECT_THAT(Nodes(id), ElementsAre("gpu1", "gpu2"));  // one leaf, as placement wants
  ASSERT_THAT(Targets<LaunchJob>(e), ElementsAre(0, 1));
  const LaunchJob& first = Nth<LaunchJob>(e, 0);
  EXPECT_EQ(first.node_index, 0);
  EXPECT_EQ(Nth<LaunchJob>(e, 1).node_index, 1);
  EXPECT_EQ(first.job, Nth<LaunchJob>(e, 1).job);  // one record shared by the gang's messages
  EXPECT_THAT(first.job->allocation.nodes[0].gpu_indexes, ElementsAre(0, 1, 2, 3));
  EXPECT_EQ(first.job->spec->script, "#!/bin/sh\ntrue\n");
  EXPECT_EQ(first.job->run_id, 1u);
  EXPECT_EQ(FreeGpus(0), 0);
  ASSERT_EQ(e.started.size(), 1u);
  EXPECT_EQ(e.started[0].job, core::JobId(id));

  clock_.Advance(absl::Seconds(1));
  Report(0, id, JobPhase::kLaunched);
  EXPECT_EQ(Job(id).state, JobState::kConfiguring);  // gpu2 has not confirmed
  Report(1, id, JobPhase::kLaunched);
  EXPECT_EQ(Job(id).state, JobState::kRunning);
  EXPECT_EQ(Job(id).start_time, kT0 + absl::Seconds(1));

  clock_.Advance(absl::Seconds(10));
  e = Report(0, id, JobPhase::kExited, 3);
  EXPECT_EQ(Job(id).state, JobState::kCompleting);
  EXPECT_EQ(Job(id).completing_to, JobState::kFailed);
  EXPECT_THAT(Targets<KillJob>(e), ElementsAre(0, 1));
  EXPECT_THAT(Targets<JobReportAck>(e), ElementsAre(0));  // the exit is acknowledged after commit
  Report(0, id, JobPhase::kCleanedUp);
  EXPECT_EQ(FreeGpus(0), 0);  // still held: gpu2 not clean
  Report(1, id, JobPhase::kCleanedUp);
  const core::Job& done = Job(id);
  EXPECT_EQ(done.state, JobState::kFailed);
  EXPECT_EQ(done.exit_code, 3);
  EXPECT_EQ(done.reason, core::JobReason::kNonZeroExitCode);  // as Slurm's squeue -t all shows
  EXPECT_THAT(Nodes(id), ElementsAre("gpu1", "gpu2"));        // where it ran stays on record
  EXPECT_EQ(FreeGpus(0), 4);
  EXPECT_EQ(done.end_time, clock_.Now());
}

TEST_F(JobLifecycleTest, ExitAndCleanupReportsAreAcknowledgedEvenForUnknownJobs) {
  Effects e = Report(0, 99, JobPhase::kExited);
  ASSERT_THAT(Targets<JobReportAck>(e), ElementsAre(0));
  EXPECT_EQ(Nth<JobReportAck>(e, 0).job, core::JobId(99));
  EXPECT_EQ(Nth<JobReportAck>(e, 0).phase, JobPhase::kExited);
  e = Report(0, 99, JobPhase::kLaunched);
  EXPECT_TRUE(e.messages.empty());
}

TEST_F(JobLifecycleTest, AWaitingJobsReasonFromAPassIsShownButNotSaved) {
  AllNodesUp();
  const uint32_t half = Submit(4, 2);  // half of every node's GPUs
  Schedule();
  ASSERT_EQ(Job(half).state, JobState::kConfiguring);
  const uint32_t waiting = Submit(1, 4);
  Effects e = Schedule();
  EXPECT_EQ(Job(waiting).reason, core::JobReason::kResources);
  // Published (squeue shows it) but not written: every pass finds it again.
  EXPECT_TRUE(e.republish.contains(core::JobId(waiting)));
  EXPECT_FALSE(e.dirty.contains(core::JobId(waiting)));
}

TEST_F(JobLifecycleTest, NoMainPassRunsWhileNoNodeCouldTakeAJob) {
  // Every node held whole by an exclusive job.
  AllNodesUp();
  SubmitRequest whole = Request(4, 4);
  whole.spec.Mutable().exclusive = true;
  Effects e;
  ASSERT_TRUE(jobs_->Submit(whole, alice_, e).ok());
  Effects first = Schedule();  // the first pass is a backfill pass: it runs
  ASSERT_TRUE(first.pass.has_value());
  const uint32_t waiting = Submit(1, 1);
  clock_.Advance(absl::Seconds(1));  // within bf_interval: a main pass would be next
  Effects skipped = Schedule();
  EXPECT_FALSE(skipped.pass.has_value()) << "nothing could start: the pass sorts in vain";
  EXPECT_EQ(Job(waiting).state, JobState::kPending);
  // The backfill pass still runs when due, and finds the job's reason.
  clock_.Advance(config_->scheduling.scheduler.parameters.bf_interval);
  Effects backfill = Schedule();
  ASSERT_TRUE(backfill.pass.has_value());
  EXPECT_TRUE(backfill.pass_backfilled);
  EXPECT_EQ(Job(waiting).reason, core::JobReason::kResources);
}

TEST_F(JobLifecycleTest, UnconfirmedLaunchGoesBackToPendingAndKillsWhatStarted) {
  AllNodesUp();
  const uint32_t id = Submit(2, 4);
  Schedule();
  Report(0, id, JobPhase::kLaunched);
  EXPECT_EQ(jobs_->NextDeadline(), kT0 + absl::Seconds(10));  // launch_timeout
  clock_.Advance(absl::Seconds(11));                          // gpu2 never answered
  Effects e = Tick();
  const core::Job& j = Job(id);
  EXPECT_EQ(j.state, JobState::kPending);
  EXPECT_EQ(j.reason, core::JobReason::kResources);
  EXPECT_EQ(j.restart_count, 0);
  EXPECT_TRUE(j.allocation.empty());
  EXPECT_THAT(j.state_message, HasSubstr("gpu2"));
  EXPECT_THAT(Targets<KillJob>(e), ElementsAre(0, 1));
  EXPECT_TRUE(e.schedule);
  // The nodes stay held until they confirm that what may have started there is gone.
  EXPECT_EQ(FreeGpus(0), 0);
  EXPECT_EQ(jobs_->cleanup_holds(), 2u);
  Report(0, id, JobPhase::kCleanedUp, 0, 0, /*run_id=*/1);
  EXPECT_EQ(FreeGpus(0), 4);
  EXPECT_EQ(FreeGpus(1), 0);
  // KillWait + 60 s: gpu2 never answered; its share is freed anyway.
  EXPECT_EQ(jobs_->NextDeadline(), kT0 + absl::Seconds(11 + 5 + 60));
  clock_.Advance(absl::Seconds(70));
  Tick();
  EXPECT_EQ(FreeGpus(1), 4);
  EXPECT_EQ(jobs_->cleanup_holds(), 0u);
  // Only the fair-share recalculation (every PriorityCalcPeriod) is left to do.
  EXPECT_EQ(jobs_->NextDeadline(), jobs_->accounting().next_calc());
  EXPECT_GT(jobs_->NextDeadline(), clock_.Now());
}

TEST_F(JobLifecycleTest, LaunchFailureFailsTheJob) {
  AllNodesUp();
  const uint32_t id = Submit(1, 1);
  Schedule();
  JobReport r;
  r.job = core::JobId(id);
  r.phase = JobPhase::kLaunchFailed;
  r.message = "chdir to /nope: No such file or directory";
  Effects e;
  jobs_->JobReported(core::NodeId(0), r, e);
  EXPECT_EQ(Job(id).state, JobState::kCompleting);
  Report(0, id, JobPhase::kCleanedUp);
  EXPECT_EQ(Job(id).state, JobState::kFailed);
  EXPECT_EQ(Job(id).exit_code, 1);
  EXPECT_THAT(Job(id).state_message, HasSubstr("chdir to /nope"));
}

TEST_F(JobLifecycleTest, TimeLimitKillsAndEndsAsTimeout) {
  AllNodesUp();
  SubmitRequest req = Request(1, 0, "#!/bin/sh\nsleep 1000\n");
  req.spec.Mutable().time_limit = absl::Minutes(1);
  req.spec.Mutable().warn_signal = 10;
  req.spec.Mutable().warn_time = absl::Seconds(20);
  req.spec.Mutable().warn_batch_only = true;
  Effects e;
  const uint32_t id = jobs_->Submit(req, alice_, e)->job_id.value();
  Schedule();
  Report(0, id, JobPhase::kLaunched);
  const absl::Time started = clock_.Now();
  EXPECT_EQ(jobs_->NextDeadline(), started + absl::Seconds(40));  // --signal=B:USR1@20

  clock_.Set(started + absl::Seconds(39));
  EXPECT_THAT(Targets<SignalJob>(Tick()), ElementsAre());
  clock_.Set(started + absl::Seconds(40));
  e = Tick();
  ASSERT_THAT(Targets<SignalJob>(e), ElementsAre(0));
  EXPECT_EQ(Nth<SignalJob>(e, 0).signal, 10);
  EXPECT_TRUE(Nth<SignalJob>(e, 0).batch_only);
  EXPECT_EQ(jobs_->NextDeadline(), started + absl::Seconds(60));

  clock_.Set(started + absl::Seconds(60));
  e = Tick();
  EXPECT_EQ(Job(id).state, JobState::kCompleting);
  EXPECT_THAT(Targets<KillJob>(e), ElementsAre(0));
  Report(0, id, JobPhase::kExited, 0, 15);
  EXPECT_EQ(Job(id).state, JobState::kCompleting);
  Report(0, id, JobPhase::kCleanedUp);
  EXPECT_EQ(Job(id).state, JobState::kTimeout);
  EXPECT_EQ(Job(id).reason, core::JobReason::kTimeLimit);
  EXPECT_EQ(Job(id).exit_signal, 15);
}

TEST_F(JobLifecycleTest, CancelRespectsOwnershipAndStates) {
  AllNodesUp();
  const uint32_t running = Submit(4, 4);  // takes every node
  const uint32_t waiting = Submit(1, 1);
  Schedule();
  for (int i = 0; i < 4; ++i) {
    Report(i, running, JobPhase::kLaunched);
  }

  CancelRequest req;
  req.job_ids = {waiting, 77};
  Effects e;
  std::vector<CancelAnswer> r = jobs_->Cancel(req, bob_, e);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_FALSE(r[0].ok);
  EXPECT_EQ(r[0].error, "Access/permission denied");
  EXPECT_EQ(r[1].error, "Invalid job id specified");

  Caller root;
  root.authenticated = true;
  root.is_operator = true;
  root.user_name = "root";
  r = jobs_->Cancel(req, root, e);
  EXPECT_TRUE(r[0].ok);
  EXPECT_EQ(Job(waiting).state, JobState::kCancelled);
  EXPECT_EQ(jobs_->pending_count(), 0u);
  r = jobs_->Cancel(req, root, e);
  EXPECT_EQ(r[0].error, "Job/step already completing or completed");

  // A running job is killed everywhere and ends CANCELLED once every node cleaned up.
  e = Effects();
  r = jobs_->Cancel(CancelRequest{.job_ids = {running}}, alice_, e);
  EXPECT_TRUE(r[0].ok);
  EXPECT_THAT(Targets<KillJob>(e), ElementsAre(0, 1, 2, 3));
  for (int i = 0; i < 4; ++i) {
    Report(i, running, JobPhase::kCleanedUp);
  }
  EXPECT_EQ(Job(running).state, JobState::kCancelled);
  EXPECT_THAT(Job(running).state_message, HasSubstr("cancelled by alice"));
}

TEST_F(JobLifecycleTest, SignalGoesToTheJobsNodes) {
  const uint32_t id = StartRunning();
  CancelRequest req;
  req.job_ids = {id};
  req.signal = 10;
  Effects e;
  EXPECT_TRUE(jobs_->Cancel(req, alice_, e)[0].ok);
  EXPECT_THAT(Targets<SignalJob>(e), ElementsAre(0, 1));
  EXPECT_EQ(Job(id).state, JobState::kRunning);
}

TEST_F(JobLifecycleTest, NodeLossRequeuesOrFailsTheJob) {
  const uint32_t id = StartRunning();
  Effects e;
  jobs_->NodeChanged(Node(1, /*up=*/false), e);
  EXPECT_EQ(Job(id).state, JobState::kPending);
  EXPECT_EQ(Job(id).restart_count, 1);
  EXPECT_THAT(Job(id).state_message, HasSubstr("gpu2"));
  EXPECT_THAT(Targets<KillJob>(e), ElementsAre(0, 1));
  // gpu1 is held until its old processes are gone; the down gpu2 is not.
  EXPECT_EQ(FreeGpus(0), 0);
  EXPECT_EQ(jobs_->cleanup_holds(), 1u);

  // It starts again on what is left, avoiding the down node and the one still cleaning up.
  Schedule();
  EXPECT_EQ(Job(id).state, JobState::kConfiguring);
  EXPECT_THAT(Nodes(id), ElementsAre("gpu3", "gpu4"));
  Report(0, id, JobPhase::kCleanedUp, 0, 0, /*run_id=*/1);
  EXPECT_EQ(FreeGpus(0), 4);

  // Without --requeue a lost node ends the job NODE_FAIL; it keeps where it ran.
  Effects up;
  jobs_->NodeChanged(Node(1), up);
  SubmitRequest once = Request(1, 4);
  once.spec.Mutable().requeue = false;
  once.spec.Mutable().required_nodes = "gpu2";
  const uint32_t fragile = jobs_->Submit(once, alice_, e)->job_id.value();
  Schedule();
  Report(1, fragile, JobPhase::kLaunched);
  jobs_->NodeChanged(Node(1, /*up=*/false), e);
  EXPECT_EQ(Job(fragile).state, JobState::kNodeFail);
  EXPECT_THAT(Nodes(fragile), ElementsAre("gpu2"));
}

TEST_F(JobLifecycleTest, RequeueRecordsTheRunThatEndedForAccounting) {
  const uint32_t id = StartRunning();
  clock_.Advance(absl::Seconds(30));
  Effects e;
  jobs_->NodeChanged(Node(1, /*up=*/false), e);
  ASSERT_EQ(e.attempts.size(), 1u);
  const core::JobAttempt& run = e.attempts[0];
  EXPECT_EQ(run.job, core::JobId(id));
  EXPECT_EQ(run.attempt, 0);
  EXPECT_EQ(run.state, JobState::kNodeFail);
  EXPECT_EQ(run.start_time, kT0);
  EXPECT_EQ(run.end_time, kT0 + absl::Seconds(30));
  EXPECT_EQ(run.allocation.nodes.size(), 2u);
  EXPECT_THAT(run.state_message, HasSubstr("gpu2"));
  EXPECT_EQ(Job(id).restart_count, 1);

  // A launch that never ran is no run of its own: nothing recorded.
  Schedule();
  clock_.Advance(config_->launch_timeout + absl::Seconds(1));
  Effects timeout = Tick();
  EXPECT_EQ(Job(id).state, JobState::kPending);
  EXPECT_TRUE(timeout.attempts.empty());
}

TEST_F(JobLifecycleTest, FinishedJobsLeaveMemoryAfterMinJobAge) {
  AllNodesUp();
  SubmitRequest req = Request(1, 1);
  req.spec.Mutable().array_spec = "1-3";
  Effects e;
  ASSERT_TRUE(jobs_->Submit(req, alice_, e).ok());
  Schedule();
  auto node_of = [&](uint32_t task) {
    return static_cast<int>(Job(task).allocation.nodes.at(0).node.value());
  };
  for (uint32_t task = 1; task <= 3; ++task) {
    Report(node_of(task), task, JobPhase::kLaunched);
  }
  // The array's first task (whose id is the array's) finishes.
  Report(node_of(1), 1, JobPhase::kExited);
  Report(node_of(1), 1, JobPhase::kCleanedUp);
  EXPECT_EQ(Job(1).state, JobState::kCompleted);

  clock_.Advance(config_->min_job_age - absl::Seconds(1));
  EXPECT_TRUE(Tick().forgotten.empty());
  EXPECT_NE(jobs_->Find(core::JobId(1)), nullptr);
  clock_.Advance(absl::Seconds(1));
  Effects forgot = Tick();
  EXPECT_THAT(forgot.forgotten, ElementsAre(core::JobId(1)));
  EXPECT_FALSE(forgot.dirty.contains(core::JobId(1)));
  EXPECT_EQ(jobs_->Find(core::JobId(1)), nullptr);

  // The array's id still names the tasks that remain.
  e = Effects();
  std::vector<CancelAnswer> answers = jobs_->Cancel(CancelRequest{.job_ids = {1}}, alice_, e);
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_TRUE(answers[0].ok) << answers[0].error;
  EXPECT_EQ(Job(2).state, JobState::kCompleting);
  EXPECT_EQ(Job(3).state, JobState::kCompleting);
}

TEST_F(JobLifecycleTest, BrokenGpuOfTheJobRequeuesIt) {
  const uint32_t id = StartRunning(1);
  state::NodeRecord n = Node(0);
  n.registration.gpus[2].healthy = false;
  Effects e;
  jobs_->NodeChanged(n, e);
  EXPECT_EQ(Job(id).state, JobState::kPending);
  EXPECT_FALSE(jobs_->capacity().node(core::NodeId(0)).healthy);
}

// A request that holds its spec alone gives it to the job: the spec allocated where the request
// was made (an RPC thread) is the job's, not copied on the owner thread. A spec the caller still
// shares is copied before it is changed, and the caller's stays as it was.
TEST_F(JobLifecycleTest, SubmitTakesASpecTheRequestHoldsAloneAndCopiesASharedOne) {
  Effects e;
  SubmitRequest alone = Request(1, 1);
  const core::JobSpec* submitted = &alone.spec.get();
  absl::StatusOr<SubmitAnswer> first = jobs_->Submit(std::move(alone), alice_, e);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(&Job(first->job_id.value()).spec.get(), submitted);
  EXPECT_EQ(Job(first->job_id.value()).spec->name, "sbatch");

  const SubmitRequest kept = Request(1, 1);
  absl::StatusOr<SubmitAnswer> second = jobs_->Submit(kept, alice_, e);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_NE(&Job(second->job_id.value()).spec.get(), &kept.spec.get());
  EXPECT_EQ(Job(second->job_id.value()).spec->name, "sbatch");
  EXPECT_EQ(kept.spec->name, "") << "the caller's spec is not changed";
}

TEST_F(JobLifecycleTest, SubmitRefusesWhatCanNeverRunAndAnonymousCallers) {
  SubmitRequest req = Request(1, 0);
  req.spec.Mutable().partition = "nosuchpart";
  Effects e;
  absl::StatusOr<SubmitAnswer> r = jobs_->Submit(req, alice_, e);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("Invalid partition name specified"));

  req.spec.Mutable().partition.clear();
  req.spec.Mutable().gpus_per_node = 9;
  r = jobs_->Submit(req, alice_, e);
  EXPECT_THAT(r.status().message(), HasSubstr("Requested node configuration is not available"));

  // -n 2 --ntasks-per-node=1 -N 1: two tasks cannot fit one node at one a node (Slurm 22.05
  // refuses it); on -N 1-2 they can.
  req.spec.Mutable().gpus_per_node = 0;
  req.spec.Mutable().ntasks = 2;
  req.spec.Mutable().ntasks_per_node = 1;
  r = jobs_->Submit(req, alice_, e);
  EXPECT_THAT(r.status().message(), HasSubstr("Requested node configuration is not available"));
  req.spec.Mutable().max_nodes = 2;
  Effects accepted;  // `e` must stay clean: everything else here is refused
  EXPECT_TRUE(jobs_->Submit(req, alice_, accepted).ok());
  req.spec.Mutable().max_nodes = 0;
  req.spec.Mutable().ntasks = 0;
  req.spec.Mutable().ntasks_per_node = 0;

  req.spec.Mutable().gpus_per_node = 1;
  req.spec.Mutable().required_nodes = "gpu9";
  r = jobs_->Submit(req, alice_, e);
  EXPECT_THAT(r.status().message(), HasSubstr("Invalid node name specified"));

  req.spec.Mutable().required_nodes.clear();
  req.spec.Mutable().environment = std::map<std::string, std::string>{{"A=B", "x"}};
  r = jobs_->Submit(req, alice_, e);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("environment"));

  req.spec.Mutable().environment = {};
  Caller anonymous;
  r = jobs_->Submit(req, anonymous, e);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(r.status().message(), HasSubstr("unix socket"));
  EXPECT_TRUE(e.dirty.empty());
}

TEST_F(JobLifecycleTest, FewerTasksThanNodesCutTheNodeCountAsSbatchDoes) {
  SubmitRequest req = Request(4, 0);
  req.spec.Mutable().ntasks = 2;
  Effects e;
  const uint32_t id = jobs_->Submit(req, alice_, e)->job_id.value();
  EXPECT_EQ(Job(id).resources.min_nodes, 2);
  EXPECT_EQ(Job(id).spec->min_nodes, 4);  // as submitted
}

// CPUs per node as slurmctld gives them: --cpus-per-gpu times the GPUs, and -O one task's CPUs
// whatever the task count (Slurm 22.05: --cpus-per-gpu=2 --gpus=1 got 2 CPUs; -O -n2 got 1).
TEST_F(JobLifecycleTest, CpusPerGpuAndOvercommitShapeTheCpusPerNode) {
  SubmitRequest req = Request(1, 2);
  req.spec.Mutable().cpus_per_gpu = 3;
  Effects e;
  uint32_t id = jobs_->Submit(req, alice_, e)->job_id.value();
  EXPECT_EQ(Job(id).resources.cpus_per_node, 6);
  req.spec.Mutable().ntasks = 8;  // more CPUs by tasks than by GPUs: the tasks' count
  id = jobs_->Submit(req, alice_, e)->job_id.value();
  EXPECT_EQ(Job(id).resources.cpus_per_node, 8);

  req = Request(1, 0);
  req.spec.Mutable().ntasks = 4;
  req.spec.Mutable().cpus_per_task = 2;
  req.spec.Mutable().overcommit = true;
  id = jobs_->Submit(req, alice_, e)->job_id.value();
  EXPECT_EQ(Job(id).resources.cpus_per_node, 2);
  req.spec.Mutable().overcommit = false;
  id = jobs_->Submit(req, alice_, e)->job_id.value();
  EXPECT_EQ(Job(id).resources.cpus_per_node, 8);

  // Absurd counts stay absurd instead of wrapping round to a few CPUs.
  req = Request(1, 2);
  req.spec.Mutable().cpus_per_gpu = 1 << 30;
  Effects refused;
  EXPECT_THAT(jobs_->Submit(req, alice_, refused).status().message(),
              HasSubstr("Requested node configuration is not available"));
}

TEST_F(JobLifecycleTest, TooManyNodesForThePartitionPendsWithPartitionNodeLimit) {
  AllNodesUp();
  SubmitRequest req = Request(2, 0);
  req.spec.Mutable().partition = "tiny";
  Effects e;
  const uint32_t id = jobs_->Submit(req, alice_, e)->job_id.value();
  Schedule();
  EXPECT_EQ(Job(id).state, JobState::kPending);
  EXPECT_EQ(Job(id).reason, core::JobReason::kPartitionNodeLimit);
  EXPECT_EQ(jobs_->pending_count(), 0u);  // the pass does not look at it
}

TEST_F(JobLifecycleTest, HeldJobWaitsAndIdempotentSubmitReturnsTheFirstId) {
  AllNodesUp();
  SubmitRequest req = Request(1, 0);
  req.spec.Mutable().hold = true;
  req.idempotency_key = "k1";
  Effects e;
  const uint32_t id = jobs_->Submit(req, alice_, e)->job_id.value();
  EXPECT_EQ(jobs_->Submit(req, alice_, e)->job_id.value(), id);
  // Keys are per user: bob's "k1" is a submission of its own, not alice's job.
  const uint32_t bobs = jobs_->Submit(req, bob_, e)->job_id.value();
  EXPECT_NE(bobs, id);
  EXPECT_EQ(Job(bobs).user_id, bob_.uid);
  EXPECT_EQ(jobs_->Submit(req, bob_, e)->job_id.value(), bobs);
  Schedule();
  EXPECT_EQ(Job(id).state, JobState::kPending);
  EXPECT_EQ(Job(id).reason, core::JobReason::kJobHeldUser);
  EXPECT_EQ(jobs_->next_job_id(), bobs + 1);
}

TEST_F(JobLifecycleTest, ArrayTasksGetConsecutiveIdsAndHonourTheThrottle) {
  AllNodesUp();
  SubmitRequest req = Request(1, 1);
  req.spec.Mutable().array_spec = "1-3%2";
  req.idempotency_key = "array";
  Effects e;
  absl::StatusOr<SubmitAnswer> r = jobs_->Submit(req, alice_, e);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->job_id, core::JobId(1));
  EXPECT_THAT(r->array_task_job_ids, ElementsAre(core::JobId(1), core::JobId(2), core::JobId(3)));
  EXPECT_EQ(Job(3).array_job_id, 1u);
  EXPECT_EQ(Job(3).array_task_id, 3u);
  // The tasks hold one spec between them, with the name the submission got.
  EXPECT_TRUE(Job(1).spec.SharesWith(Job(3).spec));
  EXPECT_EQ(Job(3).spec->name, "sbatch");
  // A retried submit of the array gets the same answer.
  absl::StatusOr<SubmitAnswer> again = jobs_->Submit(req, alice_, e);
  EXPECT_EQ(again->job_id, core::JobId(1));
  EXPECT_EQ(again->array_task_job_ids.size(), 3u);
  Schedule();
  EXPECT_EQ(Job(1).state, JobState::kConfiguring);
  EXPECT_EQ(Job(2).state, JobState::kConfiguring);
  EXPECT_EQ(Job(3).state, JobState::kPending);                    // %2
  EXPECT_EQ(Job(3).reason, core::JobReason::kJobArrayTaskLimit);  // Slurm's reason, in squeue

  // Cancelling the array's id cancels every task.
  e = Effects();
  EXPECT_TRUE(jobs_->Cancel(CancelRequest{.job_ids = {1}}, alice_, e)[0].ok);
  EXPECT_EQ(Job(3).state, JobState::kCancelled);
}

TEST_F(JobLifecycleTest, AllocationOnlyJobEndsWithCompleteJob) {
  AllNodesUp();
  const uint32_t id = Submit(1, 0, /*script=*/"");
  Schedule();
  Report(0, id, JobPhase::kLaunched);
  Effects e;
  ASSERT_TRUE(jobs_->CompleteJob(CompleteRequest{core::JobId(id), 2, 0}, alice_, e).ok());
  Report(0, id, JobPhase::kCleanedUp);
  EXPECT_EQ(Job(id).state, JobState::kFailed);
  EXPECT_EQ(Job(id).exit_code, 2);
  EXPECT_EQ(Job(id).spec->name, "interactive");
}

TEST_F(JobLifecycleTest, ReportsFromAnEarlierRunAreAcknowledgedButIgnored) {
  Effects up;
  jobs_->NodeChanged(Node(0), up);  // only gpu1
  const uint32_t id = Submit(1, 4);
  Schedule();
  EXPECT_EQ(Job(id).run_id, 1u);
  clock_.Advance(absl::Seconds(11));  // never confirmed: back to PENDING
  Tick();
  Schedule();
  // gpu1 is held until the first run is cleaned up there.
  ASSERT_EQ(Job(id).state, JobState::kPending);
  // The first run's script dies of the kill: acknowledged, and ignored.
  Effects e = Report(0, id, JobPhase::kExited, 0, 15, /*run_id=*/1);
  EXPECT_THAT(Targets<JobReportAck>(e), ElementsAre(0));
  EXPECT_EQ(Job(id).state, JobState::kPending);
  EXPECT_EQ(Job(id).exit_signal, 0);
  Report(0, id, JobPhase::kCleanedUp, 0, 0, 1);
  Schedule();
  ASSERT_EQ(Job(id).state, JobState::kConfiguring);
  EXPECT_EQ(Job(id).run_id, 2u);
  EXPECT_EQ(Job(id).restart_count, 0);
  // A late report of run 1 still changes nothing; run 2's confirmation starts it.
  Report(0, id, JobPhase::kExited, 0, 15, 1);
  EXPECT_EQ(Job(id).state, JobState::kConfiguring);
  Report(0, id, JobPhase::kLaunched, 0, 0, 2);
  EXPECT_EQ(Job(id).state, JobState::kRunning);
}

TEST_F(JobLifecycleTest, CompleteJobWhileStartingIsRefusedAndNodeLossThenIsNoRestart) {
  AllNodesUp();
  const uint32_t id = Submit(2, 0, /*script=*/"");
  Schedule();
  Effects e;
  EXPECT_EQ(jobs_->CompleteJob(CompleteRequest{core::JobId(id), 0, 0}, alice_, e).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(Job(id).state, JobState::kConfiguring);
  e = Effects();
  jobs_->NodeChanged(Node(1, /*up=*/false), e);
  EXPECT_EQ(Job(id).state, JobState::kPending);
  EXPECT_EQ(Job(id).restart_count, 0);                         // it never ran
  EXPECT_EQ(jobs_->capacity().node(core::NodeId(0)).jobs, 1);  // held until it cleans up
  Report(0, id, JobPhase::kCleanedUp);  // an agent that never had the job says run 0
  EXPECT_EQ(jobs_->capacity().node(core::NodeId(0)).jobs, 0);
}

// The indexes the lifecycle keeps (pending set, deadlines, nodes' job lists) always agree with
// a brute-force look at the records, whatever happens to the jobs.
TEST_F(JobLifecycleTest, IndexesAgreeWithTheRecordsThroughARandomDay) {
  AllNodesUp();
  std::mt19937 rng(11);
  // A random job in `state`, or nullptr.
  auto pick = [&](JobState state) -> const core::Job* {
    std::vector<const core::Job*> in;
    for (const auto& [id, j] : jobs_->jobs().jobs()) {
      if (j->state == state) {
        in.push_back(j.get());
      }
    }
    return in.empty() ? nullptr : in[rng() % in.size()];
  };
  auto report_all = [&](const core::Job* job, JobPhase phase, Effects& e) {
    if (job == nullptr) {
      return;
    }
    JobReport r;
    r.job = job->id;
    r.phase = phase;
    const std::vector<core::NodeShare> nodes = job->allocation.nodes;  // may change under us
    for (const core::NodeShare& share : nodes) {
      jobs_->JobReported(share.node, r, e);
      if (phase == JobPhase::kExited) {
        break;  // the batch host only
      }
    }
  };
  for (int step = 0; step < 600; ++step) {
    Effects e;
    switch (rng() % 10) {
      case 0:
      case 1: {
        SubmitRequest req = Request(1 + static_cast<int>(rng() % 2), static_cast<int>(rng() % 5));
        req.spec.Mutable().time_limit = absl::Seconds(10 + rng() % 60);
        req.spec.Mutable().hold = rng() % 20 == 0;
        (void)jobs_->Submit(req, alice_, e);
        break;
      }
      case 2:
        jobs_->Schedule(e);
        break;
      case 3:  // agents confirm quickly: every starting job
        for (const auto& [id, j] : jobs_->jobs().jobs()) {
          if (j->state == JobState::kConfiguring) {
            report_all(j.get(), JobPhase::kLaunched, e);
          }
        }
        break;
      case 4:
        report_all(pick(JobState::kRunning), JobPhase::kExited, e);
        break;
      case 5:
        report_all(pick(JobState::kCompleting), JobPhase::kCleanedUp, e);
        // A requeued job's old run is cleaned up where it left processes.
        if (const core::Job* job = pick(JobState::kPending); job != nullptr && job->run_id > 0) {
          JobReport r;
          r.job = job->id;
          r.phase = JobPhase::kCleanedUp;
          r.run_id = job->run_id;
          for (int n = 0; n < 4; ++n) {
            jobs_->JobReported(core::NodeId(n), r, e);
          }
        }
        break;
      case 6:
        if (const core::Job* job = pick(rng() % 2 ? JobState::kPending : JobState::kRunning)) {
          (void)jobs_->Cancel(CancelRequest{.job_ids = {job->id.value()}}, alice_, e);
        }
        break;
      default:
        jobs_->NodeChanged(Node(static_cast<int>(rng() % 4), rng() % 4 != 0), e);
        break;
    }
    clock_.Advance(absl::Seconds(rng() % 4));
    jobs_->Tick(e);

    size_t pending = 0;
    for (const auto& [id, ptr] : jobs_->jobs().jobs()) {
      const core::Job& j = *ptr;
      const bool holds = HoldsNodes(j.state);
      pending += j.state == JobState::kPending && !BlocksScheduling(j.reason) ? 1 : 0;
      if (holds) {
        EXPECT_GT(jobs_->NextDeadline(), absl::InfinitePast());
        for (const core::NodeShare& share : j.allocation.nodes) {
          EXPECT_GE(jobs_->capacity().node(share.node).jobs, 1) << "job " << id.value();
        }
      }
      if (j.state == JobState::kPending) {
        EXPECT_TRUE(j.allocation.empty()) << "job " << id.value();
      }
    }
    ASSERT_EQ(jobs_->pending_count(), pending) << "step " << step;
    EXPECT_GE(jobs_->NextDeadline(), clock_.Now()) << "step " << step << ": a deadline was missed";
  }
  // The walk went through the whole life: every way of ending, and requeues.
  std::map<JobState, int> ended;
  int requeued = 0;
  for (const auto& [id, j] : jobs_->jobs().jobs()) {
    ++ended[j->state];
    requeued += j->restart_count > 0 ? 1 : 0;
  }
  for (JobState s : {JobState::kCompleted, JobState::kCancelled, JobState::kTimeout,
                     JobState::kRunning, JobState::kPending}) {
    EXPECT_GT(ended[s], 0) << core::JobStateName(s);
  }
  EXPECT_GT(requeued, 0);
}

}  // namespace
}  // namespace canopy::lifecycle
