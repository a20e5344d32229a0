// Spawn: a program that another process holds open for writing (the agent's own batch script,
// inherited for a moment by a fork in another thread) still starts once that writer is gone,
// instead of failing the launch with "Text file busy". And what the child does between its
// start and exec, which it does on the agent's own memory (CLONE_VM): becoming the user must
// change the child only, signals are back to their defaults, failures come back as Statuses.
#include "agent/runtime/spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "agent/runtime/child_reaper.h"
#include "agent/runtime/runtime_test_util.h"
#include "gtest/gtest.h"

namespace canopy::agent::runtime {
namespace {

using testing::ReadFile;

std::string MakeTempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "spawn-XXXXXX").string();
  return mkdtemp(tmpl.data());
}

// Spawns `req` and waits for the child: its exit status (wait(2)'s) or the Status.
absl::StatusOr<int> SpawnAndWait(ChildReaper& reaper, const SpawnRequest& req) {
  absl::Notification exited;
  int status = -1;
  absl::StatusOr<pid_t> pid = Spawn(req, reaper, [&](int s) {
    status = s;
    exited.Notify();
  });
  if (!pid.ok()) {
    return pid.status();
  }
  if (!exited.WaitForNotificationWithTimeout(absl::Seconds(20))) {
    return absl::DeadlineExceededError("the child did not exit");
  }
  return status;
}

// Runs /bin/sh -c `command` with stdout into `out`; the exit status (wait(2)'s) or the Status.
absl::StatusOr<int> RunShell(ChildReaper& reaper, const std::string& command,
                             const std::string& work_dir, const std::string& out,
                             std::optional<Credentials> credentials = std::nullopt) {
  SpawnRequest req;
  req.argv = {"/bin/sh", "-c", command};
  req.env = {"PATH=/usr/bin:/bin"};
  req.work_dir = work_dir;
  req.stdin_path = "/dev/null";
  req.stdout_path = out;
  req.stderr_path = out;
  req.credentials = std::move(credentials);
  return SpawnAndWait(reaper, req);
}

TEST(SpawnTest, TheChildBecomesTheUserAndTheAgentDoesNot) {
  if (geteuid() != 0) {
    GTEST_SKIP() << "needs root to change user";
  }
  const std::string dir = MakeTempDir();
  std::filesystem::permissions(dir, std::filesystem::perms::all);  // nobody writes its output
  absl::StatusOr<std::unique_ptr<ChildReaper>> reaper = ChildReaper::Create();
  ASSERT_TRUE(reaper.ok());
  // Other threads, as the agent has: glibc's setuid() would change theirs too.
  std::atomic<bool> stop{false};
  std::atomic<uid_t> seen_by_thread{0};
  std::thread other([&] {
    while (!stop.load()) {
      if (geteuid() != 0) {
        seen_by_thread = geteuid();
      }
      usleep(1000);
    }
  });
  Credentials nobody{65534, 65534, {65534}};
  absl::StatusOr<int> status = RunShell(**reaper, "id -u; id -g; id -G", dir, dir + "/out", nobody);
  stop = true;
  other.join();
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << ReadFile(dir + "/out");
  EXPECT_EQ(ReadFile(dir + "/out"), "65534\n65534\n65534\n");
  EXPECT_EQ(geteuid(), 0u);
  EXPECT_EQ(getuid(), 0u);
  EXPECT_EQ(getegid(), 0u);
  EXPECT_EQ(seen_by_thread.load(), 0u);
  std::filesystem::remove_all(dir);
}

TEST(SpawnTest, TheChildStartsWithDefaultSignalsWhateverTheAgentHandlesOrBlocks) {
  const std::string dir = MakeTempDir();
  absl::StatusOr<std::unique_ptr<ChildReaper>> reaper = ChildReaper::Create();
  ASSERT_TRUE(reaper.ok());
  // The agent ignores SIGPIPE (gRPC) and blocks SIGTERM on this thread.
  struct sigaction ignore {};
  struct sigaction old_pipe {};
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(sigaction(SIGPIPE, &ignore, &old_pipe), 0);
  sigset_t term;
  sigset_t old_mask;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  ASSERT_EQ(pthread_sigmask(SIG_BLOCK, &term, &old_mask), 0);
  // SigBlk and SigIgn are both zero: nothing blocked, nothing ignored.
  absl::StatusOr<int> status =
      RunShell(**reaper, "grep -E '^Sig(Blk|Ign)' /proc/self/status", dir, dir + "/out");
  sigset_t now;
  pthread_sigmask(SIG_SETMASK, &old_mask, &now);
  sigaction(SIGPIPE, &old_pipe, nullptr);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(ReadFile(dir + "/out"), "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n");
  EXPECT_EQ(sigismember(&now, SIGTERM), 1) << "the agent's own mask was changed";
  std::filesystem::remove_all(dir);
}

TEST(SpawnTest, FailuresBeforeExecComeBackAsStatusesAndTheAgentCarriesOn) {
  const std::string dir = MakeTempDir();
  absl::StatusOr<std::unique_ptr<ChildReaper>> reaper = ChildReaper::Create();
  ASSERT_TRUE(reaper.ok());
  absl::StatusOr<int> no_dir = RunShell(**reaper, "true", dir + "/missing", dir + "/out");
  EXPECT_EQ(no_dir.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(no_dir.status().message(), "chdir to " + dir + "/missing: No such file or directory");
  absl::StatusOr<int> no_output = RunShell(**reaper, "true", dir, dir + "/missing/out");
  EXPECT_EQ(no_output.status().message(),
            "open " + dir + "/missing/out for output: No such file or directory");
  // Many in a row, from several threads at once: each child gets a stack of its own.
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 25; ++i) {
        const std::string out = absl::StrCat(dir, "/out.", t, ".", i);
        absl::StatusOr<int> s = RunShell(**reaper, absl::StrCat("echo ", t, ".", i), dir, out);
        if (s.ok() && WIFEXITED(*s) && WEXITSTATUS(*s) == 0 &&
            ReadFile(out) == absl::StrCat(t, ".", i, "\n")) {
          ++ok;
        }
      }
    });
  }
  for (std::thread& t : threads) {
    t.join();
  }
  EXPECT_EQ(ok.load(), 100);
  std::filesystem::remove_all(dir);
}

TEST(SpawnTest, ProgramHeldOpenForWritingStartsOnceTheWriterCloses) {
  std::string tmpl = (std::filesystem::temp_directory_path() / "spawn-XXXXXX").string();
  const std::string dir = mkdtemp(tmpl.data());
  const std::string script = dir + "/script";
  std::ofstream(script) << "#!/bin/sh\nexit 5\n";
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);

  // A writer that keeps the script open for 300 ms, as an inherited descriptor would.
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t writer = fork();
  ASSERT_GE(writer, 0);
  if (writer == 0) {
    const int fd = open(script.c_str(), O_WRONLY);
    (void)!write(ready[1], "x", 1);
    usleep(300'000);
    close(fd);
    _exit(0);
  }
  char byte;
  ASSERT_EQ(read(ready[0], &byte, 1), 1);
  close(ready[0]);
  close(ready[1]);

  absl::StatusOr<std::unique_ptr<ChildReaper>> reaper = ChildReaper::Create();
  ASSERT_TRUE(reaper.ok());
  SpawnRequest req;
  req.argv = {script};
  req.work_dir = dir;
  req.stdin_path = "/dev/null";
  req.stdout_path = "/dev/null";
  req.stderr_path = "/dev/null";
  absl::StatusOr<int> status = SpawnAndWait(**reaper, req);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_TRUE(WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 5);
  waitpid(writer, nullptr, 0);
  std::filesystem::remove_all(dir);
}

// The submitter's umask (SLURM_UMASK) shapes the job's output file and the job's own files;
// without one the child keeps the agent's.
TEST(SpawnTest, TheChildCreatesFilesWithTheUmaskItWasGiven) {
  absl::StatusOr<std::unique_ptr<ChildReaper>> reaper = ChildReaper::Create();
  ASSERT_TRUE(reaper.ok());
  const std::string dir = MakeTempDir();
  SpawnRequest req;
  req.argv = {"/bin/sh", "-c", "umask; : > made"};
  req.env = {"PATH=/usr/bin:/bin"};
  req.work_dir = dir;
  req.stdin_path = "/dev/null";
  req.stdout_path = "out";
  req.stderr_path = "out";
  req.umask = 077;
  absl::StatusOr<int> status = SpawnAndWait(**reaper, req);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << *status;
  EXPECT_EQ(ReadFile(dir + "/out"), "0077\n");
  EXPECT_EQ(std::filesystem::status(dir + "/out").permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  EXPECT_EQ(std::filesystem::status(dir + "/made").permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);

  const mode_t agents = umask(022);
  umask(agents);
  req.umask.reset();
  req.stdout_path = "out2";
  req.stderr_path = "out2";
  status = SpawnAndWait(**reaper, req);
  ASSERT_TRUE(status.ok()) << status.status();
  char expected[8];
  std::snprintf(expected, sizeof(expected), "%04o\n", agents);
  EXPECT_EQ(ReadFile(dir + "/out2"), expected);
  std::filesystem::remove_all(dir);
}

// SLURM_TASK_PID is the task's own pid, written by the child itself, in place of one the
// environment brought (srun inside a batch script passes the script's on).
TEST(SpawnTest, TheChildPutsItsOwnPidInThePidVariable) {
  absl::StatusOr<std::unique_ptr<ChildReaper>> reaper = ChildReaper::Create();
  ASSERT_TRUE(reaper.ok());
  const std::string dir = MakeTempDir();
  SpawnRequest req;
  req.argv = {"/bin/sh", "-c", "echo $$ $SLURM_TASK_PID; env | grep -c '^SLURM_TASK_PID='"};
  req.env = {"SLURM_TASK_PID=1", "PATH=/usr/bin:/bin", "SLURM_TASK_PIDX=2"};
  req.pid_variable = "SLURM_TASK_PID";
  req.work_dir = dir;
  req.stdin_path = "/dev/null";
  req.stdout_path = "out";
  req.stderr_path = "out";
  absl::Notification exited;
  absl::StatusOr<pid_t> pid = Spawn(req, **reaper, [&](int) { exited.Notify(); });
  ASSERT_TRUE(pid.ok()) << pid.status();
  ASSERT_TRUE(exited.WaitForNotificationWithTimeout(absl::Seconds(20)));
  EXPECT_EQ(ReadFile(dir + "/out"), absl::StrCat(*pid, " ", *pid, "\n1\n"));
  EXPECT_EQ(req.env.front(), "SLURM_TASK_PID=1");  // the request is left as it was

  req.pid_variable.clear();  // none asked for: the environment's stays
  req.stdout_path = "out2";
  req.stderr_path = "out2";
  absl::StatusOr<int> status = SpawnAndWait(**reaper, req);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_TRUE(absl::EndsWith(ReadFile(dir + "/out2"), " 1\n1\n")) << ReadFile(dir + "/out2");
  std::filesystem::remove_all(dir);
}

// A child copies only the descriptors below the reaper's pidfds; one it is lent from above them
// (an agent with thousands of descriptors of its own) must still reach it.
TEST(SpawnTest, ADescriptorLentFromAboveThePidfdFloorStillReachesTheChild) {
  absl::StatusOr<std::unique_ptr<ChildReaper>> reaper = ChildReaper::Create();
  ASSERT_TRUE(reaper.ok());
  const int floor = (*reaper)->pidfd_floor();
  if (floor == 0) {
    GTEST_SKIP() << "RLIMIT_NOFILE leaves no room for a floor";
  }
  int fds[2];
  ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0);
  const int high_write = fcntl(fds[1], F_DUPFD_CLOEXEC, floor + 10);
  ASSERT_GE(high_write, floor + 10);
  close(fds[1]);
  SpawnRequest req;
  req.argv = {"/bin/sh", "-c", "echo reached"};
  req.env = {"PATH=/usr/bin:/bin"};
  req.work_dir = "/";
  req.stdin_path = "/dev/null";
  req.stdout_fd = high_write;
  req.stderr_path = "/dev/null";
  absl::StatusOr<int> status = SpawnAndWait(**reaper, req);
  close(high_write);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_TRUE(WIFEXITED(*status) && WEXITSTATUS(*status) == 0) << *status;
  char buffer[64];
  const ssize_t n = read(fds[0], buffer, sizeof(buffer));
  close(fds[0]);
  EXPECT_EQ(std::string(buffer, n > 0 ? static_cast<size_t>(n) : 0), "reached\n");

  // The same for a cgroup.procs descriptor (here a plain file the child writes its "0" into).
  const std::string dir = MakeTempDir();
  const int low = open((dir + "/procs").c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  ASSERT_GE(low, 0);
  const int high_procs = fcntl(low, F_DUPFD_CLOEXEC, floor + 20);
  close(low);
  ASSERT_GE(high_procs, floor + 20);
  SpawnRequest joins;
  joins.argv = {"/bin/true"};
  joins.work_dir = "/";
  joins.stdin_path = joins.stdout_path = joins.stderr_path = "/dev/null";
  joins.cgroup_procs_fds = {high_procs};
  status = SpawnAndWait(**reaper, joins);
  close(high_procs);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(ReadFile(dir + "/procs"), "0");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace canopy::agent::runtime
