// Points in time as sbatch --begin (and scontrol update StartTime=) read them: Slurm 22.05's
// parse_time (src/common/parse_time.c), which looks into the future. Accepted, in any case:
//
//   HH:MM[:SS] [AM|PM]                 the next such time: today if still ahead, else tomorrow
//   YYYY-MM-DD[THH:MM[:SS]]            a date (at 00:00:00 when no time is given)
//   MM/DD[/YY], MM.DD[.YY], MMDD[YY]   likewise; without a year, this year if the moment is still
//                                      ahead, else next year ("MM/DD/YY-HH:MM" joins a time)
//   now[{+|-}COUNT[seconds|minutes|hours|days|weeks]]   seconds when no unit is given
//   today, tomorrow                    the date, at 00:00:00 unless a time is given too
//   midnight, noon, elevenses, fika, teatime   00:00, 12:00, 11:00, 15:00, 16:00 (the next one)
//   uts<SECONDS>                       unix seconds
//
// Words and numbers may be separated by blanks, '-' or 'T' ("tomorrow 10:00", "today-noon").
// Pure (the present moment and the time zone come in); thread-safe.
#pragma once

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace canopy::slurm {

// The moment `text` names, relative to `now` in `tz`. InvalidArgument with Slurm's "Invalid time
// specification (pos=N): TEXT" (N = where reading failed) and the accepted forms, for anything
// else, out-of-range fields (hour 24, month 13, February 30), or nothing given at all.
absl::StatusOr<absl::Time> ParseBeginTime(absl::string_view text, absl::Time now,
                                          absl::TimeZone tz);

}  // namespace canopy::slurm
