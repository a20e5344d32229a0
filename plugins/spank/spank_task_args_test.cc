#include "plugins/spank/spank_task_args.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::spank {
namespace {

using ::testing::ElementsAre;

TEST(SpankTaskArgsTest, ItemsIdentityStdioAndTheTaskCommand) {
  absl::StatusOr<SpankTaskArgs> args = ParseSpankTaskArgs({"--plugstack=/etc/slurm/plugstack.conf",
                                                           "--plugin-dir=/a:/b",
                                                           "--label=job 5 task 1",
                                                           "--job-id=5",
                                                           "--step-id=4294967291",
                                                           "--nnodes=2",
                                                           "--node-id=1",
                                                           "--local-tasks=2",
                                                           "--total-tasks=4",
                                                           "--global-task-ids=2,3",
                                                           "--task-local-id=1",
                                                           "--ncpus=8",
                                                           "--job-cores=0-3,8",
                                                           "--job-mem-mb=4096",
                                                           "--restart-count=1",
                                                           "--uid=1000",
                                                           "--gid=100",
                                                           "--groups=100,27",
                                                           "--work-dir=/home/ada",
                                                           "--stdout=out.txt",
                                                           "--stdout-flags=append",
                                                           "--stderr-to-stdout",
                                                           "--",
                                                           "/bin/sh",
                                                           "-c",
                                                           "true"});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->plugstack, "/etc/slurm/plugstack.conf");
  EXPECT_EQ(args->plugin_dirs, "/a:/b");
  EXPECT_EQ(args->items.job_id, 5u);
  EXPECT_EQ(args->items.step_id, 0xfffffffbu);
  EXPECT_THAT(args->items.global_task_ids, ElementsAre(2u, 3u));
  EXPECT_THAT(args->items.task_pids, ElementsAre(0, 0));
  EXPECT_EQ(args->local_id, 1);
  EXPECT_EQ(args->items.ncpus, 8);
  EXPECT_EQ(args->items.job_alloc_cores, "0-3,8");
  EXPECT_EQ(args->items.job_alloc_mem_mb, 4096u);
  EXPECT_EQ(args->items.uid, 1000u);
  EXPECT_THAT(*args->items.supplementary_gids, ElementsAre(100u, 27u));
  EXPECT_TRUE(args->stdout_append);
  EXPECT_TRUE(args->stderr_to_stdout);
  EXPECT_THAT(args->argv, ElementsAre("/bin/sh", "-c", "true"));
}

TEST(SpankTaskArgsTest, BadInputNamesTheFlag) {
  EXPECT_EQ(ParseSpankTaskArgs({"--plugstack=p", "--job-id=x", "--", "true"}).status().message(),
            "--job-id: expected a number, got 'x'");
  EXPECT_EQ(ParseSpankTaskArgs({"--plugstack=p", "--ncpus=70000", "--", "true"}).status().message(),
            "--ncpus: expected a number, got '70000'");
  EXPECT_EQ(ParseSpankTaskArgs({"--plugstack=p"}).status().message(),
            "no task command line after '--'");
  EXPECT_EQ(ParseSpankTaskArgs({"--job-script=middle"}).status().message(),
            "--job-script: expected prolog or epilog, got 'middle'");
  EXPECT_EQ(ParseSpankTaskArgs({"--plugstack=p", "--bogus=1", "--", "true"}).status().message(),
            "unknown argument '--bogus=1'");
  EXPECT_EQ(ParseSpankTaskArgs({"--plugstack=p", "--uid=1", "--", "true"}).status().message(),
            "--uid and --gid: give both or neither");
  EXPECT_EQ(
      ParseSpankTaskArgs({"--plugstack=p", "--local-tasks=2", "--global-task-ids=1", "--", "true"})
          .status()
          .message(),
      "--global-task-ids: expected 2 ids (--local-tasks)");
}

TEST(SpankTaskArgsTest, JobScriptModeNeedsNoCommand) {
  absl::StatusOr<SpankTaskArgs> args =
      ParseSpankTaskArgs({"--job-script=epilog", "--job-id=9", "--job-uid=1000", "--job-gid=100"});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(args->job_script, "epilog");
  EXPECT_EQ(args->items.uid, 1000u);
  EXPECT_EQ(args->items.gid, 100u);
  EXPECT_TRUE(args->plugstack.empty());
  EXPECT_TRUE(args->argv.empty());
}

TEST(SpankTaskArgsTest, AllTasksOfAStepWithTheirOwnEnvironmentAndStdio) {
  absl::StatusOr<SpankTaskArgs> args = ParseSpankTaskArgs(
      {"--all-tasks", "--exits-fd=5", "--local-tasks=3", "--global-task-ids=4,5,6",
       "--task-env=1:SLURM_PROCID=5", "--task-unset=2:ONLY_RANK_0", "--task-stdout=1:fd:6",
       "--task-stderr=1:fd:7", "--task-stdout=2:append:out-6.txt", "--task-stderr=2:stdout", "--",
       "/bin/true"});
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_TRUE(args->all_tasks);
  EXPECT_EQ(args->exits_fd, 5);
  ASSERT_EQ(args->other_tasks.size(), 3u);
  EXPECT_THAT(args->other_tasks[1].set_env, ElementsAre("SLURM_PROCID=5"));
  EXPECT_THAT(args->other_tasks[2].unset_env, ElementsAre("ONLY_RANK_0"));
  EXPECT_EQ(args->other_tasks[1].out.fd, 6);
  EXPECT_EQ(args->other_tasks[1].err.fd, 7);
  EXPECT_EQ(args->other_tasks[2].out.path, "out-6.txt");
  EXPECT_TRUE(args->other_tasks[2].out.append);
  EXPECT_TRUE(args->other_tasks[2].err.to_stdout);

  EXPECT_EQ(ParseSpankTaskArgs({"--all-tasks", "--local-tasks=2", "--global-task-ids=0,1",
                                "--exits-fd=5", "--task-stdout=1:fd:6", "--", "true"})
                .status()
                .message(),
            "task 1: --task-stdout and --task-stderr are required");
  EXPECT_EQ(ParseSpankTaskArgs({"--task-env=0:X=1", "--", "true"}).status().message(),
            "--task-env: expected LOCAL_ID:..., with a local id from 1, got '0:X=1'");
  EXPECT_EQ(ParseSpankTaskArgs({"--task-stdout=1:pipe:3", "--", "true"}).status().message(),
            "--task-stdout: expected I:fd:N, I:append:PATH, I:truncate:PATH, got 'pipe:3'");
}

}  // namespace
}  // namespace canopy::spank
