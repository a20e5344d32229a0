// Tests for ParseBeginTime: every form of Slurm 22.05's parse_time (sbatch --begin), with its
// rules for what "the next such time" means, at a fixed present moment in a fixed time zone.
#include "common/slurm/begin_time.h"

#include <string>

#include "absl/time/civil_time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::slurm {
namespace {

using ::testing::HasSubstr;

class BeginTimeTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(absl::LoadTimeZone("Europe/Berlin", &tz_)); }

  // Now is Wednesday 2026-06-10 14:30:20 in Berlin.
  absl::Time Now() const {
    return absl::FromCivil(absl::CivilSecond(2026, 6, 10, 14, 30, 20), tz_);
  }

  absl::CivilSecond Parse(absl::string_view text) const {
    absl::StatusOr<absl::Time> t = ParseBeginTime(text, Now(), tz_);
    EXPECT_TRUE(t.ok()) << text << ": " << t.status();
    return absl::ToCivilSecond(t.value_or(absl::UnixEpoch()), tz_);
  }

  absl::TimeZone tz_;
};

TEST_F(BeginTimeTest, TimeOfDayIsTheNextOne) {
  EXPECT_EQ(Parse("16:00"), absl::CivilSecond(2026, 6, 10, 16, 0, 0));
  EXPECT_EQ(Parse("16:00:30"), absl::CivilSecond(2026, 6, 10, 16, 0, 30));
  EXPECT_EQ(Parse("9:05"), absl::CivilSecond(2026, 6, 11, 9, 5, 0));  // passed: tomorrow
  // Slurm compares to the minute: 14:30 is not ahead of 14:30:20, 14:31 is.
  EXPECT_EQ(Parse("14:30"), absl::CivilSecond(2026, 6, 11, 14, 30, 0));
  EXPECT_EQ(Parse("14:31"), absl::CivilSecond(2026, 6, 10, 14, 31, 0));
  EXPECT_EQ(Parse("4:00 PM"), absl::CivilSecond(2026, 6, 10, 16, 0, 0));
  EXPECT_EQ(Parse("4:00pm"), absl::CivilSecond(2026, 6, 10, 16, 0, 0));
  EXPECT_EQ(Parse("12:00am"), absl::CivilSecond(2026, 6, 11, 0, 0, 0));
  EXPECT_EQ(Parse("12:15 PM"), absl::CivilSecond(2026, 6, 11, 12, 15, 0));
}

TEST_F(BeginTimeTest, NamedTimes) {
  EXPECT_EQ(Parse("midnight"), absl::CivilSecond(2026, 6, 11, 0, 0, 0));
  EXPECT_EQ(Parse("noon"), absl::CivilSecond(2026, 6, 11, 12, 0, 0));
  EXPECT_EQ(Parse("elevenses"), absl::CivilSecond(2026, 6, 11, 11, 0, 0));
  EXPECT_EQ(Parse("fika"), absl::CivilSecond(2026, 6, 10, 15, 0, 0));
  EXPECT_EQ(Parse("teatime"), absl::CivilSecond(2026, 6, 10, 16, 0, 0));
  EXPECT_EQ(Parse("today"), absl::CivilSecond(2026, 6, 10, 0, 0, 0));
  EXPECT_EQ(Parse("tomorrow"), absl::CivilSecond(2026, 6, 11, 0, 0, 0));
  EXPECT_EQ(Parse("Today"), absl::CivilSecond(2026, 6, 10, 0, 0, 0));
  EXPECT_EQ(Parse("tomorrow 10:00"), absl::CivilSecond(2026, 6, 11, 10, 0, 0));
  EXPECT_EQ(Parse("noon tomorrow"), absl::CivilSecond(2026, 6, 11, 12, 0, 0));
  EXPECT_EQ(Parse("today-teatime"), absl::CivilSecond(2026, 6, 10, 16, 0, 0));
  EXPECT_EQ(Parse("TEATIME"), absl::CivilSecond(2026, 6, 10, 16, 0, 0));
}

TEST_F(BeginTimeTest, NowPlusAndMinus) {
  EXPECT_EQ(Parse("now"), absl::CivilSecond(2026, 6, 10, 14, 30, 20));
  EXPECT_EQ(Parse("now+60"), absl::CivilSecond(2026, 6, 10, 14, 31, 20));  // seconds
  EXPECT_EQ(Parse("now+1hour"), absl::CivilSecond(2026, 6, 10, 15, 30, 20));
  EXPECT_EQ(Parse("now+2hours"), absl::CivilSecond(2026, 6, 10, 16, 30, 20));
  EXPECT_EQ(Parse("now+ 10 minutes"), absl::CivilSecond(2026, 6, 10, 14, 40, 20));
  EXPECT_EQ(Parse("now+3days"), absl::CivilSecond(2026, 6, 13, 14, 30, 20));
  EXPECT_EQ(Parse("now+1week"), absl::CivilSecond(2026, 6, 17, 14, 30, 20));
  EXPECT_EQ(Parse("now+30seconds"), absl::CivilSecond(2026, 6, 10, 14, 30, 50));
  EXPECT_EQ(Parse("NOW+1MINUTE"), absl::CivilSecond(2026, 6, 10, 14, 31, 20));
  EXPECT_EQ(Parse("now-1day"), absl::CivilSecond(2026, 6, 9, 14, 30, 20));
}

TEST_F(BeginTimeTest, Dates) {
  EXPECT_EQ(Parse("2026-07-01"), absl::CivilSecond(2026, 7, 1, 0, 0, 0));
  EXPECT_EQ(Parse("2026-07-01T12:34"), absl::CivilSecond(2026, 7, 1, 12, 34, 0));
  EXPECT_EQ(Parse("2026-07-01T12:34:56"), absl::CivilSecond(2026, 7, 1, 12, 34, 56));
  EXPECT_EQ(Parse("2010-01-20T12:34:00"), absl::CivilSecond(2010, 1, 20, 12, 34, 0));  // past
  EXPECT_EQ(Parse("07/01"), absl::CivilSecond(2026, 7, 1, 0, 0, 0));
  EXPECT_EQ(Parse("07/01/27"), absl::CivilSecond(2027, 7, 1, 0, 0, 0));
  EXPECT_EQ(Parse("7.1.27"), absl::CivilSecond(2027, 7, 1, 0, 0, 0));
  EXPECT_EQ(Parse("0701"), absl::CivilSecond(2026, 7, 1, 0, 0, 0));
  EXPECT_EQ(Parse("070127"), absl::CivilSecond(2027, 7, 1, 0, 0, 0));
  EXPECT_EQ(Parse("07/01-10:00"), absl::CivilSecond(2026, 7, 1, 10, 0, 0));
  // Without a year, a moment already passed this year is next year's.
  EXPECT_EQ(Parse("06/10"), absl::CivilSecond(2027, 6, 10, 0, 0, 0));
  EXPECT_EQ(Parse("06/10-15:00"), absl::CivilSecond(2026, 6, 10, 15, 0, 0));
  EXPECT_EQ(Parse("03/01"), absl::CivilSecond(2027, 3, 1, 0, 0, 0));
  EXPECT_EQ(Parse("uts1800000000"),
            absl::CivilSecond(absl::ToCivilSecond(absl::FromUnixSeconds(1800000000), tz_)));
}

TEST_F(BeginTimeTest, RejectsWithPositionAndForms) {
  struct Case {
    const char* text;
    const char* says;
  };
  for (const Case& c : {
           Case{"", "no date or time"},
           Case{"   ", "no date or time"},
           Case{"bogus", "(pos=0): bogus"},
           Case{"24:00", "hours are 0 to 23"},
           Case{"10:60", "minutes"},
           Case{"10:5", "minutes are two digits"},
           Case{"10:00:61", "seconds"},
           Case{"13:00pm", "PM hour"},
           Case{"2026-13-01", "months are 1 to 12"},
           Case{"2026-02-30", "is not a date"},
           Case{"13/01", "months"},
           Case{"02/30/26", "is not a date"},
           Case{"now+", "a count must follow"},
           Case{"now+5 fortnights", "unknown time unit"},
           Case{"now 5", "only +COUNT"},
           Case{"16:00 x", "(pos=6)"},
           Case{"uts12", "unix seconds"},
       }) {
    absl::StatusOr<absl::Time> t = ParseBeginTime(c.text, Now(), tz_);
    ASSERT_FALSE(t.ok()) << c.text;
    EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument) << c.text;
    EXPECT_THAT(t.status().message(), HasSubstr("Invalid time specification")) << c.text;
    EXPECT_THAT(t.status().message(), HasSubstr(c.says)) << c.text;
    EXPECT_THAT(t.status().message(), HasSubstr("expected HH:MM[:SS]")) << c.text;
  }
}

}  // namespace
}  // namespace canopy::slurm
