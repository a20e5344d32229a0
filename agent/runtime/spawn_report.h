// How a child that could not get as far as running the task tells Spawn why: one SpawnFailure
// written to the report pipe (close-on-exec, so a successful exec closes it and Spawn reads
// EOF), or, by a child that shares the agent's memory until its exec, stored there. The SPANK
// task helper (plugins/spank) writes the same record through descriptor 3, and for kSpank
// follows it with the message. Shared by the two sides; plain data.
#pragma once

#include <fcntl.h>
#include <unistd.h>

namespace canopy::agent::runtime {

enum class SpawnStage : int {
  kCgroup = 1,
  kSetsid,
  kStdio,
  kChdir,
  kSetgroups,
  kSetgid,
  kSetuid,
  kExec,
  kOpenInput,
  kOpenOutput,
  kOpenError,
  kSpank,  // the site's SPANK plugin stack could not be loaded (message follows)
};

struct SpawnFailure {
  SpawnStage stage;
  int error;  // errno
};

// The descriptors a SpawnRequest::wrapper finds open: the report pipe and the agent's log.
inline constexpr int kWrapperReportFd = 3;
inline constexpr int kWrapperLogFd = 4;
// The task's environment, "K=V" entries each ended by a NUL (a memfd, read from offset 0). The
// wrapper itself runs, as root, with only a fixed PATH: nothing of the user's environment
// (LD_PRELOAD, LD_LIBRARY_PATH, GLIBC_TUNABLES) reaches the dynamic loader of a root process.
inline constexpr int kWrapperEnvFd = 5;
// SpawnRequest::wrapper_fds from here on: the exits pipe and the other tasks' stdio of a step's
// supervisor (spank_wrapper.h).
inline constexpr int kWrapperFirstExtraFd = 6;
// The only environment the wrapper process gets.
inline constexpr char kWrapperPath[] = "PATH=/usr/sbin:/usr/bin:/sbin:/bin";

// In the child (or the wrapper, as the user): opens `path` and puts it on `target` (blocking
// mode, not close-on-exec). O_NONBLOCK while opening, so a FIFO without a peer cannot hold the
// launch up. Async-signal-safe. False with errno set on failure.
inline bool OpenOnto(const char* path, int flags, int target) {
  const int fd = open(path, flags | O_NONBLOCK | O_CLOEXEC, 0644);
  if (fd < 0) {
    return false;
  }
  const int fl = fcntl(fd, F_GETFL);
  if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
    return false;
  }
  if (fd == target) {
    return fcntl(fd, F_SETFD, 0) == 0;
  }
  if (dup2(fd, target) < 0) {
    return false;
  }
  close(fd);
  return true;
}

}  // namespace canopy::agent::runtime
