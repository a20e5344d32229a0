#include "agent/runtime/timer_thread.h"

#include <utility>

namespace canopy::agent::runtime {

TimerThread::TimerThread() = default;

TimerThread::~TimerThread() { Stop(); }

void TimerThread::Stop() {
  std::multimap<absl::Time, absl::AnyInvocable<void()>> dropped;
  std::thread thread;
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;  // no Schedule() starts the thread after this
    thread.swap(thread_);
  }
  if (thread.joinable()) {
    thread.join();
  }
  {
    absl::MutexLock lock(&mu_);
    dropped.swap(tasks_);
  }
  // `dropped` is destroyed here, outside the lock: a task's captures may own threads to join.
}

void TimerThread::Schedule(absl::Time when, absl::AnyInvocable<void()> task) {
  absl::MutexLock lock(&mu_);
  if (!thread_.joinable() && !stopping_) {
    thread_ = std::thread([this] { Run(); });
  }
  // Kept after Stop() too, never run, and destroyed with the TimerThread: a task's captures may
  // own the very thread scheduling it (a finished step's part), which must not destroy them.
  tasks_.emplace(when, std::move(task));
  ++scheduled_;  // wakes Run() to recompute its deadline
}

void TimerThread::Run() {
  while (true) {
    absl::AnyInvocable<void()> task;
    {
      absl::MutexLock lock(&mu_);
      const uint64_t seen = scheduled_;
      auto due = [this, seen]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stopping_ || scheduled_ != seen ||
               (!tasks_.empty() && tasks_.begin()->first <= absl::Now());
      };
      // Wake at the earliest deadline, or when a new task or Stop arrives (the condition is
      // re-evaluated whenever mu_ is released by a writer); idle, only for those.
      if (tasks_.empty()) {
        mu_.Await(absl::Condition(&due));
      } else {
        mu_.AwaitWithDeadline(absl::Condition(&due), tasks_.begin()->first);
      }
      if (stopping_) {
        return;
      }
      if (tasks_.empty() || tasks_.begin()->first > absl::Now()) {
        continue;
      }
      task = std::move(tasks_.begin()->second);
      tasks_.erase(tasks_.begin());
    }
    task();
  }
}

}  // namespace canopy::agent::runtime
