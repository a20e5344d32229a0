// RuntimeInbox: a node's messages keep their order, a launch never holds up the caller (the
// stream's reader), cheap messages run at once when nothing waits, and Stop drops what waits.
#include "agent/server/runtime_inbox.h"

#include <pthread.h>

#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::agent {
namespace {

using ::testing::ElementsAre;

// What the tasks did, in order.
class Log {
 public:
  void Add(std::string what) {
    absl::MutexLock lock(&mu_);
    entries_.push_back(std::move(what));
  }
  std::vector<std::string> entries() {
    absl::MutexLock lock(&mu_);
    return entries_;
  }
  bool WaitForSize(size_t n) {
    absl::MutexLock lock(&mu_);
    auto done = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return entries_.size() >= n; };
    return mu_.AwaitWithTimeout(absl::Condition(&done), absl::Seconds(10));
  }

 private:
  absl::Mutex mu_;
  std::vector<std::string> entries_ ABSL_GUARDED_BY(mu_);
};

TEST(RuntimeInboxTest, TheInboxThreadRunsUnderTheNameGiven) {
  RuntimeInbox inbox;
  inbox.SetThreadName("inbox gpu001");
  Log log;
  inbox.Post(
      [&] {
        char buffer[16] = {};
        pthread_getname_np(pthread_self(), buffer, sizeof(buffer));
        log.Add(buffer);
      },
      /*may_block=*/true);
  ASSERT_TRUE(log.WaitForSize(1));
  EXPECT_THAT(log.entries(), ElementsAre("inbox gpu001"));
}

TEST(RuntimeInboxTest, ABlockingTaskDoesNotHoldUpThePosterAndLaterTasksWaitForIt) {
  RuntimeInbox inbox;
  Log log;
  absl::Notification release;
  inbox.Post(
      [&] {
        release.WaitForNotification();
        log.Add("launch");
      },
      /*may_block=*/true);
  // The launch is still running: these must neither run now nor make Post wait.
  inbox.Post([&] { log.Add("kill"); }, /*may_block=*/false);
  inbox.Post([&] { log.Add("ack"); }, /*may_block=*/false);
  EXPECT_TRUE(log.entries().empty());
  release.Notify();
  ASSERT_TRUE(log.WaitForSize(3));
  EXPECT_THAT(log.entries(), ElementsAre("launch", "kill", "ack"));
}

TEST(RuntimeInboxTest, ACheapTaskRunsAtOnceOnThePostersThreadWhenNothingWaits) {
  RuntimeInbox inbox;
  std::thread::id ran_on;
  inbox.Post([&] { ran_on = std::this_thread::get_id(); }, /*may_block=*/false);
  EXPECT_EQ(ran_on, std::this_thread::get_id());  // already run: Post returned after it
}

TEST(RuntimeInboxTest, ManyTasksFromOnePosterKeepTheirOrder) {
  RuntimeInbox inbox;
  Log log;
  for (int i = 0; i < 200; ++i) {
    inbox.Post([&log, i] { log.Add(std::to_string(i)); }, /*may_block=*/i % 7 == 0);
  }
  inbox.WaitIdle();
  const std::vector<std::string> entries = log.entries();
  ASSERT_EQ(entries.size(), 200u);
  for (int i = 0; i < 200; ++i) {
    EXPECT_EQ(entries[i], std::to_string(i));
  }
}

TEST(RuntimeInboxTest, StopFinishesTheRunningTaskAndDropsTheWaitingOnesAndLaterPosts) {
  RuntimeInbox inbox;
  Log log;
  absl::Notification started;
  absl::Notification release;
  inbox.Post(
      [&] {
        started.Notify();
        release.WaitForNotification();
        log.Add("running");
      },
      /*may_block=*/true);
  inbox.Post([&] { log.Add("waiting"); }, /*may_block=*/true);
  started.WaitForNotification();
  std::thread stopper([&] { inbox.Stop(); });
  absl::SleepFor(absl::Milliseconds(50));
  release.Notify();
  stopper.join();
  inbox.Post([&] { log.Add("after stop"); }, /*may_block=*/false);
  EXPECT_THAT(log.entries(), ElementsAre("running"));
}

}  // namespace
}  // namespace canopy::agent
