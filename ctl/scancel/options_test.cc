#include "ctl/scancel/options.h"

#include <csignal>

#include "gtest/gtest.h"

namespace canopy::ctl::scancel {
namespace {

TEST(ScancelArgsTest, JobsTasksAndSteps) {
  absl::StatusOr<ScancelOptions> o = ParseScancelArgs({"12", "5_3", "7.2", "9_1.4"});
  ASSERT_TRUE(o.ok()) << o.status();
  ASSERT_EQ(o->targets.size(), 4u);
  EXPECT_EQ(o->targets[0].job_id, 12u);
  EXPECT_FALSE(o->targets[0].array_task.has_value());
  EXPECT_EQ(o->targets[1].job_id, 5u);
  EXPECT_EQ(*o->targets[1].array_task, 3u);
  EXPECT_EQ(*o->targets[2].step_id, 2u);
  EXPECT_EQ(*o->targets[3].array_task, 1u);
  EXPECT_EQ(*o->targets[3].step_id, 4u);
  EXPECT_EQ(o->signal, 0);
  EXPECT_FALSE(o->HasFilters());
}

TEST(ScancelArgsTest, Signals) {
  EXPECT_EQ(ParseScancelArgs({"-s", "USR1", "1"})->signal, SIGUSR1);
  EXPECT_EQ(ParseScancelArgs({"--signal=SIGTERM", "1"})->signal, SIGTERM);
  EXPECT_EQ(ParseScancelArgs({"-s9", "1"})->signal, 9);
  EXPECT_EQ(ParseScancelArgs({"--signal", "kill", "1"})->signal, SIGKILL);
  absl::StatusOr<ScancelOptions> bad = ParseScancelArgs({"-s", "BOGUS", "1"});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "Unknown job signal: BOGUS");
}

TEST(ScancelArgsTest, Filters) {
  absl::StatusOr<ScancelOptions> o =
      ParseScancelArgs({"-u", "alice", "-n", "train", "-p", "gpu", "-t", "PD", "-b", "-v"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->user, "alice");
  EXPECT_EQ(o->name, "train");
  EXPECT_EQ(o->partition, "gpu");
  EXPECT_EQ(*o->state, canopy::v1::JOB_STATE_PENDING);
  EXPECT_TRUE(o->batch);
  EXPECT_EQ(o->verbose, 1);
  EXPECT_TRUE(o->HasFilters());
  EXPECT_TRUE(o->targets.empty());
}

TEST(ScancelArgsTest, Errors) {
  EXPECT_EQ(ParseScancelArgs({}).status().message(), "error: No job identification provided");
  EXPECT_EQ(ParseScancelArgs({"abc"}).status().message(), "error: Invalid job id abc");
  EXPECT_EQ(ParseScancelArgs({"5_x"}).status().message(), "error: Invalid job id 5_x");
  EXPECT_FALSE(ParseScancelArgs({"--bogus", "1"}).ok());
  EXPECT_FALSE(ParseScancelArgs({"-t", "BOGUS"}).ok());
  EXPECT_FALSE(ParseScancelArgs({"-u"}).ok());
}

TEST(ScancelArgsTest, GetoptRules) {
  absl::StatusOr<ScancelOptions> o = ParseScancelArgs({"12", "-vv", "--sig=KILL", "--part", "gpu"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->verbose, 2);
  EXPECT_EQ(o->signal, SIGKILL);
  EXPECT_EQ(o->partition, "gpu");
  ASSERT_EQ(o->targets.size(), 1u);
  EXPECT_EQ(o->targets[0].job_id, 12u);
  EXPECT_EQ(ParseScancelArgs({"--jobname=x"})->name, "x");
  const std::string kTry = "\nTry \"scancel --help\" for more information";
  EXPECT_EQ(ParseScancelArgs({"--bogus", "1"}).status().message(),
            "unrecognized option '--bogus'" + kTry);
  EXPECT_EQ(ParseScancelArgs({"-u"}).status().message(),
            "option requires an argument -- 'u'" + kTry);
  EXPECT_EQ(ParseScancelArgs({"--s=9", "1"}).status().message(),
            "option '--s=9' is ambiguous; possibilities: '--signal' '--state'" + kTry);
  // Options are all read before the job ids, as scancel does.
  EXPECT_EQ(ParseScancelArgs({"abc", "--bogus"}).status().message(),
            "unrecognized option '--bogus'" + kTry);
}

// --help, --usage and -V are answered without a job id, as scancel does.
TEST(ScancelArgsTest, InfoRequestsNeedNoJobId) {
  EXPECT_EQ(ParseScancelArgs({"--help"})->info, slurm::InfoRequest::kHelp);
  EXPECT_EQ(ParseScancelArgs({"--usage"})->info, slurm::InfoRequest::kUsage);
  EXPECT_EQ(ParseScancelArgs({"-V"})->info, slurm::InfoRequest::kVersion);
  EXPECT_EQ(ParseScancelArgs({"--version", "--help"})->info, slurm::InfoRequest::kVersion);
  // Answered as soon as it is reached: what follows is not even read.
  EXPECT_EQ(ParseScancelArgs({"--help", "-s", "BOGUS", "--nosuch"})->info,
            slurm::InfoRequest::kHelp);
  EXPECT_EQ(ParseScancelArgs({"5"})->info, slurm::InfoRequest::kNone);
}

}  // namespace
}  // namespace canopy::ctl::scancel
