// RuntimeInbox: applies one node's controller messages to its JobRuntime in the order they came,
// without holding up the stream's reader.
//
// All the nodes an agent hosts share one connection, whose reads gRPC hands to a couple of
// callback threads. A launch applied there (it creates the job's cgroup and spool, writes the
// script, and forks the batch script, waiting for its exec) held up every other node's messages
// behind it, kills and acknowledgements included: at 800 trivial jobs/s the agent's socket kept
// 300 KB unread and a job waited half a second, finished, for its KillJob (docs/performance.md,
// "Trivial jobs end to end"). So a message that may block goes to the inbox's own thread
// (started with the first such message: nodes that never run a job have none), and one that
// cannot runs at once on the caller's thread, unless earlier messages are still waiting or
// running: a node's messages keep their order either way. Launches of jobs (which create the
// job's cgroup and spool file, and may load the user's login environment) and of steps (either
// may start the node's prolog) may block. Notifications, kills, signals, acknowledgements and
// attaches do not. None waits for a child that enters the user's files, which a hung mount can
// hold before its exec for as long as it hangs: the runtime starts batch scripts and notices'
// children on the node's start lanes, a step's tasks on the step's own thread.
//
// Thread-safe.
#pragma once

#include <deque>
#include <string>
#include <thread>

#include "absl/functional/any_invocable.h"
#include "absl/synchronization/mutex.h"

namespace canopy::agent {

class RuntimeInbox {
 public:
  RuntimeInbox() = default;
  ~RuntimeInbox();  // Stop()
  RuntimeInbox(const RuntimeInbox&) = delete;
  RuntimeInbox& operator=(const RuntimeInbox&) = delete;

  // Runs `task` after every task posted before it. `may_block`: on the inbox's thread; otherwise
  // on this thread, now, when nothing posted earlier is waiting or running. After Stop(), tasks
  // are dropped.
  void Post(absl::AnyInvocable<void()> task, bool may_block);
  // Names the inbox's thread for `top -H`, `ps -L` and perf; at most 15 characters are kept.
  void SetThreadName(std::string name);
  // True when no task runs or waits.
  bool Idle();
  // Waits until no task runs or waits (or Stop() is called).
  void WaitIdle();
  // Waits for the task running now, drops those still waiting, and ends the thread.
  void Stop();

 private:
  void Run();

  absl::Mutex mu_;
  std::string thread_name_ ABSL_GUARDED_BY(mu_);
  std::deque<absl::AnyInvocable<void()>> waiting_ ABSL_GUARDED_BY(mu_);
  bool running_ ABSL_GUARDED_BY(mu_) = false;  // a task runs, here or on a caller's thread
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_ ABSL_GUARDED_BY(mu_);  // started by the first task that waits
};

}  // namespace canopy::agent
