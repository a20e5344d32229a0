// Tests for ParseSlurmDuration / FormatSlurmDuration / FormatSlurmTimestamp. Accepted and
// rejected `--time` forms were checked with Slurm 22.05.8's sbatch ("Invalid --time
// specification"); printed forms follow squeue's TIME column.
#include "common/slurm/time_format.h"

#include <string>

#include "absl/status/status.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::slurm {
namespace {

using ::testing::HasSubstr;

absl::Duration Parse(std::string_view text) {
  absl::StatusOr<absl::Duration> d = ParseSlurmDuration(text);
  EXPECT_TRUE(d.ok()) << text << ": " << d.status();
  return d.value_or(absl::ZeroDuration());
}

TEST(ParseSlurmDurationTest, EveryDocumentedForm) {
  EXPECT_EQ(Parse("0"), absl::ZeroDuration());
  EXPECT_EQ(Parse("30"), absl::Minutes(30));                      // minutes
  EXPECT_EQ(Parse("5:07"), absl::Minutes(5) + absl::Seconds(7));  // min:sec
  EXPECT_EQ(Parse("4:00:00"), absl::Hours(4));                    // h:m:s
  EXPECT_EQ(Parse("1:02:03"), absl::Hours(1) + absl::Minutes(2) + absl::Seconds(3));
  EXPECT_EQ(Parse("2-12"), absl::Hours(60));                        // days-hours
  EXPECT_EQ(Parse("1-2:30"), absl::Hours(26) + absl::Minutes(30));  // d-h:m
  EXPECT_EQ(Parse("1-02:03:04"),
            absl::Hours(26) + absl::Minutes(3) + absl::Seconds(4));  // d-h:m:s
}

TEST(ParseSlurmDurationTest, SlurmQuirksWeKeep) {
  EXPECT_EQ(Parse("2-"), absl::Hours(48));    // "days-" alone; sbatch accepts it
  EXPECT_EQ(Parse("90"), absl::Minutes(90));  // fields are not range-checked
  EXPECT_EQ(Parse("1:75:00"), absl::Hours(2) + absl::Minutes(15));
  EXPECT_EQ(Parse("0:90"), absl::Seconds(90));
  EXPECT_EQ(Parse("007"), absl::Minutes(7));
}

TEST(ParseSlurmDurationTest, Unlimited) {
  for (const char* text : {"UNLIMITED", "unlimited", "Infinite", "INFINITE", "-1"}) {
    EXPECT_EQ(Parse(text), absl::InfiniteDuration()) << text;
  }
}

TEST(ParseSlurmDurationTest, RejectsWhatSbatchRejects) {
  for (const char* text :
       {"",     "abc",       "1:2:3:4", " 5",    "5 ",         "+5",         "1-2-3",
        "1:-2", "1-2:3:4:5", "1:",      ":1",    "1-:00",      "1-2:",       "-",
        "-5",   "5m",        "1.5",     "1_000", "9999999999", "UNLIMITEDX", "none"}) {
    absl::StatusOr<absl::Duration> d = ParseSlurmDuration(text);
    EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument) << "'" << text << "'";
  }
}

TEST(ParseSlurmDurationTest, ErrorQuotesTextAndListsForms) {
  absl::Status s = ParseSlurmDuration("3h").status();
  EXPECT_EQ(s.message(),
            "invalid time \"3h\": expected minutes, minutes:seconds, hours:minutes:seconds, "
            "days-hours, days-hours:minutes, days-hours:minutes:seconds, or UNLIMITED");
}

TEST(FormatSlurmDurationTest, SqueueForms) {
  EXPECT_EQ(FormatSlurmDuration(absl::ZeroDuration()), "0:00");
  EXPECT_EQ(FormatSlurmDuration(absl::Seconds(7)), "0:07");
  EXPECT_EQ(FormatSlurmDuration(absl::Minutes(5) + absl::Seconds(7)), "5:07");
  EXPECT_EQ(FormatSlurmDuration(absl::Minutes(59) + absl::Seconds(59)), "59:59");
  EXPECT_EQ(FormatSlurmDuration(absl::Hours(1)), "1:00:00");
  EXPECT_EQ(FormatSlurmDuration(absl::Hours(23) + absl::Seconds(1)), "23:00:01");
  EXPECT_EQ(FormatSlurmDuration(absl::Hours(24)), "1-00:00:00");
  EXPECT_EQ(FormatSlurmDuration(absl::Hours(24 * 12 + 3) + absl::Minutes(4) + absl::Seconds(5)),
            "12-03:04:05");
  EXPECT_EQ(FormatSlurmDuration(absl::Hours(24 * 400)), "400-00:00:00");
}

TEST(FormatSlurmDurationTest, EdgeValues) {
  EXPECT_EQ(FormatSlurmDuration(absl::InfiniteDuration()), "UNLIMITED");
  EXPECT_EQ(FormatSlurmDuration(-absl::Seconds(5)), "0:00");
  EXPECT_EQ(FormatSlurmDuration(-absl::InfiniteDuration()), "0:00");
  EXPECT_EQ(FormatSlurmDuration(absl::Milliseconds(59999)), "0:59");  // truncated, not rounded
}

TEST(FormatSlurmDurationTest, RoundTripsThroughParse) {
  for (const char* text : {"0:00", "5:07", "1:00:00", "1-00:00:00", "12-03:04:05", "UNLIMITED"}) {
    EXPECT_EQ(FormatSlurmDuration(Parse(text)), text);
  }
}

TEST(FormatSlurmTimestampTest, IsoSecondsInZone) {
  const absl::TimeZone utc = absl::UTCTimeZone();
  const absl::Time t = absl::FromCivil(absl::CivilSecond(2026, 12, 2, 9, 43, 42), utc);
  EXPECT_EQ(FormatSlurmTimestamp(t, utc), "2026-12-02T09:43:42");
  EXPECT_EQ(FormatSlurmTimestamp(t + absl::Milliseconds(999), utc), "2026-12-02T09:43:42");
  EXPECT_EQ(FormatSlurmTimestamp(t, absl::FixedTimeZone(-5 * 3600)), "2026-12-02T04:43:42");
  EXPECT_EQ(FormatSlurmTimestamp(t, absl::FixedTimeZone(15 * 3600)), "2026-12-03T00:43:42");
}

TEST(FormatSlurmTimestampTest, UnsetTimesAreUnknown) {
  EXPECT_EQ(FormatSlurmTimestamp(absl::InfiniteFuture(), absl::UTCTimeZone()), "Unknown");
  EXPECT_EQ(FormatSlurmTimestamp(absl::InfinitePast(), absl::UTCTimeZone()), "Unknown");
  EXPECT_EQ(FormatSlurmTimestamp(absl::UnixEpoch(), absl::UTCTimeZone()), "Unknown");
  EXPECT_EQ(FormatSlurmTimestamp(absl::UnixEpoch() + absl::Seconds(1), absl::UTCTimeZone()),
            "1970-01-01T00:00:01");
}

TEST(SlurmTimeFormatTest, ParsesWhatSlurmAccepts) {
  using Kind = SlurmTimeFormat::Kind;
  EXPECT_EQ(ParseSlurmTimeFormat("")->kind, Kind::kStandard);
  EXPECT_EQ(ParseSlurmTimeFormat("standard")->kind, Kind::kStandard);
  EXPECT_EQ(ParseSlurmTimeFormat("relative")->kind, Kind::kRelative);
  EXPECT_EQ(ParseSlurmTimeFormat("%s")->kind, Kind::kStrftime);
  EXPECT_EQ(ParseSlurmTimeFormat("%s")->strftime, "%s");
  // 31 characters is the longest Slurm 22.05 takes.
  EXPECT_TRUE(ParseSlurmTimeFormat("%F" + std::string(29, 'x')).ok());
  const absl::StatusOr<SlurmTimeFormat> long_one =
      ParseSlurmTimeFormat("%F" + std::string(30, 'x'));
  EXPECT_EQ(long_one.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(long_one.status().message(),
            "invalid SLURM_TIME_FORMAT = '%Fxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'");
  EXPECT_EQ(ParseSlurmTimeFormat("nopercent").status().message(),
            "invalid SLURM_TIME_FORMAT = 'nopercent'");
  EXPECT_FALSE(ParseSlurmTimeFormat("Relative").ok());  // case matters, as in Slurm
}

// Each expectation is what Slurm 22.05.8's slurm_make_time_str() printed for the same time and
// SLURM_TIME_FORMAT, the present being Monday 2026-12-07 17:31:45 UTC.
TEST(SlurmTimeFormatTest, FormatsAsSlurmDoes) {
  const absl::TimeZone utc = absl::UTCTimeZone();
  const absl::Time now = absl::FromCivil(absl::CivilSecond(2026, 12, 7, 17, 31, 45), utc);
  const SlurmTimeFormat relative = *ParseSlurmTimeFormat("relative");
  auto rel = [&](absl::Duration from_now) {
    return FormatSlurmTimestamp(now + from_now, utc, relative, now);
  };
  const absl::Duration day = absl::Hours(24);
  EXPECT_EQ(rel(absl::ZeroDuration()), "17:31:45");
  EXPECT_EQ(rel(-absl::Hours(1)), "16:31:45");
  EXPECT_EQ(rel(-day), "Ystday 17:31");
  EXPECT_EQ(rel(day), "Tomorr 17:31");
  EXPECT_EQ(rel(2 * day), "Wed 17:31");
  EXPECT_EQ(rel(6 * day), "Sun 17:31");
  EXPECT_EQ(rel(7 * day), "14 Dec 17:31");
  EXPECT_EQ(rel(-2 * day), "5 Dec 17:31");
  EXPECT_EQ(rel(-7 * day), "30 Nov 17:31");
  EXPECT_EQ(rel(-40 * day), "28 Oct 17:31");
  EXPECT_EQ(rel(40 * day), "16 Jan 2027");  // another year, however near
  EXPECT_EQ(rel(-366 * day), "6 Dec 2025");
  EXPECT_EQ(FormatSlurmTimestamp(now, utc, *ParseSlurmTimeFormat("%s"), now), "1796664705");
  EXPECT_EQ(FormatSlurmTimestamp(now, utc, *ParseSlurmTimeFormat("%a %T"), now), "Mon 17:31:45");
  EXPECT_EQ(FormatSlurmTimestamp(now, utc, SlurmTimeFormat(), now), "2026-12-07T17:31:45");
  EXPECT_EQ(FormatSlurmTimestamp(absl::UnixEpoch(), utc, relative, now), "Unknown");
}

}  // namespace
}  // namespace canopy::slurm
