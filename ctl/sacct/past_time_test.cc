#include "ctl/sacct/past_time.h"

#include "absl/time/civil_time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::ctl::sacct {
namespace {

const absl::TimeZone kUtc = absl::UTCTimeZone();

absl::Time UtcTime(int y, int mo, int d, int h, int mi, int s) {
  return absl::FromCivil(absl::CivilSecond(y, mo, d, h, mi, s), kUtc);
}

// Mid-year, so that dates on both sides of "now" have no year given.
const absl::Time kNow = UtcTime(2026, 6, 15, 10, 30, 0);

absl::Time Past(const std::string& text) {
  absl::StatusOr<absl::Time> t = ParsePastTime(text, kNow, kUtc);
  EXPECT_TRUE(t.ok()) << text << ": " << t.status();
  return t.value_or(absl::InfinitePast());
}

TEST(PastTimeTest, TimesOfDayAreToday) {
  EXPECT_EQ(Past("08:00"), UtcTime(2026, 6, 15, 8, 0, 0));
  EXPECT_EQ(Past("23:15:10"), UtcTime(2026, 6, 15, 23, 15, 10));  // sbatch --begin: tomorrow
  EXPECT_EQ(Past("11:00 pm"), UtcTime(2026, 6, 15, 23, 0, 0));
  EXPECT_EQ(Past("midnight"), UtcTime(2026, 6, 15, 0, 0, 0));
  EXPECT_EQ(Past("teatime"), UtcTime(2026, 6, 15, 16, 0, 0));
}

TEST(PastTimeTest, DatesWithoutYearLookBack) {
  EXPECT_EQ(Past("06/01"), UtcTime(2026, 6, 1, 0, 0, 0));
  EXPECT_EQ(Past("06/20"), UtcTime(2026, 6, 20, 0, 0, 0));  // this month: this year
  EXPECT_EQ(Past("0301"), UtcTime(2026, 3, 1, 0, 0, 0));
  EXPECT_EQ(Past("09.01"), UtcTime(2025, 9, 1, 0, 0, 0));  // a later month: last year
  EXPECT_EQ(Past("12/24-18:00"), UtcTime(2025, 12, 24, 18, 0, 0));
}

TEST(PastTimeTest, EverythingElseAsBegin) {
  EXPECT_EQ(Past("2026-09-01"), UtcTime(2026, 9, 1, 0, 0, 0));
  EXPECT_EQ(Past("2025-01-02T03:04:05"), UtcTime(2025, 1, 2, 3, 4, 5));
  EXPECT_EQ(Past("09/01/27"), UtcTime(2027, 9, 1, 0, 0, 0));
  EXPECT_EQ(Past("010226"), UtcTime(2026, 1, 2, 0, 0, 0));
  EXPECT_EQ(Past("now"), kNow);
  EXPECT_EQ(Past("now-3days"), kNow - absl::Hours(72));
  EXPECT_EQ(Past("now+30minutes"), kNow + absl::Minutes(30));
  EXPECT_EQ(Past("today"), UtcTime(2026, 6, 15, 0, 0, 0));
  EXPECT_EQ(Past("tomorrow"), UtcTime(2026, 6, 16, 0, 0, 0));
  EXPECT_EQ(Past("uts1796269816"), absl::FromUnixSeconds(1796269816));
}

TEST(PastTimeTest, ErrorsAreParseTimesLine) {
  EXPECT_EQ(std::string(ParsePastTime("yesterday", kNow, kUtc).status().message()),
            "Invalid time specification (pos=0): yesterday");
  // (Slurm puts pos at the start of an out-of-range field; ParseBeginTime after it.)
  EXPECT_THAT(std::string(ParsePastTime("25:00", kNow, kUtc).status().message()),
              ::testing::MatchesRegex("Invalid time specification \\(pos=[0-9]+\\): 25:00"));
}

}  // namespace
}  // namespace canopy::ctl::sacct
