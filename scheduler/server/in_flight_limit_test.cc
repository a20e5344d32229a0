#include "scheduler/server/in_flight_limit.h"

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace canopy::server {
namespace {

TEST(InFlightLimitTest, TokensCountCallsInUntilTheirLastCopyGoes) {
  InFlightLimit limit(2);
  std::shared_ptr<const void> a = limit.TryTake();
  std::shared_ptr<const void> b = limit.TryTake();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(limit.TryTake(), nullptr);  // at the limit
  EXPECT_EQ(limit.in_flight(), 2);
  std::shared_ptr<const void> copy = a;
  a.reset();
  EXPECT_EQ(limit.TryTake(), nullptr);  // a copy still holds it
  copy.reset();
  EXPECT_EQ(limit.in_flight(), 1);
  std::shared_ptr<const void> c = limit.TryTake();
  EXPECT_NE(c, nullptr);
  limit.set_max(3);
  EXPECT_NE(limit.TryTake(), nullptr);  // taken and at once released
  EXPECT_EQ(limit.in_flight(), 2);
}

TEST(InFlightLimitTest, ManyThreadsNeverHoldMoreThanTheMaximum) {
  InFlightLimit limit(4);
  std::atomic<int> most{0};
  std::atomic<int> holders{0};  // counted by the test itself, not by the limit
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) {
        if (std::shared_ptr<const void> token = limit.TryTake()) {
          int seen = holders.fetch_add(1) + 1;
          EXPECT_LE(limit.in_flight(), 4);  // refused calls are never counted, even for a moment
          int prev = most.load();
          while (seen > prev && !most.compare_exchange_weak(prev, seen)) {
          }
          holders.fetch_sub(1);
        }
      }
    });
  }
  for (std::thread& t : threads) {
    t.join();
  }
  EXPECT_LE(most.load(), 4);
  EXPECT_GE(most.load(), 1);  // tokens were taken at all
  EXPECT_EQ(limit.in_flight(), 0);
}

}  // namespace
}  // namespace canopy::server
