#include "ctl/output/number_ranges.h"

#include "gtest/gtest.h"

namespace canopy::ctl::output {
namespace {

TEST(NumberRangesTest, RunsAreJoinedInAscendingOrder) {
  EXPECT_EQ(NumberRanges({}), "");
  EXPECT_EQ(NumberRanges({5}), "5");
  EXPECT_EQ(NumberRanges({6, 0, 1, 2, 3}), "0-3,6");
  EXPECT_EQ(NumberRanges({1, 3, 5, 6}), "1,3,5-6");
  EXPECT_EQ(NumberRangesOfList("0,1,2,3,4,5,6,7"), "0-7");
  EXPECT_EQ(NumberRangesOfList("5,0,1"), "0-1,5");
  EXPECT_EQ(NumberRangesOfList(",x,2,"), "2");
}

}  // namespace
}  // namespace canopy::ctl::output
