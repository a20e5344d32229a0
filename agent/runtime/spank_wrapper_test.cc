#include "agent/runtime/spank_wrapper.h"

#include <fcntl.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::agent::runtime {
namespace {

using ::testing::ElementsAre;

TEST(SpankWrapperTest, CpuListTextIsSlurmsListFormat) {
  EXPECT_EQ(CpuListText({}), "");
  EXPECT_EQ(CpuListText({3}), "3");
  EXPECT_EQ(CpuListText({8, 0, 1, 2, 3, 10, 11}), "0-3,8,10-11");
}

TEST(SpankWrapperTest, TaskArgsCarryTheStepAndTheTask) {
  EXPECT_TRUE(SpankTaskArgs({}, 1, 2, 3, 0, 4, {0, 1}, 0).empty());  // no SPANK: no wrapper
  EXPECT_THAT(SpankTaskArgs({"/h"}, 7, kBatchScriptStepId, 1, 0, 1, {0}, 0),
              ElementsAre("/h", "--label=job 7 batch task 0", "--job-id=7", "--step-id=4294967291",
                          "--nnodes=1", "--node-id=0", "--total-tasks=1", "--local-tasks=1",
                          "--global-task-ids=0", "--task-local-id=0"));
}

// The other tasks of a step differ from task 0 in a few variables and in their stdio: pipes the
// agent reads (handed over as extra descriptors) or files the helper opens as the user.
TEST(SpankWrapperTest, AllTasksArgsDescribeHowTheOtherTasksDiffer) {
  SpawnRequest t0;
  t0.env = {"PATH=/bin", "SLURM_PROCID=4", "ONLY0=x"};
  t0.stdout_fd = 10;
  t0.stderr_fd = 11;
  SpawnRequest t1;
  t1.env = {"PATH=/bin", "SLURM_PROCID=5"};
  t1.stdout_fd = 12;
  t1.stderr_fd = 13;
  SpawnRequest t2;
  t2.env = {"PATH=/bin", "SLURM_PROCID=6", "ONLY0=x"};
  t2.stdout_path = "/w/out-6";
  t2.stdout_flags = O_APPEND;
  t2.stderr_path = "/w/out-6";
  std::vector<int> fds = {20};  // the exits pipe
  EXPECT_THAT(SpankAllTasksArgs({&t0, &t1, &t2}, fds),
              ElementsAre("--all-tasks", "--exits-fd=6", "--task-env=1:SLURM_PROCID=5",
                          "--task-unset=1:ONLY0", "--task-stdout=1:fd:7", "--task-stderr=1:fd:8",
                          "--task-env=2:SLURM_PROCID=6", "--task-stdout=2:append:/w/out-6",
                          "--task-stderr=2:stdout"));
  EXPECT_THAT(fds, ElementsAre(20, 12, 13));
}

}  // namespace
}  // namespace canopy::agent::runtime
