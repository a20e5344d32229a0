// Spawn: a program that another process holds open for writing (the agent's own batch script,
// inherited for a moment by a fork in another thread) still starts once that writer is gone,
// instead of failing the launch with "Text file busy".
#include "agent/runtime/spawn.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "absl/synchronization/notification.h"
#include "agent/runtime/child_reaper.h"
#include "gtest/gtest.h"

namespace canopy::agent::runtime {
namespace {

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
  absl::Notification exited;
  int status = -1;
  absl::StatusOr<pid_t> pid = Spawn(req, **reaper, [&](int s) {
    status = s;
    exited.Notify();
  });
  ASSERT_TRUE(pid.ok()) << pid.status();
  ASSERT_TRUE(exited.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 5);
  waitpid(writer, nullptr, 0);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace canopy::agent::runtime
