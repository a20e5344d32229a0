#include "agent/runtime/timer_thread.h"

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "agent/runtime/runtime_test_util.h"
#include "gtest/gtest.h"

namespace canopy::agent::runtime {
namespace {

// Whether the thread `tid` of this process still exists.
bool ThreadExists(pid_t tid) {
  return access(absl::StrCat("/proc/self/task/", tid).c_str(), F_OK) == 0;
}

TEST(TimerThreadTest, TasksRunInTimeOrderAndThoseDueTogetherInTheOrderScheduled) {
  TimerThread timer;
  std::vector<int> order;
  absl::Notification done;
  const absl::Time now = absl::Now();
  timer.Schedule(now + absl::Milliseconds(40), [&] {
    order.push_back(3);
    done.Notify();
  });
  timer.Schedule(now + absl::Milliseconds(20), [&] { order.push_back(1); });
  timer.Schedule(now + absl::Milliseconds(20), [&] { order.push_back(2); });
  ASSERT_TRUE(done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
}

// An admin's `top -H` tells the node's threads apart: each runs under the name given, cut to
// Linux's 15 characters.
TEST(TimerThreadTest, TheThreadRunsUnderTheNameGiven) {
  std::string name;
  absl::Notification done;
  TimerThread timer;  // last: destroyed (its thread ended) before what its task writes
  timer.SetThreadName("start gpu001-long-name");
  timer.Schedule(absl::Now(), [&] {
    char buffer[16] = {};
    pthread_getname_np(pthread_self(), buffer, sizeof(buffer));
    name = buffer;
    done.Notify();
  });
  ASSERT_TRUE(done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  EXPECT_EQ(name, "start gpu001-lo");
}

// A node that ran a job once does not hold a thread for good: an idle timer's thread ends, and
// the next task starts another. An agent hosting thousands of virtual nodes has two timers each.
TEST(TimerThreadTest, AnIdleThreadEndsAndTheNextTaskStartsAnother) {
  TimerThread timer(absl::Milliseconds(50));
  for (int round = 0; round < 3; ++round) {
    std::atomic<pid_t> ran_on{0};
    absl::Notification ran;
    timer.Schedule(absl::Now(), [&] {
      ran_on = gettid();
      ran.Notify();
    });
    ASSERT_TRUE(ran.WaitForNotificationWithTimeout(absl::Seconds(10))) << "round " << round;
    EXPECT_TRUE(testing::WaitFor([&] { return !ThreadExists(ran_on); }))
        << "the idle thread did not end (round " << round << ")";
  }
}

// Tasks scheduled after Stop() never run; they are destroyed with the timer, not by the thread
// that scheduled them (which their captures may own).
TEST(TimerThreadTest, TasksAfterStopNeverRun) {
  std::atomic<bool> ran{false};
  auto timer = std::make_unique<TimerThread>();
  timer->Schedule(absl::Now(), [] {});
  timer->Stop();
  auto owned = std::make_shared<int>(7);
  std::weak_ptr<int> watch = owned;
  timer->Schedule(absl::Now(), [&ran, owned = std::move(owned)] { ran = true; });
  absl::SleepFor(absl::Milliseconds(50));
  EXPECT_FALSE(ran);
  EXPECT_FALSE(watch.expired()) << "dropped by Schedule() on the caller's thread";
  timer.reset();
  EXPECT_TRUE(watch.expired());
}

}  // namespace
}  // namespace canopy::agent::runtime
