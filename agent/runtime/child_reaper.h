// ChildReaper: the agent's one reaper of the processes it starts. A thread waits on an epoll set
// holding a pidfd per watched child (so it never reaps a child someone else waits for, unlike
// waitpid(-1)) and calls the child's callback with its wait status. Each exit costs the same
// however many children run: a poll() over every pidfd, rebuilt at every exit and every new
// child, cost the agent O(running jobs) per event, and at 900 jobs in flight the reaper fell
// behind the exits it was there to report (docs/performance.md).
//
// The reaper also makes the process a child subreaper (PR_SET_CHILD_SUBREAPER): whatever a job
// forks and orphans is re-parented to the agent instead of to an init that may never reap it,
// and the reaper reaps such unwatched orphans, so no zombie lingers looking alive.
//
// The pidfds live at high descriptor numbers (pidfd_floor() and up), apart from the agent's other
// descriptors, so that a child Spawn starts copies only the descriptors below them (spawn.cc):
// copying a pidfd per running job into every child, for its exec to close again, cost each
// launch about 80 us at 1,000 jobs in flight (docs/performance.md).
//
// One per process (the subreaper flag is process-wide); shared by every node's JobRuntime.
// Thread-safe. Callbacks run on the reaper thread, one at a time, and must not block for long.
#pragma once

#include <sys/types.h>

#include <map>
#include <memory>
#include <thread>

#include "absl/functional/any_invocable.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/os/unique_fd.h"

namespace canopy::agent::runtime {

class ChildReaper {
 public:
  using ExitCallback = absl::AnyInvocable<void(int wait_status)>;

  // Internal when the wake-up eventfd cannot be created.
  static absl::StatusOr<std::unique_ptr<ChildReaper>> Create();
  // Stops the thread; children still watched are not waited for (their callbacks never run).
  ~ChildReaper();
  ChildReaper(const ChildReaper&) = delete;
  ChildReaper& operator=(const ChildReaper&) = delete;

  // Holds off the reaping of orphans while alive. Take one before fork() and keep it until the
  // child is watched (or reaped by the caller): otherwise a child that exits at once could be
  // reaped as an orphan before Watch() sees it.
  class SpawnGuard {
   public:
    explicit SpawnGuard(ChildReaper* reaper);
    ~SpawnGuard();
    SpawnGuard(const SpawnGuard&) = delete;
    SpawnGuard& operator=(const SpawnGuard&) = delete;

   private:
    ChildReaper* const reaper_;
  };

  // Calls `on_exit` once `pid` (a child of this process, not yet reaped) has exited and been
  // reaped. Internal if no pidfd can be opened for it (then nothing is called).
  absl::Status Watch(pid_t pid, ExitCallback on_exit);

  // The lowest descriptor number a pidfd of Watch() takes (min(4096, half the soft
  // RLIMIT_NOFILE)); 0 when the limit leaves no room for one (under 512), and pidfds then take
  // the lowest free numbers. One that finds no free number from here up does the same.
  int pidfd_floor() const { return pidfd_floor_; }

 private:
  ChildReaper(os::UniqueFd epoll, os::UniqueFd wake, int pidfd_floor);
  void Run();
  // Reaps the exited children nobody watches; false if put off (a spawn is in progress).
  bool ReapOrphans();
  // Reaps `pid`, whose pidfd is readable, and calls its callback.
  void Reap(pid_t pid);

  struct Watched {
    os::UniqueFd pidfd;
    ExitCallback on_exit;
  };

  const os::UniqueFd epoll_;  // the watched children's pidfds, and wake_
  const os::UniqueFd wake_;   // eventfd: stop
  const int pidfd_floor_;
  std::thread thread_;
  absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  int spawns_in_progress_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<pid_t, Watched> watched_ ABSL_GUARDED_BY(mu_);
};

}  // namespace canopy::agent::runtime
