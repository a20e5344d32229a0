#include "scheduler/fairshare/usage_ledger.h"

#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::fairshare {
namespace {

using ::testing::DoubleNear;

const absl::Time kWednesdayNoon =
    absl::FromCivil(absl::CivilSecond(2026, 12, 2, 12, 0, 0),  // a Wednesday
                    absl::UTCTimeZone());
const absl::Duration kDay = absl::Hours(24);

TEST(UsageLedgerTest, WithoutDecayUsageIsRateTimesTime) {
  UsageLedger ledger(DecayOptions{absl::ZeroDuration(), ResetPeriod::kNone}, kWednesdayNoon);
  ledger.Charge("a", "u", 2.0, kWednesdayNoon, kWednesdayNoon + absl::Seconds(100));
  ledger.Charge("a", "u", 0.5, kWednesdayNoon + absl::Seconds(100),
                kWednesdayNoon + absl::Seconds(300));
  EXPECT_DOUBLE_EQ(ledger.Usage("a", "u", kWednesdayNoon + kDay * 30), 300.0);
  EXPECT_EQ(ledger.Usage("a", "other", kWednesdayNoon), 0.0);
  ledger.Charge("a", "u", 1.0, kWednesdayNoon + absl::Seconds(10),
                kWednesdayNoon);  // reversed: nothing
  ledger.Charge("a", "u", -1.0, kWednesdayNoon,
                kWednesdayNoon + absl::Seconds(10));  // negative rate: nothing
  EXPECT_DOUBLE_EQ(ledger.Usage("a", "u", kWednesdayNoon + kDay), 300.0);
}

// A charge is integrated against the decay curve: rate r over one half-life h, read at its end,
// is r * h / ln 2 * (1 - 1/2); one half-life later it is half that.
TEST(UsageLedgerTest, DecayHalvesUsageEveryHalfLife) {
  UsageLedger ledger(DecayOptions{kDay, ResetPeriod::kNone}, kWednesdayNoon);
  ledger.Charge("a", "u", 1.0, kWednesdayNoon, kWednesdayNoon + kDay);
  const double h = 86400.0;
  const double expected = h / std::log(2.0) * 0.5;
  EXPECT_THAT(ledger.Usage("a", "u", kWednesdayNoon + kDay), DoubleNear(expected, 1e-6));
  EXPECT_THAT(ledger.Usage("a", "u", kWednesdayNoon + 2 * kDay), DoubleNear(expected / 2, 1e-6));
  EXPECT_THAT(ledger.Usage("a", "u", kWednesdayNoon + 4 * kDay), DoubleNear(expected / 8, 1e-6));
}

// However often a running job is charged, the total is the same.
TEST(UsageLedgerTest, ChargingInPiecesEqualsChargingOnce) {
  UsageLedger once(DecayOptions{absl::Hours(5), ResetPeriod::kNone}, kWednesdayNoon);
  UsageLedger pieces(DecayOptions{absl::Hours(5), ResetPeriod::kNone}, kWednesdayNoon);
  once.Charge("a", "u", 8.0, kWednesdayNoon, kWednesdayNoon + absl::Hours(10));
  for (int i = 0; i < 120; ++i) {
    pieces.Charge("a", "u", 8.0, kWednesdayNoon + absl::Minutes(5 * i),
                  kWednesdayNoon + absl::Minutes(5 * (i + 1)));
  }
  const absl::Time later = kWednesdayNoon + absl::Hours(11);
  EXPECT_THAT(pieces.Usage("a", "u", later),
              DoubleNear(once.Usage("a", "u", later), 1e-9 * once.Usage("a", "u", later)));
}

// Hundreds of half-lives later values are still finite and right (the reference time moves).
TEST(UsageLedgerTest, LongRunsStayFinite) {
  UsageLedger ledger(DecayOptions{absl::Hours(1), ResetPeriod::kNone}, kWednesdayNoon);
  for (int day = 0; day < 400; ++day) {
    const absl::Time t = kWednesdayNoon + kDay * day;
    ledger.Charge("a", "u", 1.0, t, t + absl::Hours(1));
  }
  const absl::Time end = kWednesdayNoon + kDay * 399 + absl::Hours(1);
  const double u = ledger.Usage("a", "u", end);
  EXPECT_TRUE(std::isfinite(u));
  // Only the last day's charge still counts at all: 3600 / ln 2 * 0.5 (earlier ones < 2^-23).
  EXPECT_THAT(u, DoubleNear(3600 / std::log(2.0) * 0.5, 1e-3));
}

TEST(UsageLedgerTest, ResetPeriodsClearUsageAtTheirBoundary) {
  UsageLedger ledger(DecayOptions{absl::ZeroDuration(), ResetPeriod::kDaily}, kWednesdayNoon);
  const absl::Time midnight = absl::FromCivil(absl::CivilDay(2026, 12, 3), absl::UTCTimeZone());
  // A charge that spans midnight: only the part after it counts.
  ledger.Charge("a", "u", 1.0, midnight - absl::Hours(2), midnight - absl::Hours(1));
  EXPECT_DOUBLE_EQ(ledger.Usage("a", "u", midnight - absl::Minutes(1)), 3600.0);
  EXPECT_DOUBLE_EQ(ledger.Usage("a", "u", midnight), 0.0);
  ledger.Charge("a", "u", 1.0, midnight - absl::Hours(1), midnight + absl::Hours(1));
  EXPECT_DOUBLE_EQ(ledger.Usage("a", "u", midnight + absl::Hours(1)), 3600.0);
}

TEST(UsageLedgerTest, NextResetFollowsTheCalendar) {
  auto at = [](int y, int m, int d) {
    return absl::FromCivil(absl::CivilDay(y, m, d), absl::UTCTimeZone());
  };
  EXPECT_EQ(NextReset(ResetPeriod::kDaily, kWednesdayNoon), at(2026, 12, 3));
  EXPECT_EQ(NextReset(ResetPeriod::kWeekly, kWednesdayNoon), at(2026, 12, 7));  // Monday
  EXPECT_EQ(NextReset(ResetPeriod::kWeekly, at(2026, 12, 7)), at(2026, 12, 14));
  EXPECT_EQ(NextReset(ResetPeriod::kMonthly, kWednesdayNoon), at(2027, 1, 1));
  EXPECT_EQ(NextReset(ResetPeriod::kQuarterly, at(2026, 11, 5)), at(2027, 1, 1));
  EXPECT_EQ(NextReset(ResetPeriod::kQuarterly, at(2026, 4, 1)), at(2026, 7, 1));
  EXPECT_EQ(NextReset(ResetPeriod::kYearly, kWednesdayNoon), at(2027, 1, 1));
  EXPECT_EQ(NextReset(ResetPeriod::kNone, kWednesdayNoon), absl::InfiniteFuture());
}

// What the store keeps is enough to go on exactly where the ledger was.
TEST(UsageLedgerTest, SnapshotRestoresTheSameLedger) {
  const DecayOptions options{kDay, ResetPeriod::kMonthly};
  UsageLedger ledger(options, kWednesdayNoon);
  ledger.Charge("a", "u", 3.0, kWednesdayNoon, kWednesdayNoon + absl::Hours(6));
  ledger.Charge("b", "v", 1.0, kWednesdayNoon, kWednesdayNoon + absl::Hours(2));
  const UsageLedger::Snapshot saved = ledger.Save(kWednesdayNoon + absl::Hours(7));
  UsageLedger restored = UsageLedger::Restore(options, saved);
  ledger.Charge("a", "u", 1.0, kWednesdayNoon + absl::Hours(7), kWednesdayNoon + absl::Hours(9));
  restored.Charge("a", "u", 1.0, kWednesdayNoon + absl::Hours(7), kWednesdayNoon + absl::Hours(9));
  const absl::Time later = kWednesdayNoon + absl::Hours(30);
  EXPECT_THAT(restored.Usage("a", "u", later), DoubleNear(ledger.Usage("a", "u", later), 1e-6));
  EXPECT_THAT(restored.Usage("b", "v", later), DoubleNear(ledger.Usage("b", "v", later), 1e-6));
  ASSERT_EQ(saved.entries.size(), 2u);
  EXPECT_EQ(saved.entries[0].account, "a");
  // NOW clears usage when the controller starts.
  UsageLedger now = UsageLedger::Restore(DecayOptions{kDay, ResetPeriod::kNow}, saved);
  EXPECT_EQ(now.Usage("a", "u", later), 0.0);
}

}  // namespace
}  // namespace canopy::fairshare
