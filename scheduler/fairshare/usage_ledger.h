// UsageLedger: how much each user association has used the cluster, in billing units
// (TRESBillingWeights; by default one unit per GPU-second), decayed with a half-life
// (PriorityDecayHalfLife) and reset at PriorityUsageResetPeriod boundaries.
//
// Usage is charged continuously: the caller charges each running job's rate over the interval
// since its last charge. Decay is exact however often that happens: a charge over [from, to) is
// integrated against the decay curve, and values are kept relative to a reference time, so
// decaying the whole ledger costs nothing until it is read. Account usage is the sum of its
// users' (FairShareTable computes it). Pure (time comes in); not thread-safe.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/slurm/scheduling_values.h"

namespace canopy::fairshare {

// PriorityUsageResetPeriod (parsed by common/slurm/scheduling_values.h).
using ResetPeriod = slurm::UsageResetPeriod;

struct DecayOptions {
  absl::Duration half_life = absl::Hours(24 * 7);  // zero = no decay
  ResetPeriod reset = ResetPeriod::kNone;
};

// The first reset boundary after `t` (UTC calendar: midnight; Monday; the 1st of the month; of
// January, April, July, October; of January). InfiniteFuture for kNone and kNow.
absl::Time NextReset(ResetPeriod period, absl::Time t);

class UsageLedger {
 public:
  // One user association's usage, as stored.
  struct Entry {
    std::string account;
    std::string user;
    double usage = 0;  // billing unit-seconds, decayed to `Snapshot::as_of`
    friend bool operator==(const Entry&, const Entry&) = default;
  };
  // The whole ledger at one moment, for the store.
  struct Snapshot {
    absl::Time as_of = absl::InfinitePast();
    absl::Time last_reset = absl::InfinitePast();
    std::vector<Entry> entries;  // (account, user) order
  };

  // `start`: when the ledger begins (a reset period counts from here).
  UsageLedger(DecayOptions options, absl::Time start);
  // A ledger continued from a stored snapshot.
  static UsageLedger Restore(DecayOptions options, const Snapshot& snapshot);

  // Adds `rate` units per second over [from, to) to the association (rate >= 0; an empty or
  // reversed interval adds nothing; the part before the last reset does not count).
  void Charge(absl::string_view account, absl::string_view user, double rate, absl::Time from,
              absl::Time to);
  // Applies every reset boundary up to `now`. Charge and Usage call it themselves.
  void AdvanceTo(absl::Time now);

  // The association's usage at `now` (at or after the last charge's end), decayed.
  double Usage(absl::string_view account, absl::string_view user, absl::Time now) const;
  // Every association's usage at `now`, (account, user) order.
  std::vector<Entry> All(absl::Time now) const;
  Snapshot Save(absl::Time now) const;

  const DecayOptions& options() const { return options_; }

 private:
  // 2^((t - ref) / half_life): how much a unit charged at `t` weighs relative to `ref_`.
  double Weight(absl::Time t) const;
  // Moves the reference time to `t`, scaling every value (keeps exponents small).
  void Rebase(absl::Time t);

  DecayOptions options_;
  absl::Time ref_;
  absl::Time last_reset_;
  absl::Time next_reset_;
  std::map<std::pair<std::string, std::string>, double> usage_;  // at ref_, ordered
};

}  // namespace canopy::fairshare
