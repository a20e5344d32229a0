#include "ctl/sacct/past_time.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"
#include "common/slurm/begin_time.h"

namespace canopy::ctl::sacct {
namespace {

// Which parts the text gives, found by walking it as parse_time does. Only the parts that the
// past flag completes differently matter: the values themselves come from ParseBeginTime.
struct Shape {
  bool relative = false;  // today, tomorrow, now..., uts...: the same either way
  bool time = false;
  bool date = false;
  bool year = false;
};

bool Digit(absl::string_view s, size_t i) {
  return i < s.size() && absl::ascii_isdigit(static_cast<unsigned char>(s[i]));
}

Shape Classify(absl::string_view s) {
  Shape shape;
  if (absl::StartsWithIgnoreCase(s, "uts")) {
    shape.relative = true;
    return shape;
  }
  static constexpr absl::string_view kRelative[] = {"today", "tomorrow", "now"};
  static constexpr absl::string_view kTimes[] = {"midnight", "noon", "elevenses", "fika",
                                                 "teatime"};
  size_t pos = 0;
  while (pos < s.size()) {
    const char c = s[pos];
    if (c == ' ' || c == '\t' || c == '-' || c == 'T') {
      ++pos;
      continue;
    }
    const absl::string_view rest = s.substr(pos);
    for (absl::string_view word : kRelative) {
      if (absl::StartsWithIgnoreCase(rest, word)) {
        shape.relative = true;
        return shape;
      }
    }
    bool named = false;
    for (absl::string_view word : kTimes) {
      if (absl::StartsWithIgnoreCase(rest, word)) {
        shape.time = true;
        pos += word.size();
        named = true;
        break;
      }
    }
    if (named) {
      continue;
    }
    if (!Digit(s, pos)) {
      return shape;  // not a time at all: ParseBeginTime reports it
    }
    if ((pos + 1 < s.size() && s[pos + 1] == ':') || (pos + 2 < s.size() && s[pos + 2] == ':')) {
      shape.time = true;
      while (pos < s.size() && (Digit(s, pos) || s[pos] == ':')) {
        ++pos;
      }
      continue;
    }
    shape.date = true;
    if (pos + 7 < s.size() && s[pos + 4] == '-' && s[pos + 7] == '-') {
      shape.year = true;  // YYYY-MM-DD: nothing left that the past flag changes
      return shape;
    }
    // MM[./]DD[./][YY] or MMDD[YY]
    pos += Digit(s, pos + 1) ? 2 : 1;
    if (pos < s.size() && (s[pos] == '.' || s[pos] == '/')) {
      ++pos;
    }
    pos += Digit(s, pos + 1) ? 2 : 1;
    if (pos < s.size() && (s[pos] == '.' || s[pos] == '/')) {
      ++pos;
    }
    if (Digit(s, pos)) {
      shape.year = true;
      pos += 2;
    }
  }
  return shape;
}

// ParseBeginTime's message carries the accepted forms after Slurm's text; sacct prints only
// "Invalid time specification (pos=N): TEXT".
absl::Status SlurmError(const absl::Status& status, absl::string_view text) {
  const absl::string_view message = status.message();
  constexpr absl::string_view kPos = "(pos=";
  int pos = 0;
  if (const size_t at = message.find(kPos); at != absl::string_view::npos) {
    const size_t end = message.find(')', at);
    if (!absl::SimpleAtoi(message.substr(at + kPos.size(), end - at - kPos.size()), &pos)) {
      pos = 0;
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat("Invalid time specification (pos=", pos, "): ", text));
}

}  // namespace

absl::StatusOr<absl::Time> ParsePastTime(absl::string_view text, absl::Time now,
                                         absl::TimeZone tz) {
  absl::StatusOr<absl::Time> ahead = slurm::ParseBeginTime(text, now, tz);
  if (!ahead.ok()) {
    return SlurmError(ahead.status(), text);
  }
  const Shape shape = Classify(text);
  if (shape.relative || (shape.date && shape.year) || (!shape.date && !shape.time)) {
    return *ahead;
  }
  const absl::CivilSecond got = absl::ToCivilSecond(*ahead, tz);
  const absl::CivilSecond today = absl::ToCivilSecond(now, tz);
  if (!shape.date) {
    // A time of day alone: today.
    return absl::FromCivil(absl::CivilSecond(today.year(), today.month(), today.day(), got.hour(),
                                             got.minute(), got.second()),
                           tz);
  }
  // A date without a year: this year, or last year for a month still to come.
  const absl::civil_year_t year = got.month() > today.month() ? today.year() - 1 : today.year();
  return absl::FromCivil(
      absl::CivilSecond(year, got.month(), got.day(), got.hour(), got.minute(), got.second()), tz);
}

}  // namespace canopy::ctl::sacct
