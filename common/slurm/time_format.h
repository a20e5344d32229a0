// Slurm's time formats: durations as users write them (`--time`, MaxTime, SlurmdTimeout) and as
// squeue/sinfo print them. Pure functions but ProcessTimeFormat() (the process's environment,
// read once); thread-safe.
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

// How Slurm's commands print timestamps: the SLURM_TIME_FORMAT environment variable.
struct SlurmTimeFormat {
  enum class Kind {
    kStandard,  // "2026-12-02T09:43:42" (unset, empty or "standard")
    kRelative,  // "relative": "09:43:42" today, "Ystday 09:43", "Tomorr 09:43", "Wed 09:43" in
                // the coming week, "2 Dec 09:43" otherwise this year, "2 Dec 2025" another year
    kStrftime,  // a strftime() format ("%s", "%a %T")
  };
  Kind kind = Kind::kStandard;
  std::string strftime;  // kStrftime's format
};

// Parses SLURM_TIME_FORMAT's value. As Slurm 22.05, a format must hold a '%' and be under 32
// characters; InvalidArgument otherwise (Slurm then says "invalid SLURM_TIME_FORMAT = 'X'" and
// prints the standard format).
absl::StatusOr<SlurmTimeFormat> ParseSlurmTimeFormat(std::string_view value);

// Formats a point in time as Slurm prints timestamps in `format`, in `tz`, `now` being the
// present (for kRelative). absl::InfiniteFuture(), absl::InfinitePast() and absl::UnixEpoch()
// print "Unknown", as Slurm prints its "unset" times 0 and INFINITE, whatever the format.
std::string FormatSlurmTimestamp(absl::Time t, absl::TimeZone tz, const SlurmTimeFormat& format,
                                 absl::Time now);

// The same in this process's format: SLURM_TIME_FORMAT, read once, as Slurm's commands read it.
// An invalid value is reported once on stderr ("squeue: error: invalid SLURM_TIME_FORMAT = 'X'")
// and the standard format used. Thread-safe.
const SlurmTimeFormat& ProcessTimeFormat();
std::string FormatSlurmTimestamp(absl::Time t, absl::TimeZone tz);

}  // namespace canopy::slurm
