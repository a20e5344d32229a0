// sacct's -S/-E times: Slurm's parse_time with its `past` flag set. The forms are those of
// sbatch --begin (common/slurm/begin_time.h); what differs is how a time without a day or a date
// without a year is completed: looking back rather than ahead.
//   HH:MM[:SS], noon, midnight, ...   today, even if later than now (--begin: the next one)
//   MM/DD, MM.DD, MMDD (no year)      this year, unless the month is after the current month:
//                                     then last year (--begin: the next such date)
// Everything else (a full date, today, tomorrow, now[+-COUNT[unit]], uts) means the same.
// Pure; thread-safe.
#pragma once

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace canopy::ctl::sacct {

// InvalidArgument "Invalid time specification (pos=N): TEXT", as parse_time prints it.
absl::StatusOr<absl::Time> ParsePastTime(absl::string_view text, absl::Time now, absl::TimeZone tz);

}  // namespace canopy::ctl::sacct
