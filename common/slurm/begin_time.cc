// Reading --begin times (begin_time.h).
#include "common/slurm/begin_time.h"

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"

namespace canopy::slurm {
namespace {

constexpr absl::string_view kForms =
    "expected HH:MM[:SS] [AM|PM], YYYY-MM-DD[THH:MM[:SS]], MM/DD[/YY], "
    "now[+COUNT[seconds|minutes|hours|days|weeks]], today, tomorrow, midnight, noon, elevenses, "
    "fika or teatime";

struct Unit {
  absl::string_view name;
  int64_t seconds;
};
// Longest names first: "minutes" must not be read as "minute" + "s".
constexpr Unit kUnits[] = {{"seconds", 1},    {"second", 1},   {"minutes", 60}, {"minute", 60},
                           {"hours", 3600},   {"hour", 3600},  {"days", 86400}, {"day", 86400},
                           {"weeks", 604800}, {"week", 604800}};

struct Named {
  absl::string_view word;
  int hour;
};
constexpr Named kNamedTimes[] = {
    {"midnight", 0}, {"noon", 12}, {"elevenses", 11}, {"fika", 15}, {"teatime", 16}};

bool Digit(char c) { return absl::ascii_isdigit(static_cast<unsigned char>(c)); }

// What the text said, field by field; unset fields are filled in by the rules of parse_time.
struct Parts {
  std::optional<absl::CivilDay> date;  // year may be "unset": see year_given
  bool year_given = true;
  int month = 0;  // when !year_given: the date's month and day
  int day = 0;
  std::optional<int> hour;
  int minute = 0;
  int second = 0;
};

class Parser {
 public:
  Parser(absl::string_view text, absl::Time now, absl::TimeZone tz)
      : text_(text), now_(now), tz_(tz), today_(absl::ToCivilSecond(now, tz)) {}

  absl::StatusOr<absl::Time> Parse() {
    if (absl::StartsWithIgnoreCase(text_, "uts")) {
      return Uts();
    }
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '-') {
        ++pos_;
        continue;
      }
      absl::Status s = Word();
      if (s.ok()) {
        continue;
      }
      if (s.code() != absl::StatusCode::kNotFound) {
        return s;
      }
      if (c == 'T') {  // between a date and a time (after the words: "Today" is a word)
        ++pos_;
        continue;
      }
      if (!Digit(c)) {
        return Fail("");
      }
      const bool is_time = (pos_ + 1 < text_.size() && text_[pos_ + 1] == ':') ||
                           (pos_ + 2 < text_.size() && text_[pos_ + 2] == ':');
      if (absl::Status st = is_time ? Time() : Date(); !st.ok()) {
        return st;
      }
    }
    return Resolve();
  }

 private:
  absl::Status Fail(absl::string_view why) const {
    return absl::InvalidArgumentError(absl::StrCat("Invalid time specification (pos=", pos_,
                                                   "): ", text_, why.empty() ? "" : " (", why,
                                                   why.empty() ? "" : ")", "; ", kForms));
  }

  bool Take(absl::string_view word) {
    if (absl::StartsWithIgnoreCase(text_.substr(pos_), word)) {
      pos_ += word.size();
      return true;
    }
    return false;
  }

  // A number of exactly 1..`max_digits` digits (at least `min_digits`).
  std::optional<int> Digits(int min_digits, int max_digits) {
    int value = 0, n = 0;
    while (n < max_digits && pos_ < text_.size() && Digit(text_[pos_])) {
      value = value * 10 + (text_[pos_++] - '0');
      ++n;
    }
    if (n < min_digits) {
      return std::nullopt;
    }
    return value;
  }

  absl::StatusOr<absl::Time> Uts() {
    pos_ = 3;
    int64_t seconds = 0;
    size_t digits = 0;
    while (pos_ < text_.size() && Digit(text_[pos_]) && digits < 12) {
      seconds = seconds * 10 + (text_[pos_++] - '0');
      ++digits;
    }
    if (pos_ != text_.size() || seconds < 1000000) {
      return Fail("uts needs unix seconds, at least 1000000");
    }
    return absl::FromUnixSeconds(seconds);
  }

  // today, tomorrow, now[+-delta], or a named time of day. NotFound: not a word we know.
  absl::Status Word() {
    if (Take("today")) {
      SetDate(absl::CivilDay(today_));
      return absl::OkStatus();
    }
    if (Take("tomorrow")) {
      SetDate(absl::CivilDay(today_) + 1);
      return absl::OkStatus();
    }
    for (const Named& n : kNamedTimes) {
      if (Take(n.word)) {
        parts_.hour = n.hour;
        parts_.minute = parts_.second = 0;
        return absl::OkStatus();
      }
    }
    if (Take("now")) {
      return Now();
    }
    return absl::NotFoundError("");
  }

  void SetDate(absl::CivilDay day) {
    parts_.date = day;
    parts_.year_given = true;
  }

  absl::Status Now() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) {
      ++pos_;
    }
    int64_t delta = 0;
    if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) {
      const bool minus = text_[pos_] == '-';
      ++pos_;
      int64_t count = 0;
      int digits = 0;
      int64_t unit = 1;
      while (pos_ < text_.size()) {
        const char c = text_[pos_];
        if (c == ' ' || c == '\t') {
          ++pos_;
          continue;
        }
        if (Digit(c) && digits < 9) {
          count = count * 10 + (c - '0');
          ++digits;
          ++pos_;
          continue;
        }
        bool unit_found = false;
        for (const Unit& u : kUnits) {
          if (digits > 0 && Take(u.name)) {
            unit = u.seconds;
            unit_found = true;
            break;
          }
        }
        if (!unit_found) {
          return Fail(digits == 0 ? "a count must follow now+ or now-" : "unknown time unit");
        }
        break;
      }
      if (digits == 0) {
        return Fail("a count must follow now+ or now-");
      }
      delta = (minus ? -count : count) * unit;
    } else if (pos_ < text_.size()) {
      return Fail("only +COUNT or -COUNT may follow now");
    }
    const absl::CivilSecond later = absl::ToCivilSecond(now_ + absl::Seconds(delta), tz_);
    SetDate(absl::CivilDay(later));
    parts_.hour = later.hour();
    parts_.minute = later.minute();
    parts_.second = later.second();
    return absl::OkStatus();
  }

  // HH:MM[:SS] [AM|PM]
  absl::Status Time() {
    std::optional<int> hour = Digits(1, 2);
    if (!hour || *hour > 23 || pos_ >= text_.size() || text_[pos_] != ':') {
      return Fail("hours are 0 to 23, followed by ':'");
    }
    ++pos_;
    std::optional<int> minute = Digits(2, 2);
    if (!minute || *minute > 59) {
      return Fail("minutes are two digits, 00 to 59");
    }
    int second = 0;
    if (pos_ < text_.size() && text_[pos_] == ':') {
      ++pos_;
      std::optional<int> s = Digits(2, 2);
      if (!s || *s > 59) {
        return Fail("seconds are two digits, 00 to 59");
      }
      second = *s;
    }
    size_t after = pos_;
    while (after < text_.size() && (text_[after] == ' ' || text_[after] == '\t')) {
      ++after;
    }
    int h = *hour;
    const absl::string_view rest = text_.substr(after);
    if (absl::StartsWithIgnoreCase(rest, "pm")) {
      if (h > 12) {
        return Fail("a PM hour is 1 to 12");
      }
      h = h == 12 ? 12 : h + 12;
      pos_ = after + 2;
    } else if (absl::StartsWithIgnoreCase(rest, "am")) {
      if (h > 12) {
        return Fail("an AM hour is 1 to 12");
      }
      h = h == 12 ? 0 : h;
      pos_ = after + 2;
    }
    parts_.hour = h;
    parts_.minute = *minute;
    parts_.second = second;
    return absl::OkStatus();
  }

  // YYYY-MM-DD, or MM/DD[/YY], MM.DD[.YY], MMDD[YY].
  absl::Status Date() {
    const absl::string_view rest = text_.substr(pos_);
    if (rest.size() >= 8 && rest[4] == '-' && rest[7] == '-') {
      std::optional<int> year = Digits(4, 4);
      if (!year) {
        return Fail("a year has four digits");
      }
      ++pos_;  // '-'
      std::optional<int> month = Digits(1, 2);
      if (!month || *month < 1 || *month > 12) {
        return Fail("months are 1 to 12");
      }
      ++pos_;  // '-'
      std::optional<int> day = Digits(1, 2);
      if (!day || *day < 1 || *day > 31) {
        return Fail("days are 1 to 31");
      }
      return SetCheckedDate(*year, *month, *day);
    }
    std::optional<int> month = Digits(1, 2);
    if (!month || *month < 1 || *month > 12) {
      return Fail("months are 1 to 12");
    }
    if (pos_ < text_.size() && (text_[pos_] == '/' || text_[pos_] == '.')) {
      ++pos_;
    }
    std::optional<int> day = Digits(1, 2);
    if (!day || *day < 1 || *day > 31) {
      return Fail("days are 1 to 31");
    }
    if (pos_ < text_.size() && (text_[pos_] == '/' || text_[pos_] == '.')) {
      ++pos_;
    }
    if (pos_ < text_.size() && Digit(text_[pos_])) {
      std::optional<int> year = Digits(2, 2);
      if (!year) {
        return Fail("a short year has two digits");
      }
      return SetCheckedDate(2000 + *year, *month, *day);
    }
    // No year: decided once the time of day is known.
    if (absl::Status s = SetCheckedDate(static_cast<int>(today_.year()), *month, *day);
        !s.ok() && !(*month == 2 && *day == 29)) {
      return s;
    }
    parts_.date = std::nullopt;
    parts_.year_given = false;
    parts_.month = *month;
    parts_.day = *day;
    return absl::OkStatus();
  }

  absl::Status SetCheckedDate(int year, int month, int day) {
    const absl::CivilDay d(year, month, day);
    if (d.year() != year || d.month() != month || d.day() != day) {
      return Fail(absl::StrCat(year, "-", month, "-", day, " is not a date"));
    }
    SetDate(d);
    return absl::OkStatus();
  }

  absl::StatusOr<absl::Time> Resolve() {
    const bool have_date = parts_.date.has_value() || !parts_.year_given;
    if (!parts_.hour.has_value() && !have_date) {
      return Fail("no date or time given");
    }
    const int hour = parts_.hour.value_or(0);
    const int minute = parts_.hour.has_value() ? parts_.minute : 0;
    const int second = parts_.hour.has_value() ? parts_.second : 0;
    absl::CivilDay day;
    if (!have_date) {
      // A time alone: today if it is still ahead (to the minute, as Slurm compares), else
      // tomorrow.
      const bool ahead =
          hour > today_.hour() || (hour == today_.hour() && minute > today_.minute());
      day = absl::CivilDay(today_) + (ahead ? 0 : 1);
    } else if (!parts_.year_given) {
      const auto key = [](int mo, int d, int h, int mi) {
        return ((mo * 32 + d) * 24 + h) * 60 + mi;
      };
      const bool ahead = key(parts_.month, parts_.day, hour, minute) >
                         key(today_.month(), today_.day(), today_.hour(), today_.minute());
      const int year = static_cast<int>(today_.year()) + (ahead ? 0 : 1);
      day = absl::CivilDay(year, parts_.month, parts_.day);
      if (day.month() != parts_.month) {
        return Fail(absl::StrCat(parts_.month, "/", parts_.day, " is not a date in ", year));
      }
    } else {
      day = *parts_.date;
    }
    return absl::FromCivil(
        absl::CivilSecond(day.year(), day.month(), day.day(), hour, minute, second), tz_);
  }

  absl::string_view text_;
  absl::Time now_;
  absl::TimeZone tz_;
  absl::CivilSecond today_;
  size_t pos_ = 0;
  Parts parts_;
};

}  // namespace

absl::StatusOr<absl::Time> ParseBeginTime(absl::string_view text, absl::Time now,
                                          absl::TimeZone tz) {
  return Parser(text, now, tz).Parse();
}

}  // namespace canopy::slurm
