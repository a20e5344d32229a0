// Slurm's time formats: durations as users write them (`--time`, MaxTime, SlurmdTimeout) and as
// squeue/sinfo print them. Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace canopy::slurm {

// Parses a Slurm time limit: "minutes", "minutes:seconds", "hours:minutes:seconds",
// "days-hours", "days-hours:minutes", "days-hours:minutes:seconds", and "UNLIMITED",
// "INFINITE" or "-1" (all case-insensitive) for absl::InfiniteDuration().
// InvalidArgument (quoting the text and listing the accepted forms) for anything else.
//
// Details, as Slurm 22.05's time_str2secs(): "days-" alone ("2-") is two days; fields are not
// range-checked ("90" is 90 minutes, "1:75:00" is 2h15m); no spaces or signs are allowed.
// Fields have at most 9 digits. Seconds are kept exactly: `--time` rounds them up to whole
// minutes and treats "0" as "no limit", which is the caller's policy, not this parser's.
absl::StatusOr<absl::Duration> ParseSlurmDuration(std::string_view text);

// Formats a duration the way squeue prints TIME and TIME_LIMIT: "0:00", "5:07", "1:00:00",
// "1-00:00:00", and "UNLIMITED" for an infinite duration. Negative durations print as "0:00".
// Fractions of a second are dropped. (squeue itself prints "INVALID" for more than 365 days;
// we print the days.)
std::string FormatSlurmDuration(absl::Duration d);

// Formats a point in time as Slurm prints timestamps: "2026-12-02T09:43:42" in `tz`.
// absl::InfiniteFuture(), absl::InfinitePast() and absl::UnixEpoch() print "Unknown", as Slurm
// prints its "unset" times 0 and INFINITE.
std::string FormatSlurmTimestamp(absl::Time t, absl::TimeZone tz);

}  // namespace canopy::slurm
