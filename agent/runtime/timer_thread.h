// TimerThread: runs closures at given times on one thread of its own, so the runtime can escalate
// SIGTERM to SIGKILL, poll for a job's last process and destroy finished steps without blocking
// the controller stream's callbacks. The thread starts with the first task: an agent hosting
// thousands of virtual nodes has none for the nodes that never ran a job. Tasks still pending at
// destruction are dropped (destroyed without running). An idle thread sleeps until a task comes
// (no periodic wake-up), and ends once idle for `idle_exit`; the next task starts another. An
// agent's thousands of virtual nodes each have up to nine (JobRuntime's timer and start lanes), so
// only the nodes busy now hold threads. Thread-safe; tasks run one at a time.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <thread>

#include "absl/functional/any_invocable.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace canopy::agent::runtime {

class TimerThread {
 public:
  explicit TimerThread(absl::Duration idle_exit = absl::Seconds(30));
  ~TimerThread();
  TimerThread(const TimerThread&) = delete;
  TimerThread& operator=(const TimerThread&) = delete;

  // Runs `task` at `when` (at once if it has passed). Tasks due at the same time run in the
  // order they were scheduled. After Stop(), tasks never run (destroyed with the TimerThread).
  void Schedule(absl::Time when, absl::AnyInvocable<void()> task);
  // Names the thread (and every later one) for `top -H`, `ps -L` and perf; at most 15 characters
  // are kept.
  void SetThreadName(std::string name);
  // Waits for the task running now, ends the thread and drops the tasks still pending.
  // Idempotent; the destructor calls it.
  void Stop();

 private:
  void Run();

  const absl::Duration idle_exit_;
  absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::string thread_name_ ABSL_GUARDED_BY(mu_);
  uint64_t scheduled_ ABSL_GUARDED_BY(mu_) = 0;  // tasks ever scheduled
  std::multimap<absl::Time, absl::AnyInvocable<void()>> tasks_ ABSL_GUARDED_BY(mu_);
  std::thread thread_ ABSL_GUARDED_BY(mu_);  // started by the first Schedule() after none ran
  std::thread ended_ ABSL_GUARDED_BY(mu_);   // one that ended idle, for another thread to join
};

}  // namespace canopy::agent::runtime
