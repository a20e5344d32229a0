// Tests for the job state machine and the job table.
#include "scheduler/core/job.h"

#include <utility>

#include "gtest/gtest.h"
#include "scheduler/core/job_table.h"

namespace canopy::core {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(1000);

Job NewJob(uint32_t id) {
  Job j;
  j.id = JobId(id);
  j.submit_time = kT0;
  j.eligible_time = kT0;
  return j;
}

TEST(JobStateTest, NamesMatchSlurm) {
  EXPECT_EQ(JobStateName(JobState::kPending), "PENDING");
  EXPECT_EQ(JobStateName(JobState::kNodeFail), "NODE_FAIL");
  EXPECT_EQ(JobStateName(JobState::kOutOfMemory), "OUT_OF_MEMORY");
  EXPECT_EQ(JobStateShortName(JobState::kRunning), "R");
  EXPECT_EQ(JobStateShortName(JobState::kPending), "PD");
  EXPECT_EQ(JobReasonName(JobReason::kReqNodeNotAvail), "ReqNodeNotAvail");
  EXPECT_EQ(JobReasonName(JobReason::kPartitionTimeLimit), "PartitionTimeLimit");
  EXPECT_EQ(JobReasonName(JobReason::kJobHeldAdmin), "JobHeldAdmin");
  EXPECT_EQ(JobReasonName(JobReason::kDependency), "Dependency");
  EXPECT_EQ(JobReasonName(JobReason::kDependencyNeverSatisfied), "DependencyNeverSatisfied");
  EXPECT_EQ(JobReasonName(JobReason::kBeginTime), "BeginTime");
  EXPECT_EQ(JobReasonName(JobReason::kNodeDown), "NodeDown");  // the last one
  EXPECT_EQ(DependencyTypeName(DependencyType::kAfterNotOk), "afternotok");
  EXPECT_EQ(DependencyStateName(DependencyState::kWaiting), "unfulfilled");
}

TEST(JobStateTest, DependencyNamesRoundTrip) {
  for (DependencyType t :
       {DependencyType::kAfter, DependencyType::kAfterAny, DependencyType::kAfterOk,
        DependencyType::kAfterNotOk, DependencyType::kAfterCorr, DependencyType::kSingleton}) {
    EXPECT_EQ(DependencyTypeFromName(DependencyTypeName(t)), t);
  }
  for (DependencyState st :
       {DependencyState::kWaiting, DependencyState::kSatisfied, DependencyState::kFailed}) {
    EXPECT_EQ(DependencyStateFromName(DependencyStateName(st)), st);
  }
  EXPECT_EQ(DependencyTypeFromName("afterOK"), std::nullopt);
  EXPECT_EQ(DependencyStateFromName("done"), std::nullopt);
}

TEST(JobStateTest, NamesRoundTrip) {
  for (int i = 0; i < kJobStateCount; ++i) {
    const auto state = static_cast<JobState>(i);
    EXPECT_EQ(JobStateFromName(JobStateName(state)), state);
  }
  for (int i = 0; i < kJobReasonCount; ++i) {
    const auto reason = static_cast<JobReason>(i);
    EXPECT_EQ(JobReasonFromName(JobReasonName(reason)), reason);
  }
  EXPECT_EQ(JobStateFromName("RUNNNING"), std::nullopt);
  EXPECT_EQ(JobReasonFromName("resources"), std::nullopt);  // names are case-sensitive
}

TEST(JobStateTest, TerminalStatesGoNowhere) {
  for (int from = 0; from < kJobStateCount; ++from) {
    if (!IsTerminal(static_cast<JobState>(from))) {
      continue;
    }
    for (int to = 0; to < kJobStateCount; ++to) {
      EXPECT_FALSE(IsLegalTransition(static_cast<JobState>(from), static_cast<JobState>(to)))
          << from << "->" << to;
    }
  }
}

TEST(JobStateTest, NoSelfTransitions) {
  for (int s = 0; s < kJobStateCount; ++s) {
    EXPECT_FALSE(IsLegalTransition(static_cast<JobState>(s), static_cast<JobState>(s)));
  }
}

TEST(JobStateTest, RunToCompletion) {
  Job j = NewJob(1);
  j.reason = JobReason::kResources;
  ASSERT_TRUE(TransitionTo(j, JobState::kRunning, kT0 + absl::Seconds(5)).ok());
  EXPECT_EQ(j.start_time, kT0 + absl::Seconds(5));
  EXPECT_EQ(j.reason, JobReason::kNone);
  ASSERT_TRUE(TransitionTo(j, JobState::kCompleted, kT0 + absl::Seconds(9)).ok());
  EXPECT_EQ(j.end_time, kT0 + absl::Seconds(9));
  EXPECT_TRUE(IsTerminal(j.state));
}

TEST(JobStateTest, IllegalTransitionIsFailedPreconditionAndChangesNothing) {
  Job j = NewJob(7);
  absl::Status s = TransitionTo(j, JobState::kCompleted, kT0);
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("PENDING -> COMPLETED"), absl::string_view::npos) << s;
  EXPECT_EQ(j.state, JobState::kPending);
  ASSERT_TRUE(TransitionTo(j, JobState::kCancelled, kT0).ok());
  EXPECT_EQ(TransitionTo(j, JobState::kRunning, kT0).code(), absl::StatusCode::kFailedPrecondition);
}

TEST(JobStateTest, RequeueCountsRestarts) {
  Job j = NewJob(2);
  ASSERT_TRUE(TransitionTo(j, JobState::kConfiguring, kT0).ok());
  ASSERT_TRUE(TransitionTo(j, JobState::kRunning, kT0 + absl::Seconds(1)).ok());
  ASSERT_TRUE(TransitionTo(j, JobState::kRequeued, kT0 + absl::Seconds(10)).ok());
  EXPECT_EQ(j.reason, JobReason::kNodeDown);
  ASSERT_TRUE(TransitionTo(j, JobState::kPending, kT0 + absl::Seconds(10)).ok());
  EXPECT_EQ(j.restart_count, 1);
  EXPECT_EQ(j.eligible_time, kT0 + absl::Seconds(10));
  // PENDING -> REQUEUED is not a thing: only running work is requeued.
  EXPECT_FALSE(IsLegalTransition(JobState::kPending, JobState::kRequeued));
  // A preempted job that is requeued goes RUNNING -> REQUEUED; PREEMPTED is a cancelled one.
  EXPECT_TRUE(IsLegalTransition(JobState::kCompleting, JobState::kPreempted));
  EXPECT_FALSE(IsLegalTransition(JobState::kPreempted, JobState::kRequeued));
  EXPECT_TRUE(IsTerminal(JobState::kPreempted));
  EXPECT_TRUE(IsLegalTransition(JobState::kRunning, JobState::kNodeFail));
}

TEST(JobTableTest, OrderedAndUnique) {
  JobTable t;
  ASSERT_TRUE(t.Add(NewJob(3)).ok());
  ASSERT_TRUE(t.Add(NewJob(1)).ok());
  EXPECT_EQ(t.Add(NewJob(3)).code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(t.Add(Job{}).code(), absl::StatusCode::kInvalidArgument);
  std::vector<const Job*> p = t.Pending();
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0]->id, JobId(1));
  ASSERT_TRUE(TransitionTo(*t.Find(JobId(1)), JobState::kRunning, kT0).ok());
  EXPECT_EQ(t.Pending().size(), 1u);
  EXPECT_EQ(t.Erase(JobId(9)).code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(t.Erase(JobId(1)).ok());
  EXPECT_EQ(t.Find(JobId(1)), nullptr);
}

// Erasing most of a large table shrinks its index (JobTable::Erase); every lookup still works
// through the shrinks and the growth that follows.
TEST(JobTableTest, LookupsSurviveTheIndexShrinkingAndGrowingAgain) {
  JobTable t;
  for (uint32_t id = 1; id <= 20000; ++id) {
    ASSERT_TRUE(t.Add(NewJob(id)).ok());
  }
  for (uint32_t id = 1; id <= 20000; ++id) {
    if (id % 50 != 0) {
      ASSERT_TRUE(t.Erase(JobId(id)).ok());
    }
  }
  EXPECT_EQ(t.size(), 400u);
  for (uint32_t id = 1; id <= 20000; ++id) {
    const Job* job = t.Find(JobId(id));
    ASSERT_EQ(job != nullptr, id % 50 == 0) << id;
    if (job != nullptr) {
      EXPECT_EQ(job->id, JobId(id));
    }
  }
  for (uint32_t id = 20001; id <= 30000; ++id) {
    ASSERT_TRUE(t.Add(NewJob(id)).ok());
  }
  EXPECT_NE(t.Find(JobId(25000)), nullptr);
  EXPECT_NE(t.Find(JobId(100)), nullptr);
  EXPECT_EQ(t.Find(JobId(101)), nullptr);
}

TEST(SharedSpecTest, CopiesShareOneSpecUntilOneChanges) {
  JobSpec spec;
  spec.name = "train";
  Job record;
  record.spec = std::move(spec);
  const Job published = record;  // what PublishJobs hands to readers
  EXPECT_TRUE(record.spec.SharesWith(published.spec));

  record.spec.Mutable().name = "renamed";  // the record's change is not seen by the reader
  EXPECT_EQ(published.spec->name, "train");
  EXPECT_EQ(record.spec->name, "renamed");
  EXPECT_FALSE(record.spec.SharesWith(published.spec));

  // Once its own, the record's spec changes in place: no copy per field.
  const JobSpec* own = &*record.spec;
  record.spec.Mutable().nice = 5;
  EXPECT_EQ(&*record.spec, own);
  EXPECT_EQ(record.spec->name, "renamed");

  // A copy of a copy shares again, and equality compares values.
  Job again = record;
  EXPECT_TRUE(again.spec.SharesWith(record.spec));
  again.spec.Mutable().nice = 5;  // same value, its own allocation
  EXPECT_FALSE(again.spec.SharesWith(record.spec));
  EXPECT_EQ(again.spec, record.spec);
  EXPECT_EQ(published.spec->nice, 0);
}

TEST(SharedSpecTest, MovedFromAndDefaultSpecsReadAsDefault) {
  Job empty;
  EXPECT_EQ(*empty.spec, JobSpec());
  empty.spec.Mutable().min_nodes = 2;  // the shared default is never written
  EXPECT_EQ(Job().spec->min_nodes, 0);

  Job moved = std::move(empty);
  EXPECT_EQ(moved.spec->min_nodes, 2);
  const JobSpec* own = &*moved.spec;
  moved.spec.Mutable().min_nodes = 3;  // ownership moved with the value
  EXPECT_EQ(&*moved.spec, own);
}

}  // namespace
}  // namespace canopy::core
