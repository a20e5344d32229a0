// Cgroup::SweepDeadAgents: a restarted agent kills what a dead agent's jobs left running.
#include "agent/runtime/cgroup.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>

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

}  // namespace
}  // namespace canopy::agent::runtime
