// Tests for the pending-queue order.
#include "scheduler/queue/queue_sort.h"

#include "gtest/gtest.h"

namespace canopy::queue {
namespace {

core::Job J(uint32_t id, int64_t submit_s) {
  core::Job j;
  j.id = core::JobId(id);
  j.submit_time = absl::FromUnixSeconds(submit_s);
  return j;
}

TEST(AgeSortTest, SubmitTimeThenJobId) {
  core::Job a = J(5, 100), b = J(2, 100), c = J(9, 50), d = J(1, 200);
  std::vector<const core::Job*> v = {&a, &b, &c, &d};
  auto sort = MakeQueueSort("queue/age");
  ASSERT_TRUE(sort.ok());
  (*sort)->Sort(v, absl::FromUnixSeconds(300));
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0]->id, core::JobId(9));
  EXPECT_EQ(v[1]->id, core::JobId(2));
  EXPECT_EQ(v[2]->id, core::JobId(5));
  EXPECT_EQ(v[3]->id, core::JobId(1));
}

TEST(AgeSortTest, OrderIndependentOfInput) {
  core::Job a = J(5, 100), b = J(2, 100), c = J(9, 50);
  std::vector<const core::Job*> v1 = {&a, &b, &c};
  std::vector<const core::Job*> v2 = {&c, &b, &a};
  AgeSort s;
  s.Sort(v1, absl::UnixEpoch());
  s.Sort(v2, absl::UnixEpoch());
  EXPECT_EQ(v1, v2);
}

TEST(AgeSortTest, UnknownName) {
  auto s = MakeQueueSort("queue/nope");
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.status().message().find("queue/age"), absl::string_view::npos);
}

}  // namespace
}  // namespace canopy::queue
