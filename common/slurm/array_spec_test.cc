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

}  // namespace
}  // namespace canopy::slurm
