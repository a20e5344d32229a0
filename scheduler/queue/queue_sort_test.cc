// Tests for the pending-queue order.
#include "scheduler/queue/queue_sort.h"

#include <algorithm>
#include <vector>

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

// Slurm's order: PriorityTier first, then priority, then submit time, then id.
TEST(PrioritySortTest, TierThenPriorityThenSubmitThenId) {
  core::Job low = J(1, 100), high = J(2, 300), tied_early = J(4, 150), tied_late = J(3, 200),
            tier = J(5, 400);
  low.priority = 10;
  high.priority = 900;
  tied_early.priority = tied_late.priority = 500;
  tier.priority = 1;
  for (core::Job* j : {&low, &high, &tied_early, &tied_late}) {
    j->partition = "batch";
  }
  tier.partition = "urgent";
  auto sort = MakeQueueSort("queue/priority", {{"batch", 1}, {"urgent", 5}});
  ASSERT_TRUE(sort.ok());
  std::vector<const core::Job*> v = {&low, &high, &tied_early, &tied_late, &tier};
  (*sort)->Sort(v, absl::UnixEpoch());
  std::vector<uint32_t> ids;
  for (const core::Job* j : v) {
    ids.push_back(j->id.value());
  }
  EXPECT_EQ(ids, (std::vector<uint32_t>{5, 2, 4, 3, 1}));
  // Before() agrees with Sort().
  for (size_t i = 0; i + 1 < v.size(); ++i) {
    EXPECT_TRUE((*sort)->Before(*v[i], *v[i + 1], absl::UnixEpoch()));
    EXPECT_FALSE((*sort)->Before(*v[i + 1], *v[i], absl::UnixEpoch()));
  }
  // Without tiers, the urgent partition's job is just the lowest priority.
  auto flat = MakeQueueSort("priority");
  ASSERT_TRUE(flat.ok());
  (*flat)->Sort(v, absl::UnixEpoch());
  EXPECT_EQ(v.back()->id, core::JobId(5));
}

// SortTop keeps exactly the first k of Sort's order, for both sorts.
TEST(QueueSortTest, SortTopIsThePrefixOfSort) {
  std::vector<core::Job> jobs;
  for (uint32_t i = 1; i <= 50; ++i) {
    core::Job j = J(i, static_cast<int64_t>((i * 37) % 11));
    j.priority = (i * 13) % 7;
    j.partition = "p";
    jobs.push_back(j);
  }
  for (const char* name : {"queue/age", "queue/priority"}) {
    auto sort = MakeQueueSort(name);
    ASSERT_TRUE(sort.ok());
    std::vector<const core::Job*> all, top;
    for (const core::Job& j : jobs) {
      all.push_back(&j);
    }
    top = all;
    (*sort)->Sort(all, absl::UnixEpoch());
    (*sort)->SortTop(top, 10, absl::UnixEpoch());
    ASSERT_EQ(top.size(), 10u) << name;
    EXPECT_TRUE(std::equal(top.begin(), top.end(), all.begin())) << name;
  }
}

TEST(AgeSortTest, UnknownName) {
  auto s = MakeQueueSort("queue/nope");
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.status().message().find("queue/age"), absl::string_view::npos);
}

}  // namespace
}  // namespace canopy::queue
