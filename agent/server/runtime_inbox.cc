#include "agent/server/runtime_inbox.h"

#include <utility>

#include "absl/cleanup/cleanup.h"
#include "common/os/thread_name.h"

namespace canopy::agent {

RuntimeInbox::~RuntimeInbox() { Stop(); }

void RuntimeInbox::Post(absl::AnyInvocable<void()> task, bool may_block) {
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) {
      return;
    }
    if (may_block || running_ || !waiting_.empty()) {
      waiting_.push_back(std::move(task));
      if (!thread_.joinable()) {
        thread_ = std::thread([this] { Run(); });
      }
      return;
    }
    running_ = true;
  }
  // running_ goes back to false however the task ends: a stuck flag would stop the node's inbox.
  absl::Cleanup done = [this] {
    absl::MutexLock lock(&mu_);
    running_ = false;  // the thread, if tasks came meanwhile, takes them from here
  };
  task();
}

bool RuntimeInbox::Idle() {
  absl::MutexLock lock(&mu_);
  return !running_ && waiting_.empty();
}

void RuntimeInbox::WaitIdle() {
  absl::MutexLock lock(&mu_);
  auto idle = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return stopping_ || (!running_ && waiting_.empty());
  };
  mu_.Await(absl::Condition(&idle));
}

void RuntimeInbox::Stop() {
  std::thread thread;
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    waiting_.clear();
    thread = std::move(thread_);
  }
  if (thread.joinable()) {
    thread.join();
  }
  // A task running on a caller's thread finishes on its own; wait for it too.
  absl::MutexLock lock(&mu_);
  mu_.Await(absl::Condition(
      +[](bool* running) { return !*running; }, &running_));
}

void RuntimeInbox::SetThreadName(std::string name) {
  absl::MutexLock lock(&mu_);
  thread_name_ = std::move(name);
}

void RuntimeInbox::Run() {
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
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stopping_ || (!running_ && !waiting_.empty());
      };
      mu_.Await(absl::Condition(&ready));
      if (stopping_) {
        return;
      }
      task = std::move(waiting_.front());
      waiting_.pop_front();
      running_ = true;
    }
    absl::Cleanup done = [this] {
      absl::MutexLock lock(&mu_);
      running_ = false;
    };
    task();
  }
}

}  // namespace canopy::agent
