// Cgroup::SweepDeadAgents: a restarted agent kills what a dead agent's jobs left running.
#include "agent/runtime/cgroup.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace canopy::agent::runtime {
namespace {

TEST(CgroupTest, SweepKillsWhatADeadAgentLeftAndRemovesItsCgroups) {
  absl::StatusOr<std::string> root = Cgroup::FindDelegatedRoot();
  if (!root.ok()) {
    GTEST_SKIP() << "no writable cgroup v2 here: " << root.status().message();
  }
  // A pid that is certainly dead: a child that exited and was reaped.
  const pid_t dead = fork();
  if (dead == 0) {
    _exit(0);
  }
  ASSERT_GT(dead, 0);
  waitpid(dead, nullptr, 0);
  absl::StatusOr<std::unique_ptr<Cgroup>> agent =
      Cgroup::Create(*root, absl::StrCat("canopy-agent-", dead));
  ASSERT_TRUE(agent.ok()) << agent.status();
  absl::StatusOr<std::unique_ptr<Cgroup>> job = Cgroup::Create((*agent)->path(), "job7");
  ASSERT_TRUE(job.ok()) << job.status();

  // The dead agent's job: a sleep in the job's cgroup.
  const std::string procs = (*job)->path() + "/cgroup.procs";
  const pid_t sleeper = fork();
  if (sleeper == 0) {
    const int fd = open(procs.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, "0", 1) != 1) {
      _exit(126);
    }
    execl("/bin/sleep", "sleep", "1000", static_cast<char*>(nullptr));
    _exit(127);
  }
  ASSERT_GT(sleeper, 0);
  for (int i = 0; i < 100 && !(*job)->Populated(); ++i) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  ASSERT_TRUE((*job)->Populated());

  EXPECT_GE(Cgroup::SweepDeadAgents(*root), 1);
  int status = 0;
  ASSERT_EQ(waitpid(sleeper, &status, 0), sleeper);
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  EXPECT_FALSE(std::filesystem::exists((*agent)->path()));
  // A live agent's cgroup (ours, if it had one) is never touched: only canopy-agent-<dead pid>.
}

TEST(CgroupTest, CgroupsBelowFindsEveryDirectoryAtAnyDepthAndNothingElse) {
  std::string tmpl = (std::filesystem::temp_directory_path() / "cgroups-below-XXXXXX").string();
  const std::string root = mkdtemp(tmpl.data());
  std::filesystem::create_directories(root + "/canopy-agent-1/job7/step0");
  std::filesystem::create_directories(root + "/canopy-agent-1/job8");
  std::ofstream(root + "/canopy-agent-1/cgroup.procs") << "";
  std::filesystem::create_directory_symlink(root + "/canopy-agent-1/job7",
                                            root + "/canopy-agent-1/link");
  std::vector<std::string> found = Cgroup::CgroupsBelow(root + "/canopy-agent-1");
  std::sort(found.begin(), found.end());
  EXPECT_EQ(found, (std::vector<std::string>{root + "/canopy-agent-1/job7",
                                             root + "/canopy-agent-1/job7/step0",
                                             root + "/canopy-agent-1/job8"}));
  // A directory already gone (swept by another agent) has nothing below it, and no error.
  EXPECT_TRUE(Cgroup::CgroupsBelow(root + "/canopy-agent-2").empty());
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace canopy::agent::runtime
