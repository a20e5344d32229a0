// scontrol's job lists and `update job` words, and the keywords that take them.
#include "ctl/scontrol/job_words.h"

#include "ctl/scontrol/options.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::ctl::scontrol {
namespace {

TEST(JobWordsTest, JobListsOfIdsAndTasks) {
  absl::StatusOr<JobList> list = ParseJobList({"1220,1221", "5_2"});
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->targets.size(), 3u);
  EXPECT_EQ(list->targets[0].job_id, 1220u);
  EXPECT_FALSE(list->targets[0].task.has_value());
  EXPECT_EQ(list->targets[2].job_id, 5u);
  EXPECT_EQ(list->targets[2].task, 2u);
  EXPECT_EQ(list->targets[2].text, "5_2");
  EXPECT_EQ(ParseJobList({"JobName=train"})->job_name, "train");
  EXPECT_EQ(ParseJobList({"abc"}).status().message(), "Invalid job id specified for job abc");
  EXPECT_EQ(ParseJobList({"0"}).status().message(), "Invalid job id specified for job 0");
  EXPECT_EQ(ParseJobList({"5_x"}).status().message(), "Invalid job id specified for job 5_x");
  EXPECT_EQ(ParseJobList({"+5"}).status().message(), "Invalid job id specified for job +5");
  EXPECT_FALSE(ParseJobList({"5", "jobname=x"}).ok());
}

TEST(JobWordsTest, UpdateJobForms) {
  EXPECT_TRUE(IsJobUpdate({"job", "1220", "TimeLimit=30"}));
  EXPECT_TRUE(IsJobUpdate({"JobId=1220", "Priority=5"}));
  EXPECT_FALSE(IsJobUpdate({"NodeName=gpu1", "State=DRAIN"}));

  absl::StatusOr<JobUpdate> u = ParseJobUpdate({"job", "1220", "TimeLimit=30"});
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_EQ(u->target.job_id, 1220u);
  EXPECT_EQ(u->request.time_limit().seconds(), 30 * 60);  // minutes, as --time reads it
  EXPECT_FALSE(u->request.has_priority());

  u = ParseJobUpdate({"jobid=7_1", "Priority=0", "nice=-5", "TimeLimit=1:00:30"});
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_EQ(u->target.task, 1u);
  EXPECT_EQ(u->request.priority(), 0u);  // a hold, but given
  EXPECT_TRUE(u->request.has_priority());
  EXPECT_EQ(u->request.nice(), -5);
  EXPECT_EQ(u->request.time_limit().seconds(), 61 * 60);  // seconds round up to minutes

  u = ParseJobUpdate({"JobId=7", "TimeLimit+=15"});
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_EQ(u->request.time_limit_change().seconds(), 15 * 60);
  EXPECT_EQ(
      ParseJobUpdate({"JobId=7", "TimeLimit-=1:00:00"})->request.time_limit_change().seconds(),
      -3600);
  EXPECT_TRUE(ParseJobUpdate({"JobId=7", "TimeLimit=UNLIMITED"})->request.time_limit_unlimited());
}

TEST(JobWordsTest, BadUpdatesSayWhat) {
  EXPECT_EQ(ParseJobUpdate({"job", "7", "Licenses=x"}).status().message(),
            "scontrol: error: Update of this parameter is not supported: Licenses=x\n"
            "Request aborted");
  EXPECT_EQ(ParseJobUpdate({"job", "7", "bogus"}).status().message(),
            "scontrol: error: Invalid input: bogus\nRequest aborted");
  EXPECT_EQ(ParseJobUpdate({"job", "7", "TimeLimit=soon"}).status().message(),
            "scontrol: error: TimeLimit: expected minutes, MM:SS, HH:MM:SS, D-HH[:MM[:SS]] or "
            "UNLIMITED, got 'soon'\nRequest aborted");
  EXPECT_THAT(ParseJobUpdate({"job", "7", "Priority=-1"}).status().message(),
              ::testing::HasSubstr("Priority: expected a number from 0 (hold) to 4294967294"));
  EXPECT_THAT(ParseJobUpdate({"job", "7", "Nice=3000000000"}).status().message(),
              ::testing::HasSubstr("Nice: expected a number from -2147483645"));
  EXPECT_THAT(ParseJobUpdate({"job", "7", "TimeLimit+=UNLIMITED"}).status().message(),
              ::testing::HasSubstr("TimeLimit+=: expected a time to add"));
  EXPECT_THAT(ParseJobUpdate({"job", "7"}).status().message(),
              ::testing::HasSubstr("No changes specified"));
  EXPECT_THAT(ParseJobUpdate({"Priority=1"}).status().message(),
              ::testing::HasSubstr("update job needs a job id"));
  EXPECT_EQ(ParseJobUpdate({"job", "x", "Priority=1"}).status().message(),
            "Invalid job id specified for job x");
}

TEST(JobWordsTest, NameCommentPartitionNodesAndLists) {
  absl::StatusOr<JobUpdate> u =
      ParseJobUpdate({"job", "7", "name=train", "COMMENT=long run", "Partition=gpu", "NumNodes=2-4",
                      "ExcNodeList=gpu[001-002]", "ReqNodeList=gpu003"});
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_EQ(u->request.name(), "train");
  EXPECT_EQ(u->request.comment(), "long run");
  EXPECT_EQ(u->request.partition(), "gpu");
  EXPECT_EQ(u->request.min_nodes(), 2);
  EXPECT_EQ(u->request.max_nodes(), 4);
  EXPECT_EQ(u->request.excluded_nodes(), "gpu[001-002]");
  EXPECT_EQ(u->request.required_nodes(), "gpu003");
  EXPECT_FALSE(u->request.set_dependencies());
  EXPECT_FALSE(u->request.has_priority());

  u = ParseJobUpdate({"JobId=7", "JobName=x", "NumNodes=3", "NodeList=", "excnodelist="});
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_EQ(u->request.name(), "x");
  EXPECT_EQ(u->request.min_nodes(), 3);
  EXPECT_FALSE(u->request.has_max_nodes());      // N alone leaves the maximum as it is
  EXPECT_TRUE(u->request.has_required_nodes());  // "" clears the list
  EXPECT_EQ(u->request.required_nodes(), "");
  EXPECT_TRUE(u->request.has_excluded_nodes());
  EXPECT_EQ(ParseJobUpdate({"job", "7", "MinNodes=2"})->request.min_nodes(), 2);
  EXPECT_FALSE(ParseJobUpdate({"job", "7", "MinNodes=2"})->request.has_max_nodes());
  EXPECT_EQ(ParseJobUpdate({"job", "7", "Comment="})->request.comment(), "");
  EXPECT_TRUE(ParseJobUpdate({"job", "7", "Comment="})->request.has_comment());
}

TEST(JobWordsTest, Dependency) {
  absl::StatusOr<JobUpdate> u = ParseJobUpdate({"job", "7", "Dependency=afterok:5:6_2,after:4+10"});
  ASSERT_TRUE(u.ok()) << u.status();
  const canopy::v1::UpdateJobRequest& r = u->request;
  EXPECT_TRUE(r.set_dependencies());
  EXPECT_FALSE(r.dependency_any());
  ASSERT_EQ(r.dependencies_size(), 3);
  EXPECT_EQ(r.dependencies(0).type(), canopy::v1::JobDependency::TYPE_AFTER_OK);
  EXPECT_EQ(r.dependencies(0).job_id(), 5u);
  EXPECT_FALSE(r.dependencies(0).has_array_task_id());
  EXPECT_EQ(r.dependencies(1).job_id(), 6u);
  EXPECT_EQ(r.dependencies(1).array_task_id(), 2u);
  EXPECT_EQ(r.dependencies(2).type(), canopy::v1::JobDependency::TYPE_AFTER);
  EXPECT_EQ(r.dependencies(2).delay().seconds(), 600);

  u = ParseJobUpdate({"job", "7", "dependency=afterany:5?singleton"});
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_TRUE(u->request.dependency_any());
  EXPECT_EQ(u->request.dependencies(1).type(), canopy::v1::JobDependency::TYPE_SINGLETON);

  u = ParseJobUpdate({"job", "7", "Dependency="});  // clears them
  ASSERT_TRUE(u.ok()) << u.status();
  EXPECT_TRUE(u->request.set_dependencies());
  EXPECT_EQ(u->request.dependencies_size(), 0);
}

TEST(JobWordsTest, BadNewKeysSayWhat) {
  EXPECT_EQ(ParseJobUpdate({"job", "7", "NumNodes=x"}).status().message(),
            "scontrol: error: NumNodes: expected a node count N or a range N-M (1 <= N <= M), "
            "got 'x'\nRequest aborted");
  EXPECT_THAT(ParseJobUpdate({"job", "7", "NumNodes=4-2"}).status().message(),
              ::testing::HasSubstr("got '4-2'"));
  EXPECT_THAT(ParseJobUpdate({"job", "7", "NumNodes=0"}).status().message(),
              ::testing::HasSubstr("NumNodes: expected"));
  EXPECT_EQ(ParseJobUpdate({"job", "7", "MinNodes=-1"}).status().message(),
            "scontrol: error: MinNodes: expected a node count of at least 1, got '-1'\n"
            "Request aborted");
  EXPECT_EQ(ParseJobUpdate({"job", "7", "ExcNodeList=gpu[3-1]"}).status().message(),
            "scontrol: error: ExcNodeList: expected a host list such as gpu[001-004], or nothing "
            "to clear it, got 'gpu[3-1]'\nRequest aborted");
  EXPECT_THAT(ParseJobUpdate({"job", "7", "ReqNodeList=a[1-"}).status().message(),
              ::testing::HasSubstr("ReqNodeList: expected a host list"));
  EXPECT_EQ(ParseJobUpdate({"job", "7", "Partition="}).status().message(),
            "scontrol: error: Partition: expected a partition name, got ''\nRequest aborted");
  const std::string dep =
      std::string(ParseJobUpdate({"job", "7", "Dependency=afterwards:5"}).status().message());
  EXPECT_EQ(dep.rfind("scontrol: error: Dependency: ", 0), 0u) << dep;
  EXPECT_THAT(dep, ::testing::EndsWith("\nRequest aborted"));
  EXPECT_THAT(ParseJobUpdate({"job", "7", "Name+=x"}).status().message(),
              ::testing::HasSubstr("Invalid input: Name+=x"));
}

TEST(JobWordsTest, JobKeywords) {
  EXPECT_EQ(ParseScontrolArgs({"hold", "5"})->command, Command::kHold);
  EXPECT_EQ(ParseScontrolArgs({"uhold", "5"})->command, Command::kUserHold);
  EXPECT_EQ(ParseScontrolArgs({"rel", "5"})->command, Command::kRelease);
  EXPECT_EQ(ParseScontrolArgs({"requeue", "5"})->command, Command::kRequeue);
  EXPECT_EQ(ParseScontrolArgs({"requeuehold", "5"})->command, Command::kRequeueHold);
  EXPECT_EQ(ParseScontrolArgs({"top", "5,6"})->command, Command::kTop);
  EXPECT_EQ(ParseScontrolArgs({"show", "job", "5"})->command, Command::kShowJob);
  EXPECT_EQ(ParseScontrolArgs({"show", "jobid", "5"})->command, Command::kShowJob);
  EXPECT_EQ(ParseScontrolArgs({"-o", "show", "jobs"})->command, Command::kShowJob);
  EXPECT_EQ(ParseScontrolArgs({"hold"}).status().message(), "too few arguments for keyword:hold");
  EXPECT_EQ(ParseScontrolArgs({"requeu", "5"}).status().message(), "invalid keyword: requeu");
  EXPECT_EQ(ParseScontrolArgs({"suspend", "5"})->command, Command::kSuspend);
  EXPECT_EQ(ParseScontrolArgs({"su", "5"})->command, Command::kSuspend);
  EXPECT_EQ(ParseScontrolArgs({"resume", "5"})->command, Command::kResume);
  EXPECT_EQ(ParseScontrolArgs({"res", "5"})->command, Command::kResume);
  EXPECT_EQ(ParseScontrolArgs({"resume"}).status().message(),
            "too few arguments for keyword:resume");
}

}  // namespace
}  // namespace canopy::ctl::scontrol
