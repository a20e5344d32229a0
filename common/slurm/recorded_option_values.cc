// The option values Canopy checks and records (recorded_option_values.h).
#include "common/slurm/recorded_option_values.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/slurm/begin_time.h"
#include "common/slurm/digits.h"
#include "common/slurm/option_errors.h"
#include "common/slurm/option_values.h"

namespace canopy::slurm {
namespace {

using option_errors::Error;
using option_errors::kMaxCount;
using option_errors::Spec;

}  // namespace

namespace {

struct MailWord {
  absl::string_view name;
  uint16_t bits;
};

// parse_mail_type's words; ALL is everything but the time limits and ARRAY_TASKS.
constexpr MailWord kMailWords[] = {
    {"ARRAY_TASKS", kMailArrayTasks},
    {"BEGIN", kMailBegin},
    {"END", kMailEnd},
    {"FAIL", kMailFail},
    {"INVALID_DEPEND", kMailInvalidDepend},
    {"REQUEUE", kMailRequeue},
    {"ALL", kMailInvalidDepend | kMailBegin | kMailEnd | kMailFail | kMailRequeue | kMailStageOut},
    {"STAGE_OUT", kMailStageOut},
    {"TIME_LIMIT", kMailTime100},
    {"TIME_LIMIT_90", kMailTime90},
    {"TIME_LIMIT_80", kMailTime80},
    {"TIME_LIMIT_50", kMailTime50},
};

// print_mail_type's order.
constexpr MailWord kMailNames[] = {
    {"ARRAY_TASKS", kMailArrayTasks},
    {"INVALID_DEPEND", kMailInvalidDepend},
    {"BEGIN", kMailBegin},
    {"END", kMailEnd},
    {"FAIL", kMailFail},
    {"REQUEUE", kMailRequeue},
    {"STAGE_OUT", kMailStageOut},
    {"TIME_LIMIT_50", kMailTime50},
    {"TIME_LIMIT_80", kMailTime80},
    {"TIME_LIMIT_90", kMailTime90},
    {"TIME_LIMIT", kMailTime100},
};

// strtol's view of `s` in `base`: leading blanks, a sign, digits (and "0x" in base 16). Returns
// the value (clamped to LONG's range) and how many characters it used; used == 0 when there are
// no digits.
struct Strtol {
  int64_t value = 0;
  size_t used = 0;
};
Strtol ParseStrtol(absl::string_view s, int base) {
  size_t i = 0;
  while (i < s.size() && absl::ascii_isspace(static_cast<unsigned char>(s[i]))) {
    ++i;
  }
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    negative = s[i] == '-';
    ++i;
  }
  if (base == 16 && i + 1 < s.size() && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
    i += 2;
  }
  const size_t first = i;
  int64_t value = 0;
  for (; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    int digit = 0;
    if (absl::ascii_isdigit(c)) {
      digit = c - '0';
    } else if (base == 16 && absl::ascii_isxdigit(c)) {
      digit = absl::ascii_tolower(c) - 'a' + 10;
    } else {
      break;
    }
    if (value < (int64_t{1} << 58)) {
      value = value * base + digit;
    }
  }
  if (i == first) {
    return Strtol{};
  }
  return Strtol{negative ? -value : value, i};
}

// Slurm's _isvalue (slurm_resource_info.c): a decimal digit, or a run of hex digits up to the
// next ',' or the end.
bool IsListValue(absl::string_view rest) {
  if (!rest.empty() && IsDigit(rest[0])) {
    return true;
  }
  size_t i = 0;
  while (i < rest.size() && absl::ascii_isxdigit(static_cast<unsigned char>(rest[i]))) {
    ++i;
  }
  return i == rest.size() || rest[i] == ',';
}

// Replaces each ',' that is not followed by a value with ';', as Slurm does before splitting
// --hint (a value: a digit) and --cpu-bind (IsListValue) lists ("map_cpu:0,1,rank" ->
// "map_cpu:0,1;rank").
std::string SemicolonsBetweenWords(absl::string_view value, bool cpu_bind) {
  std::string out(value);
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] != ',') {
      continue;
    }
    const absl::string_view rest = absl::string_view(value).substr(i + 1);
    const bool is_value = cpu_bind ? IsListValue(rest) : (!rest.empty() && IsDigit(rest[0]));
    if (!is_value) {
      out[i] = ';';
    }
  }
  return out;
}

bool IsNodeDistribution(absl::string_view word) {
  return absl::EqualsIgnoreCase(word, "block") || absl::EqualsIgnoreCase(word, "cyclic");
}

bool IsInnerDistribution(absl::string_view word) {
  return IsNodeDistribution(word) || absl::EqualsIgnoreCase(word, "fcyclic");
}

absl::Status DistributionError() { return Spec("distribution"); }

// _valid_num_list of tres_bind.c: numbers (hex for masks, "0x" allowed), each optionally
// "*COUNT".
absl::Status CheckGpuNumberList(absl::string_view list, bool hex) {
  for (absl::string_view item : absl::StrSplit(list, ',', absl::SkipEmpty())) {
    absl::string_view digits = item;
    if (hex) {
      absl::ConsumePrefix(&digits, "0x");
    }
    for (char c : digits) {
      const bool valid = hex ? absl::ascii_isxdigit(static_cast<unsigned char>(c)) : IsDigit(c);
      if (!valid && c != '*') {
        return Error(absl::StrCat("Failed to validate ", digits, ", offending character is ",
                                  std::string(1, c)));
      }
    }
    const Strtol n = ParseStrtol(digits, hex ? 16 : 10);
    absl::string_view rest = digits.substr(n.used);
    if (n.value < 0 || (!rest.empty() && rest[0] != '*')) {
      return absl::InvalidArgumentError("");
    }
    if (!rest.empty()) {
      rest.remove_prefix(1);
      const Strtol times = ParseStrtol(rest, 10);
      if (times.value < 0 || times.used != rest.size()) {
        return absl::InvalidArgumentError("");
      }
    }
  }
  return absl::OkStatus();
}

// _valid_gpu_bind: only the first letter of "closest" and "none" is compared, as in Slurm.
absl::Status CheckGpuBindValue(absl::string_view value) {
  if (absl::StartsWithIgnoreCase(value, "verbose,")) {
    value.remove_prefix(8);
  }
  if (absl::StartsWithIgnoreCase(value, "c") || absl::StartsWithIgnoreCase(value, "n")) {
    return absl::OkStatus();
  }
  if (absl::StartsWithIgnoreCase(value, "map_gpu:")) {
    return CheckGpuNumberList(value.substr(8), false);
  }
  if (absl::StartsWithIgnoreCase(value, "mask_gpu:")) {
    return CheckGpuNumberList(value.substr(9), true);
  }
  for (absl::string_view prefix : {absl::string_view("per_task:"), absl::string_view("single:")}) {
    if (absl::StartsWithIgnoreCase(value, prefix)) {
      return ParseStrtol(value.substr(prefix.size()), 10).value < 0 ? absl::InvalidArgumentError("")
                                                                    : absl::OkStatus();
    }
  }
  return absl::InvalidArgumentError("");
}

}  // namespace

absl::StatusOr<uint16_t> ParseMailType(absl::string_view value) {
  uint16_t bits = 0;
  for (absl::string_view word : absl::StrSplit(value, ',', absl::SkipEmpty())) {
    if (absl::EqualsIgnoreCase(word, "NONE")) {
      return uint16_t{0};
    }
    for (const MailWord& w : kMailWords) {
      if (absl::EqualsIgnoreCase(word, w.name)) {
        bits |= w.bits;
      }
    }
  }
  if (bits == 0) {
    return Spec("mail-type");
  }
  return bits;
}

std::string MailTypeString(uint16_t bits) {
  std::vector<absl::string_view> names;
  for (const MailWord& w : kMailNames) {
    if ((bits & w.bits) != 0) {
      names.push_back(w.name);
    }
  }
  return names.empty() ? "NONE" : absl::StrJoin(names, ",");
}

absl::StatusOr<std::string> ParseDistribution(absl::string_view value) {
  if (absl::StartsWithIgnoreCase(value, "plane")) {
    const size_t eq = value.find('=');
    absl::string_view size = eq == absl::string_view::npos ? "" : value.substr(eq + 1);
    const Strtol n = ParseStrtol(size, 10);
    if (n.used == 0 || n.used != size.size() || n.value <= 0 || n.value > kMaxCount) {
      return absl::InvalidArgumentError(
          "error: Invalid plane size or size not specified\n"
          "error: Invalid --distribution specification");
    }
    return absl::StrCat("plane=", n.value);
  }
  if (value.empty() || value[0] == ',') {
    return DistributionError();
  }
  const size_t comma = value.find(',');
  const absl::string_view base = value.substr(0, comma);
  const absl::string_view flag =
      comma == absl::string_view::npos ? absl::string_view() : value.substr(comma + 1);
  std::vector<std::string> levels;
  for (absl::string_view word : absl::StrSplit(base, ':', absl::SkipEmpty())) {
    if (levels.size() == 3) {
      return DistributionError();
    }
    if (word == "*") {
      // Slurm's defaults: block across nodes, cyclic across sockets, the socket level's across
      // cores.
      levels.push_back(levels.empty() ? "block" : levels.size() == 1 ? "cyclic" : levels[1]);
    } else {
      levels.push_back(absl::AsciiStrToLower(word));
    }
  }
  std::string name;
  if (levels.size() == 1 && (IsNodeDistribution(levels[0]) || levels[0] == "arbitrary")) {
    name = levels[0];
  } else if (levels.size() == 1 && levels[0] == "hostfile") {
    name = "arbitrary";
  } else if (levels.size() >= 2 && IsNodeDistribution(levels[0]) &&
             IsInnerDistribution(levels[1]) &&
             (levels.size() == 2 || IsInnerDistribution(levels[2]))) {
    name = absl::StrJoin(levels, ":");
  } else if (levels.size() == 1 && (levels[0] == "pack" || levels[0] == "nopack")) {
    name = levels[0];  // a flag alone: the default distribution, packed or not
  } else {
    return DistributionError();
  }
  if (!flag.empty()) {
    if (!absl::EqualsIgnoreCase(flag, "pack") && !absl::EqualsIgnoreCase(flag, "nopack")) {
      return DistributionError();
    }
    absl::StrAppend(&name, ",", absl::AsciiStrToLower(flag));
  }
  return name;
}

absl::StatusOr<bool> CheckHint(absl::string_view value) {
  const std::string words = SemicolonsBetweenWords(value, false);
  for (absl::string_view word : absl::StrSplit(words, ';')) {
    if (absl::EqualsIgnoreCase(word, "help")) {
      return true;
    }
    if (!absl::EqualsIgnoreCase(word, "compute_bound") &&
        !absl::EqualsIgnoreCase(word, "memory_bound") &&
        !absl::EqualsIgnoreCase(word, "multithread") &&
        !absl::EqualsIgnoreCase(word, "nomultithread")) {
      return WithExitCode(
          Error(absl::StrCat("unrecognized --hint argument \"", word, "\", see --hint=help")), 1);
    }
  }
  return false;
}

absl::StatusOr<bool> CheckCpuBind(absl::string_view value) {
  const std::string words = SemicolonsBetweenWords(value, true);
  auto failed = [](absl::string_view why) {
    return WithExitCode(absl::InvalidArgumentError(absl::StrCat(
                            "error: ", why, "\nfatal: Failed to parse --cpu-bind= values.")),
                        1);
  };
  static constexpr absl::string_view kWords[] = {
      "q",      "quiet",   "v",    "verbose", "one_thread", "no",      "none", "rank", "rank_ldom",
      "socket", "sockets", "core", "cores",   "thread",     "threads", "ldom", "ldoms"};
  // The list forms and their short spellings, as Slurm's prefix tests.
  static constexpr std::pair<absl::string_view, absl::string_view> kLists[] = {
      {"map_cpu", "mapcpu"},
      {"mask_cpu", "maskcpu"},
      {"map_ldom", "mapldom"},
      {"mask_ldom", "maskldom"}};
  for (absl::string_view word : absl::StrSplit(words, ';')) {
    if (absl::EqualsIgnoreCase(word, "help")) {
      return true;
    }
    bool known = false;
    for (absl::string_view w : kWords) {
      known = known || absl::EqualsIgnoreCase(word, w);
    }
    for (const auto& [name, short_name] : kLists) {
      if (known || (!absl::StartsWithIgnoreCase(word, name) &&
                    !absl::StartsWithIgnoreCase(word, short_name))) {
        continue;
      }
      known = true;
      // strsep at ':' or '=': the list is the text between the first and the second of them.
      const size_t sep = word.find_first_of(":=");
      absl::string_view list = sep == absl::string_view::npos ? "" : word.substr(sep + 1);
      list = list.substr(0, list.find_first_of(":="));
      if (list.empty()) {
        return failed(absl::StrCat("missing list for \"--cpu-bind=", name, ":<list>\""));
      }
    }
    if (!known) {
      return failed(absl::StrCat("unrecognized --cpu-bind argument \"", word, "\""));
    }
  }
  return false;
}

absl::Status CheckGpuBind(absl::string_view value) {
  const std::string tres = absl::StrCat("gpu:", value);
  for (absl::string_view item : absl::StrSplit(tres, ';', absl::SkipEmpty())) {
    const size_t colon = item.find(':');
    absl::Status status = absl::InvalidArgumentError("");
    if (colon != absl::string_view::npos && item.substr(0, colon) == "gpu") {
      status = CheckGpuBindValue(item.substr(colon + 1));
    }
    if (!status.ok()) {
      const std::string line = absl::StrCat("error: Invalid --gpu-bind argument: ", tres);
      return absl::InvalidArgumentError(
          status.message().empty() ? line : absl::StrCat(status.message(), "\n", line));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<absl::Time> ParseDeadline(absl::string_view value, absl::Time now,
                                         absl::TimeZone tz) {
  absl::StatusOr<absl::Time> t = ParseBeginTime(value, now, tz);
  if (t.ok()) {
    return t;
  }
  // ParseBeginTime's message starts with Slurm's "Invalid time specification (pos=N): "; what
  // follows (the value, then Canopy's explanation) becomes the value alone, as parse_time logs.
  const absl::string_view message = t.status().message();
  const size_t colon = message.find("): ");
  const std::string line = colon == absl::string_view::npos
                               ? std::string(message)
                               : absl::StrCat(message.substr(0, colon + 3), value);
  return absl::InvalidArgumentError(
      absl::StrCat("error: ", line, "\nerror: Invalid --deadline specification"));
}

absl::StatusOr<uint32_t> ResolveRunAs(
    absl::string_view value, absl::string_view long_name, uint32_t caller_uid,
    absl::FunctionRef<std::optional<uint32_t>(const std::string&)> lookup) {
  if (caller_uid != 0) {
    return WithExitCode(Error(absl::StrCat("--", long_name, " only permitted by root user")), 255);
  }
  uint32_t id = 0;
  if (absl::SimpleAtoi(value, &id)) {
    return id;
  }
  if (std::optional<uint32_t> found = lookup(std::string(value)); found.has_value()) {
    return *found;
  }
  return WithExitCode(Spec(long_name), 255);
}

absl::StatusOr<GetUserEnv> ParseGetUserEnv(std::optional<absl::string_view> value) {
  GetUserEnv out;
  if (!value.has_value()) {
    return out;
  }
  const Strtol n = ParseStrtol(*value, 10);
  out.timeout = n.value;
  const absl::string_view rest = value->substr(n.used);
  if (rest.empty()) {
    return out;
  }
  const char mode = absl::ascii_toupper(static_cast<unsigned char>(rest[0]));
  if (mode != 'S' && mode != 'L') {
    return Spec("get-user-env");
  }
  out.mode = mode;
  return out;
}

absl::Status CheckPropagate(absl::string_view value) {
  if (value == "ALL" || value == "NONE") {
    return absl::OkStatus();
  }
  static constexpr absl::string_view kRlimits[] = {"CPU", "FSIZE", "DATA",   "STACK",   "CORE",
                                                   "RSS", "NPROC", "NOFILE", "MEMLOCK", "AS"};
  for (absl::string_view name :
       absl::StrSplit(value, absl::ByAnyChar(", \t\n"), absl::SkipEmpty())) {
    absl::string_view bare = name;
    absl::ConsumePrefix(&bare, "RLIMIT_");
    bool known = false;
    for (absl::string_view r : kRlimits) {
      known = known || bare == r;
    }
    if (!known) {
      return WithExitCode(
          absl::InvalidArgumentError(absl::StrCat(
              "error: Bad rlimit name: ", bare, "\nerror: --propagate=", value, " is not valid.")),
          1);
    }
  }
  return absl::OkStatus();
}

}  // namespace canopy::slurm
