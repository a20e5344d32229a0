#include "common/slurm/array_spec.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::slurm {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ArraySpecTest, ParsesRangesStepsListsAndThrottle) {
  absl::StatusOr<ArraySpec> a = ParseArraySpec("0-6:2,9,3%4");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_THAT(a->task_ids, ElementsAre(0, 2, 3, 4, 6, 9));
  EXPECT_EQ(a->max_running, 4);
  for (const char* bad : {"", "5-1", "1-x", "1:0", "1%0", "a"}) {
    EXPECT_FALSE(ParseArraySpec(bad).ok()) << bad;
  }
  absl::Status too_many = ParseArraySpec("0-5000").status();
  EXPECT_EQ(too_many.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(too_many.message(), HasSubstr("Invalid job array specification"));
}

// MaxArraySize bounds the task ids (Slurm: last >= max is invalid), not the count of tasks, and
// is checked before a range is expanded.
TEST(ArraySpecTest, TaskIdsMustBeBelowMaxArraySize) {
  EXPECT_TRUE(ParseArraySpec("0-1000").ok());
  EXPECT_TRUE(ParseArraySpec("1000").ok());
  absl::Status over = ParseArraySpec("1001").status();
  EXPECT_THAT(over.message(), HasSubstr("task id 1001 is not below MaxArraySize (1001)"));
  EXPECT_FALSE(ParseArraySpec("0-4294967295:1000000").ok());
  EXPECT_TRUE(ParseArraySpec("0-20000:1000", 20001).ok());
  EXPECT_FALSE(ParseArraySpec("5-10", 8).ok());
  EXPECT_FALSE(ParseArraySpec("0", 0).ok());  // MaxArraySize=0: arrays are off
}

}  // namespace
}  // namespace canopy::slurm
