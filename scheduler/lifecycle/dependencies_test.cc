// Dependencies, holds, begin times, requeues and time limits in the job lifecycle: every
// --dependency type with its Slurm rule (arrays as a whole, one task, aftercorr, singleton, '?'),
// DependencyNeverSatisfied and --kill-on-invalid-dep, the reasons a pending job shows and their
// precedence, deadlines that wake a job at its begin time or after:ID+MINUTES, scontrol
// hold/uhold/release/requeue/requeuehold and TimeLimit=, and all of it across a restart from
// the store (fake clock, the store as the controller fills it).
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/lifecycle/job_lifecycle.h"
#include "scheduler/lifecycle/test_time.h"
#include "scheduler/persistence/in_memory_store.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/test_cluster.h"

namespace canopy::lifecycle {
namespace {

using core::DependencyState;
using core::DependencyType;
using core::JobReason;
using core::JobState;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

core::Dependency Dep(DependencyType type, uint32_t job, std::optional<uint32_t> task = {},
                     absl::Duration delay = absl::ZeroDuration()) {
  core::Dependency d;
  d.type = type;
  d.job_id = job;
  d.array_task_id = task;
  d.delay = delay;
  return d;
}

class DependenciesTest : public ::testing::Test {
 protected:
  void SetUp() override { Load(""); }

  // The two-leaf test cluster plus `extra` YAML; a fresh store; a controller started on it.
  // Priorities are recalculated every two hours only, so that NextDeadline is the jobs'.
  void Load(const std::string& extra) {
    testing::TestCluster cluster = testing::LoadTestCluster(
        absl::StrCat(testing::kTwoLeafCluster, "priority:\n  calc_period: 120\n", extra));
    ASSERT_NE(cluster.config, nullptr);
    config_ = cluster.config;
    topology_ = cluster.topology;
    clock_.Set(kT0);
    alice_.authenticated = true;
    alice_.uid = 1001;
    alice_.user_name = "alice";
    bob_ = alice_;
    bob_.uid = 1002;
    bob_.user_name = "bob";
    root_ = alice_;
    root_.uid = 0;
    root_.user_name = "root";
    root_.is_operator = true;
    store_ = std::make_unique<persistence::InMemoryStore>();
    Start();
  }

  // A controller starting from the store; its nodes register.
  void Start() {
    absl::StatusOr<std::unique_ptr<JobLifecycle>> lc =
        JobLifecycle::Create(config_, topology_, clock_);
    ASSERT_TRUE(lc.ok()) << lc.status();
    jobs_ = *std::move(lc);
    Effects e;
    ASSERT_TRUE(jobs_->RestoreAccounting(*store_->LoadAccounting(), e).ok());
    ASSERT_TRUE(jobs_->Restore(*store_->LoadJobs(), e).ok());
    Commit(e);
    for (int i = 0; i < 4; ++i) {
      state::NodeRecord n;
      n.id = core::NodeId(i);
      n.name = topology_->node_name(n.id);
      n.ever_registered = true;
      n.connected = true;
      for (int g = 0; g < 4; ++g) {
        state::GpuStatus gpu;
        gpu.index = g;
        n.registration.gpus.push_back(gpu);
      }
      Effects node;
      jobs_->NodeChanged(n, node);
      Commit(node);
    }
  }

  // What the controller saves after a batch.
  void Commit(const Effects& e) {
    persistence::Mutations m;
    for (core::JobId id : e.dirty) {
      m.job_upserts.push_back(std::make_shared<const core::Job>(*jobs_->Find(id)));
    }
    m.next_job_id = jobs_->next_job_id();
    ASSERT_TRUE(store_->Commit(m).ok());
    schedule_ = schedule_ || e.schedule;
  }

  static SubmitRequest Request(std::vector<core::Dependency> deps = {}, bool any = false) {
    SubmitRequest req;
    req.spec.Mutable().min_nodes = 1;
    req.spec.Mutable().gpus_per_node = 4;  // a whole node: at most four run at once
    req.spec.Mutable().script = "#!/bin/sh\ntrue\n";
    req.spec.Mutable().dependencies = std::move(deps);
    req.spec.Mutable().dependency_any = any;
    return req;
  }

  absl::StatusOr<SubmitAnswer> TrySubmit(const SubmitRequest& req, const Caller& who) {
    Effects e;
    absl::StatusOr<SubmitAnswer> r = jobs_->Submit(req, who, e);
    Commit(e);
    return r;
  }

  uint32_t Submit(const SubmitRequest& req, const Caller* who = nullptr) {
    absl::StatusOr<SubmitAnswer> r = TrySubmit(req, who ? *who : alice_);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? r->job_id.value() : 0;
  }
  uint32_t Submit(std::vector<core::Dependency> deps = {}, bool any = false) {
    return Submit(Request(std::move(deps), any));
  }

  void Schedule() {
    Effects e;
    jobs_->Schedule(e);
    Commit(e);
  }

  void Report(uint32_t job, int node_index, JobPhase phase, int exit_code = 0) {
    const core::Job& j = Job(job);
    JobReport r;
    r.job = core::JobId(job);
    r.phase = phase;
    r.exit_code = exit_code;
    r.run_id = j.run_id;
    Effects e;
    jobs_->JobReported(j.allocation.nodes[node_index].node, r, e);
    Commit(e);
  }

  // The pass starts `job` and every node confirms: RUNNING.
  void Run(uint32_t job) {
    Schedule();
    ASSERT_EQ(Job(job).state, JobState::kConfiguring)
        << job << " " << core::JobReasonName(Reason(job));
    for (size_t i = 0; i < Job(job).allocation.nodes.size(); ++i) {
      Report(job, static_cast<int>(i), JobPhase::kLaunched);
    }
    ASSERT_EQ(Job(job).state, JobState::kRunning);
  }

  // The batch script exits with `code` and every node cleans up.
  void Finish(uint32_t job, int code) {
    Report(job, 0, JobPhase::kExited, code);
    for (size_t i = 0; i < Job(job).allocation.nodes.size(); ++i) {
      Report(job, static_cast<int>(i), JobPhase::kCleanedUp);
    }
    ASSERT_TRUE(core::IsTerminal(Job(job).state));
  }

  std::vector<JobActionAnswer> Control(JobAction action, std::vector<uint32_t> ids,
                                       const Caller& who) {
    JobActionRequest req;
    req.action = action;
    req.job_ids = std::move(ids);
    Effects e;
    std::vector<JobActionAnswer> answers = jobs_->ControlJobs(req, who, e);
    Commit(e);
    return answers;
  }
  std::string Control1(JobAction action, uint32_t id, const Caller& who) {
    const std::vector<JobActionAnswer> a = Control(action, {id}, who);
    return a.size() == 1 && a[0].ok ? "ok" : (a.empty() ? "none" : a[0].error);
  }

  absl::Status SetTimeLimit(uint32_t id, TimeLimitChange change, const Caller& who) {
    Effects e;
    absl::Status s = jobs_->SetJobTimeLimit(core::JobId(id), change, who, e);
    Commit(e);
    return s;
  }

  // Runs every Tick due up to `t`, committing each, as the controller's loop does.
  void AdvanceTo(absl::Time t) {
    while (jobs_->NextDeadline() <= t) {
      clock_.Set(std::max(clock_.Now(), jobs_->NextDeadline()));
      Effects e;
      jobs_->Tick(e);
      Commit(e);
    }
    clock_.Set(t);
  }

  const core::Job& Job(uint32_t id) {
    const core::Job* job = jobs_->Find(core::JobId(id));
    EXPECT_NE(job, nullptr) << id;
    static const core::Job kNone;
    return job != nullptr ? *job : kNone;
  }
  JobReason Reason(uint32_t id) { return Job(id).reason; }
  JobState State(uint32_t id) { return Job(id).state; }
  std::vector<DependencyState> Items(uint32_t id) {
    std::vector<DependencyState> out;
    for (const core::Dependency& d : Job(id).spec->dependencies) {
      out.push_back(d.state);
    }
    return out;
  }

  std::shared_ptr<const config::ClusterConfig> config_;
  std::shared_ptr<const topology::Topology> topology_;
  testing::FakeClock clock_;
  std::unique_ptr<persistence::InMemoryStore> store_;
  std::unique_ptr<JobLifecycle> jobs_;
  Caller alice_, bob_, root_;
  bool schedule_ = false;
};

TEST_F(DependenciesTest, AfterOkWaitsOutOfThePassThenRuns) {
  const uint32_t a = Submit();
  Run(a);
  const uint32_t b = Submit({Dep(DependencyType::kAfterOk, a)});
  EXPECT_EQ(State(b), JobState::kPending);
  EXPECT_EQ(Reason(b), JobReason::kDependency);
  EXPECT_EQ(jobs_->pending_count(), 0u);  // not even considered by the pass
  Schedule();
  EXPECT_EQ(State(b), JobState::kPending);
  EXPECT_EQ(Reason(b), JobReason::kDependency);  // free nodes do not matter
  schedule_ = false;
  Finish(a, 0);
  EXPECT_EQ(Reason(b), JobReason::kNone);
  EXPECT_THAT(Items(b), ElementsAre(DependencyState::kSatisfied));
  EXPECT_TRUE(schedule_);  // a pass is asked for
  Run(b);
}

TEST_F(DependenciesTest, AfterOkOnAFailedJobIsNeverSatisfied) {
  const uint32_t a = Submit();
  const uint32_t b = Submit({Dep(DependencyType::kAfterOk, a)});
  Run(a);
  Finish(a, 3);
  EXPECT_EQ(State(b), JobState::kPending);
  EXPECT_EQ(Reason(b), JobReason::kDependencyNeverSatisfied);
  EXPECT_THAT(Items(b), ElementsAre(DependencyState::kFailed));
  Schedule();
  EXPECT_EQ(State(b), JobState::kPending);  // for ever, until cancelled
  // A job submitted after the failure learns it at once.
  const uint32_t c = Submit({Dep(DependencyType::kAfterOk, a)});
  EXPECT_EQ(Reason(c), JobReason::kDependencyNeverSatisfied);
}

TEST_F(DependenciesTest, KillOnInvalidDepCancels) {
  const uint32_t a = Submit();
  SubmitRequest kill = Request({Dep(DependencyType::kAfterOk, a)});
  kill.spec.Mutable().kill_on_invalid_dep = true;
  const uint32_t b = Submit(kill);
  const uint32_t c = Submit({Dep(DependencyType::kAfterOk, a)});
  Run(a);
  Finish(a, 1);
  EXPECT_EQ(State(b), JobState::kCancelled);
  EXPECT_THAT(Job(b).state_message, HasSubstr("can never be satisfied (afterok:1 failed"));
  EXPECT_EQ(State(c), JobState::kPending);  // no kill asked, no cluster default
  EXPECT_EQ(Reason(c), JobReason::kDependencyNeverSatisfied);
}

TEST_F(DependenciesTest, ClusterWideKillInvalidDependUnlessTheJobSaysNo) {
  Load("scheduler:\n  dependency_parameters: kill_invalid_depend\n");
  const uint32_t a = Submit();
  const uint32_t b = Submit({Dep(DependencyType::kAfterOk, a)});
  SubmitRequest keep = Request({Dep(DependencyType::kAfterOk, a)});
  keep.spec.Mutable().kill_on_invalid_dep = false;
  const uint32_t c = Submit(keep);
  // Cancelled while pending: afterok can never be satisfied.
  Effects e;
  CancelRequest cancel;
  cancel.job_ids = {a};
  jobs_->Cancel(cancel, alice_, e);
  Commit(e);
  EXPECT_EQ(State(a), JobState::kCancelled);
  EXPECT_EQ(State(b), JobState::kCancelled);
  EXPECT_EQ(State(c), JobState::kPending);
  EXPECT_EQ(Reason(c), JobReason::kDependencyNeverSatisfied);
}

TEST_F(DependenciesTest, AfterAnyAfterNotOkAndAfter) {
  const uint32_t a = Submit();
  const uint32_t any = Submit({Dep(DependencyType::kAfterAny, a)});
  const uint32_t notok = Submit({Dep(DependencyType::kAfterNotOk, a)});
  const uint32_t after = Submit({Dep(DependencyType::kAfter, a)});
  EXPECT_EQ(Reason(after), JobReason::kDependency);
  Run(a);
  EXPECT_EQ(Reason(after), JobReason::kNone);  // a started
  EXPECT_EQ(Reason(any), JobReason::kDependency);
  Finish(a, 0);
  EXPECT_EQ(Reason(any), JobReason::kNone);
  EXPECT_EQ(Reason(notok), JobReason::kDependencyNeverSatisfied);  // a succeeded

  const uint32_t x = Submit();
  const uint32_t notok2 = Submit({Dep(DependencyType::kAfterNotOk, x)});
  Run(x);
  Finish(x, 2);
  EXPECT_EQ(Reason(notok2), JobReason::kNone);
}

TEST_F(DependenciesTest, AfterWithMinutesWakesTheJobAtTheRightTime) {
  const uint32_t a = Submit();
  const uint32_t b = Submit({Dep(DependencyType::kAfter, a, {}, absl::Minutes(10))});
  clock_.Advance(absl::Seconds(30));
  Run(a);
  const absl::Time started = Job(a).start_time;
  EXPECT_EQ(Reason(b), JobReason::kDependency);
  EXPECT_EQ(jobs_->NextDeadline(), started + absl::Minutes(10));  // b's wake-up, not later
  AdvanceTo(started + absl::Minutes(10) - absl::Seconds(1));
  EXPECT_EQ(Reason(b), JobReason::kDependency);
  schedule_ = false;
  AdvanceTo(started + absl::Minutes(10));
  EXPECT_EQ(Reason(b), JobReason::kNone);
  EXPECT_TRUE(schedule_);
}

TEST_F(DependenciesTest, AnyOneOfQuestionMarkAndAllOfComma) {
  const uint32_t a = Submit();
  const uint32_t c = Submit();
  const uint32_t any =
      Submit({Dep(DependencyType::kAfterOk, a), Dep(DependencyType::kAfterOk, c)}, /*any=*/true);
  const uint32_t all = Submit({Dep(DependencyType::kAfterOk, a), Dep(DependencyType::kAfterOk, c)});
  Run(a);
  Finish(a, 1);
  EXPECT_EQ(Reason(any), JobReason::kDependency);  // c may still succeed
  EXPECT_EQ(Reason(all), JobReason::kDependencyNeverSatisfied);
  Run(c);
  Finish(c, 0);
  EXPECT_EQ(Reason(any), JobReason::kNone);
  // Satisfied as a whole: nothing is left to show (Slurm empties the list).
  EXPECT_THAT(Items(any), ElementsAre(DependencyState::kSatisfied, DependencyState::kSatisfied));

  const uint32_t d = Submit();
  const uint32_t e = Submit();
  const uint32_t none =
      Submit({Dep(DependencyType::kAfterOk, d), Dep(DependencyType::kAfterOk, e)}, /*any=*/true);
  Run(d);
  Run(e);
  Finish(d, 1);
  EXPECT_EQ(Reason(none), JobReason::kDependency);
  Finish(e, 1);
  EXPECT_EQ(Reason(none), JobReason::kDependencyNeverSatisfied);  // every item failed
}

TEST_F(DependenciesTest, ArrayAsAWholeAndOneTask) {
  SubmitRequest array = Request();
  array.spec.Mutable().array_spec = "1-3";
  const uint32_t a = Submit(array);  // tasks 1, 2, 3 are jobs a, a+1, a+2
  const uint32_t whole = Submit({Dep(DependencyType::kAfterOk, a)});
  EXPECT_TRUE(Job(whole).spec->dependencies[0].whole_array);
  const uint32_t task2 = Submit({Dep(DependencyType::kAfterOk, a, 2)});
  EXPECT_FALSE(Job(task2).spec->dependencies[0].whole_array);
  Run(a);  // the pass starts all three (one node each)
  for (uint32_t t : {a + 1, a + 2}) {
    for (size_t i = 0; i < Job(t).allocation.nodes.size(); ++i) {
      Report(t, static_cast<int>(i), JobPhase::kLaunched);
    }
  }
  Finish(a + 1, 0);  // task 2
  EXPECT_EQ(Reason(task2), JobReason::kNone);
  EXPECT_EQ(Reason(whole), JobReason::kDependency);
  Finish(a, 0);
  EXPECT_EQ(Reason(whole), JobReason::kDependency);  // task 3 still runs
  Finish(a + 2, 0);
  EXPECT_EQ(Reason(whole), JobReason::kNone);

  // One failed task fails a whole-array afterok.
  SubmitRequest array2 = Request();
  array2.spec.Mutable().array_spec = "0-1";
  const uint32_t b = Submit(array2);
  const uint32_t whole2 = Submit({Dep(DependencyType::kAfterOk, b)});
  const uint32_t notok2 = Submit({Dep(DependencyType::kAfterNotOk, b)});
  Run(b);
  for (size_t i = 0; i < Job(b + 1).allocation.nodes.size(); ++i) {
    Report(b + 1, static_cast<int>(i), JobPhase::kLaunched);
  }
  Finish(b, 0);
  Finish(b + 1, 9);
  EXPECT_EQ(Reason(whole2), JobReason::kDependencyNeverSatisfied);
  EXPECT_EQ(Reason(notok2), JobReason::kNone);
}

TEST_F(DependenciesTest, AfterCorrPairsTasksByTaskId) {
  SubmitRequest first = Request();
  first.spec.Mutable().array_spec = "1-2";
  const uint32_t a = Submit(first);
  SubmitRequest second = Request({Dep(DependencyType::kAfterCorr, a)});
  second.spec.Mutable().array_spec = "1-2";
  const uint32_t b = Submit(second);  // b: task 1, b+1: task 2
  EXPECT_EQ(Reason(b), JobReason::kDependency);
  EXPECT_EQ(Reason(b + 1), JobReason::kDependency);
  Run(a);
  for (size_t i = 0; i < Job(a + 1).allocation.nodes.size(); ++i) {
    Report(a + 1, static_cast<int>(i), JobPhase::kLaunched);
  }
  Finish(a + 1, 0);  // task 2 of the first array
  EXPECT_EQ(Reason(b), JobReason::kDependency);
  EXPECT_EQ(Reason(b + 1), JobReason::kNone);
  Finish(a, 5);  // task 1 failed
  EXPECT_EQ(Reason(b), JobReason::kDependencyNeverSatisfied);
}

TEST_F(DependenciesTest, SingletonOneAtATimePerUserAndName) {
  SubmitRequest named = Request();
  named.spec.Mutable().name = "train";
  const uint32_t first = Submit(named);
  Run(first);
  SubmitRequest single = Request({Dep(DependencyType::kSingleton, 0)});
  single.spec.Mutable().name = "train";
  const uint32_t s2 = Submit(single);
  const uint32_t s3 = Submit(single);
  const uint32_t other_user = Submit(single, &bob_);
  SubmitRequest other_name = single;
  other_name.spec.Mutable().name = "eval";
  const uint32_t other = Submit(other_name);
  EXPECT_EQ(Reason(s2), JobReason::kDependency);
  EXPECT_EQ(Reason(s3), JobReason::kDependency);
  EXPECT_EQ(Reason(other_user), JobReason::kNone);
  EXPECT_EQ(Reason(other), JobReason::kNone);
  Finish(first, 1);  // however it ended
  EXPECT_EQ(Reason(s2), JobReason::kNone);
  EXPECT_EQ(Reason(s3), JobReason::kDependency);  // s2 is pending ahead of it
  Run(s2);
  EXPECT_EQ(Reason(s3), JobReason::kDependency);
  Finish(s2, 0);
  EXPECT_EQ(Reason(s3), JobReason::kNone);
}

TEST_F(DependenciesTest, UnknownJobsAndTasksAreRefusedAsSlurmDoes) {
  SubmitRequest array = Request();
  array.spec.Mutable().array_spec = "1-2";
  const uint32_t a = Submit(array);
  const uint32_t plain = Submit();
  struct Case {
    core::Dependency dep;
    const char* says;
  };
  for (const Case& c : {
           Case{Dep(DependencyType::kAfterOk, 999),
                "dependency afterok:999: job 999 does not exist"},
           Case{Dep(DependencyType::kAfterOk, a, 7), "array 1 has no task 7"},
           Case{Dep(DependencyType::kAfterAny, plain, 1), "job 3 is not an array"},
           Case{Dep(DependencyType::kAfter, plain, {}, absl::Minutes(-1)), "must not be negative"},
       }) {
    absl::StatusOr<SubmitAnswer> r = TrySubmit(Request({c.dep}), alice_);
    ASSERT_FALSE(r.ok()) << c.says;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(r.status().message(), HasSubstr(c.says));
    EXPECT_THAT(r.status().message(),
                HasSubstr("\nBatch job submission failed: Job dependency problem"));
  }
  EXPECT_EQ(jobs_->next_job_id(), plain + 1);  // nothing was queued
}

TEST_F(DependenciesTest, BeginTimeWaitsAndWakesTheJob) {
  SubmitRequest later = Request();
  later.spec.Mutable().begin_time = kT0 + absl::Hours(1);
  const uint32_t j = Submit(later);
  EXPECT_EQ(Reason(j), JobReason::kBeginTime);
  EXPECT_EQ(jobs_->NextDeadline(), kT0 + absl::Hours(1));
  Schedule();
  EXPECT_EQ(State(j), JobState::kPending);
  AdvanceTo(kT0 + absl::Hours(1) - absl::Seconds(1));
  EXPECT_EQ(Reason(j), JobReason::kBeginTime);
  schedule_ = false;
  AdvanceTo(kT0 + absl::Hours(1));
  EXPECT_EQ(Reason(j), JobReason::kNone);
  EXPECT_TRUE(schedule_);
  Run(j);
  // A begin time already past is no wait.
  SubmitRequest past = Request();
  past.spec.Mutable().begin_time = kT0;
  EXPECT_EQ(Reason(Submit(past)), JobReason::kNone);
}

TEST_F(DependenciesTest, ReasonsTakeTurnsHoldThenDependencyThenBeginTime) {
  const uint32_t a = Submit();
  SubmitRequest req = Request({Dep(DependencyType::kAfterAny, a)});
  req.spec.Mutable().begin_time = kT0 + absl::Hours(2);
  req.spec.Mutable().hold = true;
  const uint32_t j = Submit(req);
  EXPECT_EQ(Reason(j), JobReason::kJobHeldUser);
  EXPECT_EQ(Job(j).priority, 0u);
  EXPECT_EQ(Control1(JobAction::kRelease, j, alice_), "ok");
  EXPECT_EQ(Reason(j), JobReason::kDependency);
  EXPECT_GT(Job(j).priority, 0u);
  Run(a);
  Finish(a, 0);
  EXPECT_EQ(Reason(j), JobReason::kBeginTime);
  AdvanceTo(kT0 + absl::Hours(2));
  EXPECT_EQ(Reason(j), JobReason::kNone);
}

TEST_F(DependenciesTest, HoldsAdminAndUserAndWhoMayRelease) {
  const uint32_t j = Submit();
  EXPECT_EQ(Control1(JobAction::kHold, j, alice_), "ok");  // the owner's hold: a user hold
  EXPECT_EQ(Reason(j), JobReason::kJobHeldUser);
  EXPECT_EQ(Job(j).priority, 0u);
  Schedule();
  EXPECT_EQ(State(j), JobState::kPending);
  EXPECT_EQ(Control1(JobAction::kRelease, j, alice_), "ok");
  EXPECT_EQ(Reason(j), JobReason::kNone);
  EXPECT_EQ(Control1(JobAction::kHold, j, root_), "ok");  // an operator's: an admin hold
  EXPECT_EQ(Reason(j), JobReason::kJobHeldAdmin);
  EXPECT_EQ(Control1(JobAction::kRelease, j, alice_), "Access/permission denied");
  EXPECT_EQ(Control1(JobAction::kHold, j, alice_), "ok");  // still the admin's hold
  EXPECT_EQ(Reason(j), JobReason::kJobHeldAdmin);
  EXPECT_EQ(Control1(JobAction::kUserHold, j, root_), "ok");  // uhold: the owner may release
  EXPECT_EQ(Reason(j), JobReason::kJobHeldUser);
  EXPECT_EQ(Control1(JobAction::kHold, j, bob_), "Access/permission denied");
  EXPECT_EQ(Control1(JobAction::kRelease, j, alice_), "ok");
  EXPECT_EQ(Control1(JobAction::kHold, 999, root_), "Invalid job id specified");
  Run(j);
  EXPECT_EQ(Control1(JobAction::kHold, j, alice_), "Job is no longer pending execution");
  // An array's id holds every pending task.
  SubmitRequest array = Request();
  array.spec.Mutable().array_spec = "0-2";
  const uint32_t a = Submit(array);
  ASSERT_THAT(Control(JobAction::kHold, {a}, alice_),
              ElementsAre(::testing::Field(&JobActionAnswer::ok, true)));
  for (uint32_t t : {a, a + 1, a + 2}) {
    EXPECT_EQ(Reason(t), JobReason::kJobHeldUser) << t;
  }
}

TEST_F(DependenciesTest, RequeueAndRequeueHold) {
  const uint32_t j = Submit();
  const uint32_t after = Submit({Dep(DependencyType::kAfterAny, j)});
  EXPECT_EQ(Control1(JobAction::kRequeue, j, alice_), "Job is pending execution");
  Run(j);
  EXPECT_EQ(Control1(JobAction::kRequeue, j, bob_), "Access/permission denied");
  EXPECT_EQ(Control1(JobAction::kRequeue, j, alice_), "ok");
  EXPECT_EQ(State(j), JobState::kPending);
  EXPECT_EQ(Job(j).restart_count, 1);
  EXPECT_EQ(jobs_->cleanup_holds(), 1u);             // its node stays held until it cleans up
  EXPECT_EQ(Reason(after), JobReason::kDependency);  // a requeue is not an end
  Run(j);  // elsewhere: the old run's node is held until it cleans up
  EXPECT_EQ(Job(j).run_id, 2u);
  EXPECT_EQ(Control1(JobAction::kRequeueHold, j, alice_), "ok");
  EXPECT_EQ(State(j), JobState::kPending);
  EXPECT_EQ(Reason(j), JobReason::kJobHeldUser);
  EXPECT_EQ(Job(j).priority, 0u);
  EXPECT_EQ(Job(j).restart_count, 2);
  EXPECT_EQ(Job(j).state_message, "job requeued in held state");
  EXPECT_EQ(Control1(JobAction::kRelease, j, alice_), "ok");
  Run(j);
  Finish(j, 0);
  EXPECT_EQ(Reason(after), JobReason::kNone);
  EXPECT_EQ(Control1(JobAction::kRequeue, j, alice_), "Job/step already completing or completed");

  SubmitRequest no_requeue = Request();
  no_requeue.spec.Mutable().requeue = false;
  const uint32_t n = Submit(no_requeue);
  Run(n);
  EXPECT_THAT(Control1(JobAction::kRequeue, n, root_),
              HasSubstr("Requested operation is presently disabled"));
}

TEST_F(DependenciesTest, TimeLimitOwnerShortensOperatorLengthens) {
  SubmitRequest req = Request();
  req.spec.Mutable().time_limit = absl::Minutes(30);
  const uint32_t j = Submit(req);
  TimeLimitChange shorter;
  shorter.set = absl::Minutes(20);
  EXPECT_TRUE(SetTimeLimit(j, shorter, alice_).ok());
  EXPECT_EQ(Job(j).time_limit, absl::Minutes(20));
  TimeLimitChange longer;
  longer.add = absl::Minutes(15);
  EXPECT_EQ(SetTimeLimit(j, longer, alice_).code(), absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(SetTimeLimit(j, longer, root_).ok());
  EXPECT_EQ(Job(j).time_limit, absl::Minutes(35));
  TimeLimitChange zero;
  zero.set = absl::ZeroDuration();
  EXPECT_EQ(SetTimeLimit(j, zero, root_).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(SetTimeLimit(999, shorter, root_).code(), absl::StatusCode::kNotFound);

  // Above the partition's MaxTime (1:00:00) the job pends with PartitionTimeLimit; back under
  // it, it is free again.
  TimeLimitChange over;
  over.set = absl::Hours(2);
  EXPECT_TRUE(SetTimeLimit(j, over, root_).ok());
  EXPECT_EQ(Reason(j), JobReason::kPartitionTimeLimit);
  EXPECT_TRUE(SetTimeLimit(j, shorter, alice_).ok());
  EXPECT_EQ(Reason(j), JobReason::kNone);

  // A running job's limit counts from its start: shortened below its run time, it times out.
  Run(j);
  clock_.Advance(absl::Minutes(10));
  TimeLimitChange five;
  five.set = absl::Minutes(5);
  EXPECT_TRUE(SetTimeLimit(j, five, alice_).ok());
  AdvanceTo(clock_.Now());
  EXPECT_EQ(State(j), JobState::kCompleting);
  EXPECT_EQ(Job(j).completing_to, JobState::kTimeout);
}

TEST_F(DependenciesTest, EverythingSurvivesARestart) {
  const uint32_t a = Submit();
  Run(a);
  const uint32_t b = Submit({Dep(DependencyType::kAfterOk, a)});
  SubmitRequest later = Request();
  later.spec.Mutable().begin_time = kT0 + absl::Hours(1);
  const uint32_t c = Submit(later);
  SubmitRequest single = Request({Dep(DependencyType::kSingleton, 0)});
  single.spec.Mutable().name = "sbatch";  // the same name as a (the default)
  const uint32_t s = Submit(single);
  EXPECT_EQ(Reason(s), JobReason::kDependency);
  EXPECT_EQ(Control1(JobAction::kHold, b, root_), "ok");

  Start();  // a new controller from the store
  EXPECT_EQ(Reason(b), JobReason::kJobHeldAdmin);
  EXPECT_EQ(Reason(c), JobReason::kBeginTime);
  EXPECT_EQ(Reason(s), JobReason::kDependency);
  EXPECT_EQ(jobs_->NextDeadline(), kT0 + absl::Hours(1));
  Finish(a, 0);
  EXPECT_THAT(Items(b), ElementsAre(DependencyState::kSatisfied));
  EXPECT_EQ(Reason(b), JobReason::kJobHeldAdmin);  // still held
  EXPECT_EQ(Reason(s), JobReason::kDependency);    // b is pending ahead of it
  EXPECT_EQ(Control1(JobAction::kRelease, b, root_), "ok");
  EXPECT_EQ(Reason(b), JobReason::kNone);
  AdvanceTo(kT0 + absl::Hours(1));
  EXPECT_EQ(Reason(c), JobReason::kNone);
}

// A long chain is walked iteratively (no recursion per link) when its head fails: with
// --kill-on-invalid-dep every job in it is cancelled by that one event.
TEST_F(DependenciesTest, AChainOfThousandsCollapsesInOneEvent) {
  const uint32_t head = Submit();
  uint32_t prev = head;
  for (int i = 0; i < 5000; ++i) {
    SubmitRequest req = Request({Dep(DependencyType::kAfterOk, prev)});
    req.spec.Mutable().kill_on_invalid_dep = true;
    prev = Submit(req);
  }
  Effects e;
  CancelRequest cancel;
  cancel.job_ids = {head};
  jobs_->Cancel(cancel, alice_, e);
  Commit(e);
  EXPECT_EQ(e.dirty.size(), 5001u);
  EXPECT_EQ(State(prev), JobState::kCancelled);
  EXPECT_EQ(State(head + 2500), JobState::kCancelled);
}

}  // namespace
}  // namespace canopy::lifecycle
