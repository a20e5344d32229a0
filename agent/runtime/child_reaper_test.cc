// ChildReaper: every watched child's exit is reported once with its status, also for a child
// that exited before it was watched and with hundreds in flight; orphans left to the agent as
// subreaper are reaped.
#include "agent/runtime/child_reaper.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace canopy::agent::runtime {
namespace {

// Exit statuses by pid, as the reaper reports them.
class Exits {
 public:
  ChildReaper::ExitCallback For(pid_t pid) {
    return [this, pid](int status) {
      absl::MutexLock lock(&mu_);
      ++calls_[pid];
      status_[pid] = status;
    };
  }
  bool WaitForCount(size_t n) {
    absl::MutexLock lock(&mu_);
    auto done = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return calls_.size() >= n; };
    return mu_.AwaitWithTimeout(absl::Condition(&done), absl::Seconds(30));
  }
  std::map<pid_t, int> calls() {
    absl::MutexLock lock(&mu_);
    return calls_;
  }
  std::map<pid_t, int> statuses() {
    absl::MutexLock lock(&mu_);
    return status_;
  }

 private:
  absl::Mutex mu_;
  std::map<pid_t, int> calls_ ABSL_GUARDED_BY(mu_);
  std::map<pid_t, int> status_ ABSL_GUARDED_BY(mu_);
};

// A child that exits with `code` after `delay`.
pid_t Child(int code, absl::Duration delay = absl::ZeroDuration()) {
  const pid_t pid = fork();
  if (pid == 0) {
    if (delay > absl::ZeroDuration()) {
      usleep(static_cast<useconds_t>(absl::ToInt64Microseconds(delay)));
    }
    _exit(code);
  }
  return pid;
}

TEST(ChildReaperTest, EachWatchedChildIsReportedOnceWithItsStatus) {
  absl::StatusOr<std::unique_ptr<ChildReaper>> reaper = ChildReaper::Create();
  ASSERT_TRUE(reaper.ok()) << reaper.status();
  Exits exits;
  pid_t early, late, killed;
  {
    // As the agent's spawns do: no orphan sweep between a fork and its Watch.
    ChildReaper::SpawnGuard guard(reaper->get());
    early = Child(3);
    absl::SleepFor(absl::Milliseconds(50));  // a zombie before it is watched
    ASSERT_TRUE((*reaper)->Watch(early, exits.For(early)).ok());
    late = Child(4, absl::Milliseconds(100));
    ASSERT_TRUE((*reaper)->Watch(late, exits.For(late)).ok());
    killed = fork();
    if (killed == 0) {
      pause();
      _exit(0);
    }
    ASSERT_TRUE((*reaper)->Watch(killed, exits.For(killed)).ok());
  }
  kill(killed, SIGKILL);
  ASSERT_TRUE(exits.WaitForCount(3));
  absl::SleepFor(absl::Milliseconds(100));  // time for a second report, which must not come
  const std::map<pid_t, int> statuses = exits.statuses();
  EXPECT_EQ(WEXITSTATUS(statuses.at(early)), 3);
  EXPECT_EQ(WEXITSTATUS(statuses.at(late)), 4);
  EXPECT_TRUE(WIFSIGNALED(statuses.at(killed)));
  for (const auto& [pid, calls] : exits.calls()) {
    EXPECT_EQ(calls, 1) << "pid " << pid;
  }
}

TEST(ChildReaperTest, HundredsOfChildrenInFlightAreEachReportedOnce) {
  absl::StatusOr<std::unique_ptr<ChildReaper>> reaper = ChildReaper::Create();
  ASSERT_TRUE(reaper.ok()) << reaper.status();
  Exits exits;
  std::map<pid_t, int> codes;
  constexpr int kChildren = 400;
  for (int i = 0; i < kChildren; ++i) {
    const int code = i % 100;
    ChildReaper::SpawnGuard guard(reaper->get());  // no orphan sweep between fork and Watch
    // Some exit at once, some while later ones are still being watched.
    const pid_t pid = Child(code, absl::Milliseconds(i % 3 == 0 ? 0 : 200));
    ASSERT_GT(pid, 0);
    codes[pid] = code;
    ASSERT_TRUE((*reaper)->Watch(pid, exits.For(pid)).ok());
  }
  ASSERT_TRUE(exits.WaitForCount(kChildren));
  const std::map<pid_t, int> statuses = exits.statuses();
  ASSERT_EQ(statuses.size(), codes.size());
  for (const auto& [pid, code] : codes) {
    ASSERT_TRUE(WIFEXITED(statuses.at(pid)));
    EXPECT_EQ(WEXITSTATUS(statuses.at(pid)), code);
    EXPECT_EQ(exits.calls().at(pid), 1);
  }
}

// The pidfds sit at pidfd_floor() and up, where Spawn's children leave them out of their copy of
// the descriptor table.
TEST(ChildReaperTest, PidfdsLiveAtOrAboveTheFloor) {
  absl::StatusOr<std::unique_ptr<ChildReaper>> reaper = ChildReaper::Create();
  ASSERT_TRUE(reaper.ok()) << reaper.status();
  const int floor = (*reaper)->pidfd_floor();
  if (floor == 0) {
    GTEST_SKIP() << "RLIMIT_NOFILE leaves no room above the agent's descriptors";
  }
  EXPECT_LE(floor, 4096);
  Exits exits;
  std::vector<pid_t> children;
  constexpr int kChildren = 20;
  for (int i = 0; i < kChildren; ++i) {
    ChildReaper::SpawnGuard guard(reaper->get());
    const pid_t pid = fork();
    if (pid == 0) {
      pause();
      _exit(0);
    }
    ASSERT_GT(pid, 0);
    children.push_back(pid);
    ASSERT_TRUE((*reaper)->Watch(pid, exits.For(pid)).ok());
  }
  int low = 0;
  int high = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    const std::string target = std::filesystem::read_symlink(entry.path(), ec).string();
    if (target == "anon_inode:[pidfd]") {
      ++(std::stoi(entry.path().filename().string()) < floor ? low : high);
    }
  }
  EXPECT_EQ(low, 0);
  EXPECT_EQ(high, kChildren);
  for (pid_t pid : children) {
    kill(pid, SIGKILL);
  }
  ASSERT_TRUE(exits.WaitForCount(kChildren));
}

TEST(ChildReaperTest, AnOrphanLeftToTheAgentIsReaped) {
  absl::StatusOr<std::unique_ptr<ChildReaper>> reaper = ChildReaper::Create();
  ASSERT_TRUE(reaper.ok()) << reaper.status();
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  std::optional<ChildReaper::SpawnGuard> guard(std::in_place, reaper->get());
  const pid_t parent = fork();
  if (parent == 0) {
    const pid_t orphan = fork();
    if (orphan == 0) {
      usleep(100 * 1000);  // outlives its parent: re-parented to this process (the subreaper)
      _exit(0);
    }
    (void)!write(pipe_fds[1], &orphan, sizeof(orphan));
    _exit(0);
  }
  close(pipe_fds[1]);
  pid_t orphan = 0;
  ASSERT_EQ(read(pipe_fds[0], &orphan, sizeof(orphan)), static_cast<ssize_t>(sizeof(orphan)));
  close(pipe_fds[0]);
  Exits exits;
  ASSERT_TRUE((*reaper)->Watch(parent, exits.For(parent)).ok());
  guard.reset();  // the orphan, unwatched, is the sweep's from now on
  ASSERT_TRUE(exits.WaitForCount(1));
  // Gone means reaped: no zombie left for kill(pid, 0) to find.
  const absl::Time deadline = absl::Now() + absl::Seconds(5);
  while (kill(orphan, 0) == 0 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_NE(kill(orphan, 0), 0) << "orphan " << orphan << " was not reaped";
}

}  // namespace
}  // namespace canopy::agent::runtime
