// The usage ledger (usage_ledger.h).
//
// Values are stored relative to a reference time ref_: the usage at time t is
//   stored * 2^(-(t - ref_) / h)
// so decay needs no work. A charge of rate r over [a, b) adds r * integral_a^b 2^((s - ref_)/h) ds
// = r * h / ln 2 * (2^((b - ref_)/h) - 2^((a - ref_)/h)) to the stored value, which is exact for
// any charge interval. With no half-life nothing decays and a charge adds r * (b - a).
#include "scheduler/fairshare/usage_ledger.h"

#include <cmath>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace canopy::fairshare {
namespace {

// Rebase before exponents get large enough to lose precision.
constexpr double kMaxHalfLivesFromRef = 64;

double Seconds(absl::Duration d) { return absl::ToDoubleSeconds(d); }

}  // namespace

absl::Time NextReset(ResetPeriod period, absl::Time t) {
  if (t == absl::InfinitePast() || t == absl::InfiniteFuture()) {
    return absl::InfiniteFuture();
  }
  const absl::CivilSecond c = absl::ToCivilSecond(t, absl::UTCTimeZone());
  absl::CivilDay day(c);
  switch (period) {
    case ResetPeriod::kNone:
    case ResetPeriod::kNow:
      return absl::InfiniteFuture();
    case ResetPeriod::kDaily:
      day += 1;
      break;
    case ResetPeriod::kWeekly: {  // the next Monday 00:00
      day += 1;
      while (absl::GetWeekday(day) != absl::Weekday::monday) {
        day += 1;
      }
      break;
    }
    case ResetPeriod::kMonthly:
      day = absl::CivilDay(absl::CivilMonth(c) + 1);
      break;
    case ResetPeriod::kQuarterly: {
      absl::CivilMonth m(c);
      do {
        m += 1;
      } while ((m.month() - 1) % 3 != 0);
      day = absl::CivilDay(m);
      break;
    }
    case ResetPeriod::kYearly:
      day = absl::CivilDay(absl::CivilYear(c) + 1);
      break;
  }
  return absl::FromCivil(day, absl::UTCTimeZone());
}

UsageLedger::UsageLedger(DecayOptions options, absl::Time start)
    : options_(options),
      ref_(start),
      last_reset_(start),
      next_reset_(NextReset(options.reset, start)) {}

UsageLedger UsageLedger::Restore(DecayOptions options, const Snapshot& snapshot) {
  UsageLedger ledger(options, snapshot.as_of);
  ledger.last_reset_ = snapshot.last_reset;
  ledger.next_reset_ = NextReset(options.reset, snapshot.last_reset);
  // NOW: usage is cleared when the controller starts.
  if (options.reset != ResetPeriod::kNow) {
    for (const Entry& e : snapshot.entries) {
      ledger.usage_[{e.account, e.user}] = e.usage;
    }
  } else {
    ledger.last_reset_ = snapshot.as_of;
  }
  return ledger;
}

double UsageLedger::Weight(absl::Time t) const {
  if (options_.half_life <= absl::ZeroDuration()) {
    return 1.0;
  }
  return std::exp2(Seconds(t - ref_) / Seconds(options_.half_life));
}

void UsageLedger::Rebase(absl::Time t) {
  const double scale = 1.0 / Weight(t);
  for (auto& [key, value] : usage_) {
    value *= scale;
  }
  ref_ = t;
}

void UsageLedger::AdvanceTo(absl::Time now) {
  while (now >= next_reset_) {
    usage_.clear();
    last_reset_ = next_reset_;
    ref_ = next_reset_;
    next_reset_ = NextReset(options_.reset, last_reset_);
  }
  if (options_.half_life > absl::ZeroDuration() &&
      Seconds(now - ref_) > kMaxHalfLivesFromRef * Seconds(options_.half_life)) {
    Rebase(now);
  }
}

void UsageLedger::Charge(absl::string_view account, absl::string_view user, double rate,
                         absl::Time from, absl::Time to) {
  AdvanceTo(to);
  from = std::max(from, last_reset_);
  if (!(rate > 0) || to <= from) {
    return;
  }
  double added;
  if (options_.half_life <= absl::ZeroDuration()) {
    added = rate * Seconds(to - from);
  } else {
    const double h = Seconds(options_.half_life);
    added = rate * h / std::log(2.0) * (Weight(to) - Weight(from));
  }
  usage_[{std::string(account), std::string(user)}] += added;
}

double UsageLedger::Usage(absl::string_view account, absl::string_view user, absl::Time now) const {
  if (now >= next_reset_) {
    return 0;  // a reset comes first
  }
  auto it = usage_.find({std::string(account), std::string(user)});
  return it == usage_.end() ? 0 : it->second / Weight(now);
}

std::vector<UsageLedger::Entry> UsageLedger::All(absl::Time now) const {
  std::vector<Entry> out;
  if (now >= next_reset_) {
    return out;
  }
  const double scale = 1.0 / Weight(now);
  out.reserve(usage_.size());
  for (const auto& [key, value] : usage_) {
    out.push_back({key.first, key.second, value * scale});
  }
  return out;
}

UsageLedger::Snapshot UsageLedger::Save(absl::Time now) const {
  Snapshot s;
  s.as_of = now;
  s.last_reset = last_reset_;
  for (absl::Time next = next_reset_; now >= next; next = NextReset(options_.reset, next)) {
    s.last_reset = next;  // a reset due by `now` (All() already reads zero then)
  }
  s.entries = All(now);
  return s;
}

}  // namespace canopy::fairshare
