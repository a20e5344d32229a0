// Slurm duration and timestamp text, modelled on Slurm 22.05's time_str2secs() (parse_time.c)
// and squeue's _print_secs() (print.c). We are stricter than time_str2secs where it relies on
// sscanf quirks (it accepts "-5"); see the notes in time_format.h.
#include "common/slurm/time_format.h"

#include <errno.h>  // program_invocation_short_name

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/time/civil_time.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace canopy::slurm {
namespace {

// Nine digits per field keeps days * 86400 + ... far inside int64 seconds.
constexpr size_t kMaxFieldDigits = 9;

absl::Status InvalidTime(absl::string_view text) {
  return absl::InvalidArgumentError(
      absl::StrCat("invalid time \"", text,
                   "\": expected minutes, minutes:seconds, hours:minutes:seconds, days-hours, "
                   "days-hours:minutes, days-hours:minutes:seconds, or UNLIMITED"));
}

// A field is 1 to kMaxFieldDigits decimal digits; Slurm does not range-check fields, so
// "90" minutes or "1:75:00" are valid and simply add up.
bool ParseField(absl::string_view field, int64_t* value) {
  if (field.empty() || field.size() > kMaxFieldDigits) {
    return false;
  }
  int64_t v = 0;
  for (char c : field) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) {
      return false;
    }
    v = v * 10 + (c - '0');
  }
  *value = v;
  return true;
}

}  // namespace

absl::StatusOr<absl::Duration> ParseSlurmDuration(std::string_view text_in) {
  // Debian's Abseil has its own string_view type; the API speaks std::string_view.
  const absl::string_view text(text_in.data(), text_in.size());
  if (absl::EqualsIgnoreCase(text, "UNLIMITED") || absl::EqualsIgnoreCase(text, "INFINITE") ||
      text == "-1") {
    return absl::InfiniteDuration();
  }
  int64_t days = 0;
  absl::string_view clock = text;
  const size_t dash = text.find('-');
  if (dash != absl::string_view::npos) {
    if (!ParseField(text.substr(0, dash), &days)) {
      return InvalidTime(text);
    }
    clock = text.substr(dash + 1);
  }
  const std::vector<absl::string_view> parts = absl::StrSplit(clock, ':');
  int64_t fields[3] = {0, 0, 0};
  if (parts.size() > 3) {
    return InvalidTime(text);
  }
  // "D-" alone is Slurm's "days-" form: hours default to zero.
  const bool days_only = dash != absl::string_view::npos && clock.empty();
  if (!days_only) {
    for (size_t i = 0; i < parts.size(); ++i) {
      if (!ParseField(parts[i], &fields[i])) {
        return InvalidTime(text);
      }
    }
  }
  int64_t hours = 0;
  int64_t minutes = 0;
  int64_t seconds = 0;
  if (dash != absl::string_view::npos) {
    // days-hours[:minutes[:seconds]]
    hours = fields[0];
    minutes = fields[1];
    seconds = fields[2];
  } else if (parts.size() == 3) {
    hours = fields[0];
    minutes = fields[1];
    seconds = fields[2];
  } else {
    // minutes[:seconds]
    minutes = fields[0];
    seconds = fields[1];
  }
  return absl::Hours(24 * days + hours) + absl::Minutes(minutes) + absl::Seconds(seconds);
}

std::string FormatSlurmDuration(absl::Duration d) {
  if (d == absl::InfiniteDuration()) {
    return "UNLIMITED";
  }
  if (d < absl::ZeroDuration()) {
    return "0:00";
  }
  // Whole seconds, truncated: squeue shows elapsed time, never rounding up a running job.
  const int64_t total = absl::ToInt64Seconds(d);
  const int64_t seconds = total % 60;
  const int64_t minutes = (total / 60) % 60;
  const int64_t hours = (total / 3600) % 24;
  const int64_t days = total / 86400;
  if (days > 0) {
    return absl::StrFormat("%d-%02d:%02d:%02d", days, hours, minutes, seconds);
  }
  if (hours > 0) {
    return absl::StrFormat("%d:%02d:%02d", hours, minutes, seconds);
  }
  return absl::StrFormat("%d:%02d", minutes, seconds);
}

absl::StatusOr<SlurmTimeFormat> ParseSlurmTimeFormat(std::string_view value) {
  SlurmTimeFormat format;
  if (value.empty() || value == "standard") {
    return format;
  }
  if (value == "relative") {
    format.kind = SlurmTimeFormat::Kind::kRelative;
    return format;
  }
  if (value.find('%') == std::string_view::npos || value.size() >= 32) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid SLURM_TIME_FORMAT = '", std::string(value), "'"));
  }
  format.kind = SlurmTimeFormat::Kind::kStrftime;
  format.strftime = std::string(value);
  return format;
}

namespace {

// SLURM_TIME_FORMAT=relative: the nearer the day, the less of the date is printed. Days are
// calendar days in `tz`; another year always prints its year.
const char* RelativeFormat(absl::Time t, absl::TimeZone tz, absl::Time now) {
  const absl::CivilDay day = absl::ToCivilDay(t, tz);
  const absl::CivilDay today = absl::ToCivilDay(now, tz);
  if (day.year() != today.year()) {
    return "%-d %b %Y";
  }
  switch (const absl::civil_diff_t ahead = day - today; ahead) {
    case -1:
      return "Ystday %H:%M";
    case 0:
      return "%H:%M:%S";
    case 1:
      return "Tomorr %H:%M";
    default:
      return ahead >= 2 && ahead <= 6 ? "%a %H:%M" : "%-d %b %H:%M";
  }
}

}  // namespace

std::string FormatSlurmTimestamp(absl::Time t, absl::TimeZone tz, const SlurmTimeFormat& format,
                                 absl::Time now) {
  // Slurm prints "Unknown" for time 0 and INFINITE (slurm_make_time_str); infinite absl::Times
  // are our spelling of "not known".
  if (t == absl::InfiniteFuture() || t == absl::InfinitePast() || t == absl::UnixEpoch()) {
    return "Unknown";
  }
  switch (format.kind) {
    case SlurmTimeFormat::Kind::kStandard:
      break;
    case SlurmTimeFormat::Kind::kRelative:
      return absl::FormatTime(RelativeFormat(t, tz, now), t, tz);
    case SlurmTimeFormat::Kind::kStrftime:
      return absl::FormatTime(format.strftime, t, tz);
  }
  return absl::FormatTime("%Y-%m-%dT%H:%M:%S", t, tz);
}

const SlurmTimeFormat& ProcessTimeFormat() {
  static const SlurmTimeFormat* const format = [] {
    const char* value = std::getenv("SLURM_TIME_FORMAT");
    absl::StatusOr<SlurmTimeFormat> parsed = ParseSlurmTimeFormat(value == nullptr ? "" : value);
    if (!parsed.ok()) {
      std::fprintf(stderr, "%s: error: %s\n", program_invocation_short_name,
                   std::string(parsed.status().message()).c_str());
      return new SlurmTimeFormat();
    }
    return new SlurmTimeFormat(*std::move(parsed));
  }();
  return *format;
}

std::string FormatSlurmTimestamp(absl::Time t, absl::TimeZone tz) {
  return FormatSlurmTimestamp(t, tz, ProcessTimeFormat(), absl::Now());
}

}  // namespace canopy::slurm
