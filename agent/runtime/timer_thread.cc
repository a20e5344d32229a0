#include "agent/runtime/timer_thread.h"

#include <utility>

#include "common/os/thread_name.h"

namespace canopy::agent::runtime {

TimerThread::TimerThread(absl::Duration idle_exit) : idle_exit_(idle_exit) {}

TimerThread::~TimerThread() { Stop(); }

void TimerThread::Stop() {
  std::multimap<absl::Time, absl::AnyInvocable<void()>> dropped;
  std::thread thread;
  std::thread ended;
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;  // no Schedule() starts the thread after this
    thread.swap(thread_);
    ended.swap(ended_);
  }
  for (std::thread* t : {&thread, &ended}) {
    if (t->joinable()) {
      t->join();
    }
  }
  {
    absl::MutexLock lock(&mu_);
    dropped.swap(tasks_);
  }
  // `dropped` is destroyed here, outside the lock: a task's captures may own threads to join.
}

void TimerThread::SetThreadName(std::string name) {
  absl::MutexLock lock(&mu_);
  thread_name_ = std::move(name);
}

void TimerThread::Schedule(absl::Time when, absl::AnyInvocable<void()> task) {
  std::thread ended;
  {
    absl::MutexLock lock(&mu_);
    if (!thread_.joinable() && !stopping_) {
      ended.swap(ended_);  // it has left Run(): joined below, outside the lock
      thread_ = std::thread([this] { Run(); });
    }
    // Kept after Stop() too, never run, and destroyed with the TimerThread: a task's captures
    // may own the very thread scheduling it (a finished step's part), which must not destroy
    // them.
    tasks_.emplace(when, std::move(task));
    ++scheduled_;  // wakes Run() to recompute its deadline
  }
  if (ended.joinable()) {
    ended.join();
  }
}

void TimerThread::Run() {
  {
    absl::MutexLock lock(&mu_);
    if (!thread_name_.empty()) {
      os::NameThisThread(thread_name_);
    }
  }
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
      // re-evaluated whenever mu_ is released by a writer); idle, for those or idle_exit_.
      if (tasks_.empty()) {
        if (!mu_.AwaitWithTimeout(absl::Condition(&due), idle_exit_)) {
          // Idle that long (and not stopping, or `due` would hold): this thread ends, and the
          // next Schedule() starts another and joins this one.
          ended_ = std::move(thread_);
          return;
        }
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
