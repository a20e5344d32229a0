#include "plugins/spank/task_scripts.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::spank {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::Not;

TEST(TaskScriptsTest, PrologOutputSetsUnsetsAndPrints) {
  std::vector<std::string> env = {"HOME=/home/ada", "OLD=1", "KEEP=yes"};
  const std::string printed = ApplyTaskPrologOutput(
      "export SCRATCH=/scratch/77\nunset OLD\nprint hello from the prolog\n"
      "export HOME=/tmp/ada\nnonsense line\n",
      env);
  EXPECT_EQ(printed, "hello from the prolog\n");
  EXPECT_THAT(env, ElementsAre("HOME=/tmp/ada", "KEEP=yes", "SCRATCH=/scratch/77"));
}

TEST(TaskScriptsTest, ARealPrologSeesItsContextAndItsStatusComesBack) {
  char dir[] = "/tmp/task_scripts_test.XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string script = std::string(dir) + "/tp.sh";
  std::ofstream(script) << "#!/bin/sh\necho \"export CONTEXT=$SLURM_SCRIPT_CONTEXT\"\n"
                        << "echo \"export FROM=$FROM\"\nexit 3\n";
  chmod(script.c_str(), 0755);
  std::vector<std::string> env = {"FROM=task", "PATH=/usr/bin:/bin"};
  const int status = RunTaskProlog(script, env);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3);
  EXPECT_THAT(env, Contains("CONTEXT=prolog_task"));
  EXPECT_THAT(env, Contains("FROM=task"));
  EXPECT_THAT(env, Not(Contains("SLURM_SCRIPT_CONTEXT=prolog_task")));  // the script's only
  EXPECT_EQ(RunTaskEpilog(script, env, -1, -1, {}), 3 << 8);
  EXPECT_EQ(RunTaskEpilog(std::string(dir) + "/missing", env, -1, -1, {}), 127 << 8);
  ASSERT_EQ(system((std::string("rm -rf ") + dir).c_str()), 0);
}

}  // namespace
}  // namespace canopy::spank
