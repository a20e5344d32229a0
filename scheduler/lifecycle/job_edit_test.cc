// scontrol update job Name=/Comment=/Partition=/NumNodes=/ExcNodeList=/Dependency=: what a
// pending job may change, what a running one may not, the checks a submission gets, and that a
// refused edit changes nothing.
#include "scheduler/lifecycle/job_edit.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/lifecycle/policy_test_fixture.h"

namespace canopy::lifecycle {
namespace {

using core::JobReason;
using core::JobState;
using ::testing::HasSubstr;
using Ask = policy_testing::PolicyTest::Ask;

class JobEditTest : public policy_testing::PolicyTest {
 protected:
  void SetUp() override { Start(""); }

  absl::Status Edit(uint32_t id, const JobEdit& edit, const Caller* who = nullptr) {
    Effects e;
    absl::Status st = jobs_->EditJob(core::JobId(id), edit, who ? *who : alice_, e);
    Commit(e);
    return st;
  }

  uint32_t SubmitWith(const std::string& name, std::vector<core::Dependency> deps = {}) {
    SubmitRequest req;
    req.spec.Mutable().min_nodes = 1;
    req.spec.Mutable().gpus_per_node = 4;
    req.spec.Mutable().script = "#!/bin/sh\n";
    req.spec.Mutable().name = name;
    req.spec.Mutable().dependencies = std::move(deps);
    Effects e;
    absl::StatusOr<SubmitAnswer> r = jobs_->Submit(req, alice_, e);
    Commit(e);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? r->job_id.value() : 0;
  }

  static core::Dependency AfterOk(uint32_t id) {
    core::Dependency d;
    d.type = core::DependencyType::kAfterOk;
    d.job_id = id;
    return d;
  }
};

TEST_F(JobEditTest, PendingJobMovesToAnotherPartitionAndTakesItsPriorityTier) {
  const uint32_t id = Submit(alice_, Ask().Gpus(4));
  ASSERT_EQ(Job(id).partition, "low");
  JobEdit edit;
  edit.partition = "high";
  edit.comment = "moved";
  ASSERT_TRUE(Edit(id, edit).ok());
  EXPECT_EQ(Job(id).partition, "high");
  EXPECT_EQ(Job(id).spec->partition, "high");
  EXPECT_EQ(Job(id).resources.partition, "high");
  EXPECT_EQ(Job(id).spec->comment, "moved");
  EXPECT_TRUE(last_.dirty.contains(core::JobId(id)));  // saved with the batch
  ScheduleAndRun();
  EXPECT_EQ(Job(id).state, JobState::kRunning);
}

TEST_F(JobEditTest, RefusedEditChangesNothing) {
  const uint32_t id = Submit(alice_, Ask().Gpus(4));
  JobEdit edit;
  edit.name = "renamed";
  edit.partition = "nosuch";
  absl::Status st = Edit(id, edit);
  EXPECT_EQ(st.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("Invalid partition name specified"));
  EXPECT_THAT(st.message(), ::testing::Not(HasSubstr("Batch job submission failed")));
  EXPECT_EQ(Job(id).spec->name, "sbatch");
  EXPECT_EQ(Job(id).partition, "low");

  edit.partition = "restricted";  // AllowAccounts=nlp; alice's job has no such account
  st = Edit(id, edit);
  EXPECT_THAT(st.message(), HasSubstr("Invalid account or account/partition combination"));
  EXPECT_EQ(Job(id).partition, "low");
  EXPECT_EQ(Job(id).spec->name, "sbatch");

  JobEdit exclude;
  exclude.excluded_nodes = "gpu9";
  EXPECT_THAT(Edit(id, exclude).message(), HasSubstr("Invalid node name specified"));
  EXPECT_EQ(Job(id).spec->excluded_nodes, "");
}

TEST_F(JobEditTest, RunningJobKeepsItsPlacementButMayBeRenamed) {
  const uint32_t id = Submit(alice_, Ask().Gpus(4));
  ScheduleAndRun();
  ASSERT_EQ(Job(id).state, JobState::kRunning);
  JobEdit move;
  move.partition = "high";
  absl::Status st = Edit(id, move);
  EXPECT_EQ(st.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(st.message(), "Job is no longer pending execution");
  JobEdit rename;
  rename.name = "train";
  rename.comment = "epoch 3";
  ASSERT_TRUE(Edit(id, rename).ok());
  EXPECT_EQ(Job(id).spec->name, "train");
  EXPECT_EQ(Job(id).spec->comment, "epoch 3");
}

TEST_F(JobEditTest, OnlyTheOwnerOrAnOperatorMayEdit) {
  const uint32_t id = Submit(alice_, Ask().Gpus(4));
  JobEdit edit;
  edit.comment = "mine now";
  EXPECT_EQ(Edit(id, edit, &bob_).code(), absl::StatusCode::kPermissionDenied);
  EXPECT_TRUE(Edit(id, edit, &root_).ok());
  EXPECT_EQ(Edit(999, edit).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(Edit(id, JobEdit{}).code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(JobEditTest, NodeCountBeyondThePartitionPendsUntilLowered) {
  const uint32_t id = Submit(alice_, Ask().Gpus(4));
  JobEdit wide;
  wide.min_nodes = 5;  // the partitions have 4 nodes
  ASSERT_TRUE(Edit(id, wide).ok());
  EXPECT_EQ(Job(id).reason, JobReason::kPartitionNodeLimit);
  ScheduleAndRun();
  EXPECT_EQ(Job(id).state, JobState::kPending);
  JobEdit narrow;
  narrow.min_nodes = 2;
  ASSERT_TRUE(Edit(id, narrow).ok());
  EXPECT_EQ(Job(id).resources.min_nodes, 2);
  ScheduleAndRun();
  EXPECT_EQ(Job(id).state, JobState::kRunning);
  EXPECT_EQ(Job(id).allocation.nodes.size(), 2u);
}

TEST_F(JobEditTest, ExcludedNodesAreAvoided) {
  const uint32_t id = Submit(alice_, Ask().Gpus(4));
  JobEdit edit;
  edit.excluded_nodes = "gpu[1-3]";
  ASSERT_TRUE(Edit(id, edit).ok());
  ScheduleAndRun();
  ASSERT_EQ(Job(id).state, JobState::kRunning);
  ASSERT_EQ(Job(id).allocation.nodes.size(), 1u);
  EXPECT_EQ(topology_->node_name(Job(id).allocation.nodes[0].node), "gpu4");
}

TEST_F(JobEditTest, DependencyIsReplacedOrCleared) {
  const uint32_t first = SubmitWith("first");
  const uint32_t second = SubmitWith("second", {AfterOk(first)});
  EXPECT_EQ(Job(second).reason, JobReason::kDependency);

  JobEdit self;
  self.dependencies = std::vector<core::Dependency>{AfterOk(second)};
  EXPECT_THAT(Edit(second, self).message(), HasSubstr("cannot depend on itself"));
  JobEdit missing;
  missing.dependencies = std::vector<core::Dependency>{AfterOk(999)};
  absl::Status st = Edit(second, missing);
  EXPECT_THAT(st.message(), HasSubstr("job 999 does not exist"));
  EXPECT_THAT(st.message(), HasSubstr("Job dependency problem"));
  ASSERT_EQ(Job(second).spec->dependencies.size(), 1u);
  EXPECT_EQ(Job(second).spec->dependencies[0].job_id, first);

  JobEdit clear;
  clear.dependencies = std::vector<core::Dependency>{};
  ASSERT_TRUE(Edit(second, clear).ok());
  EXPECT_TRUE(Job(second).spec->dependencies.empty());
  EXPECT_NE(Job(second).reason, JobReason::kDependency);
  ScheduleAndRun();
  EXPECT_EQ(Job(second).state, JobState::kRunning);

  // The first job finishing no longer touches the second's (now empty) dependency.
  const uint32_t third = SubmitWith("third");
  JobEdit wait;
  wait.dependencies = std::vector<core::Dependency>{AfterOk(third)};
  const uint32_t fourth = SubmitWith("fourth");
  ASSERT_TRUE(Edit(fourth, wait).ok());
  EXPECT_EQ(Job(fourth).reason, JobReason::kDependency);
}

TEST_F(JobEditTest, RenamingReleasesASingletonWaitingOnTheOldName) {
  const uint32_t running = SubmitWith("x");
  ScheduleAndRun();
  ASSERT_EQ(Job(running).state, JobState::kRunning);
  core::Dependency singleton;
  singleton.type = core::DependencyType::kSingleton;
  const uint32_t waiting = SubmitWith("x", {singleton});
  ASSERT_EQ(Job(waiting).reason, JobReason::kDependency);

  JobEdit rename;
  rename.name = "y";
  ASSERT_TRUE(Edit(running, rename).ok());
  EXPECT_NE(Job(waiting).reason, JobReason::kDependency);
  ScheduleAndRun();
  EXPECT_EQ(Job(waiting).state, JobState::kRunning);
}

TEST_F(JobEditTest, ASingletonRenamedAwayFromABusyNameIsFree) {
  const uint32_t running = SubmitWith("x");
  ScheduleAndRun();
  ASSERT_EQ(Job(running).state, JobState::kRunning);
  core::Dependency singleton;
  singleton.type = core::DependencyType::kSingleton;
  const uint32_t waiting = SubmitWith("x", {singleton});
  ASSERT_EQ(Job(waiting).reason, JobReason::kDependency);
  JobEdit rename;
  rename.name = "free";
  ASSERT_TRUE(Edit(waiting, rename).ok());
  EXPECT_EQ(Job(waiting).spec->name, "free");
  EXPECT_NE(Job(waiting).reason, JobReason::kDependency);
}

}  // namespace
}  // namespace canopy::lifecycle
