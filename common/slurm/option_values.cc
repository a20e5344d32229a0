#include "common/slurm/option_values.h"

#include <algorithm>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/slurm/begin_time.h"
#include "common/slurm/hostlist.h"
#include "common/slurm/time_format.h"

namespace canopy::slurm {
namespace {

constexpr int64_t kMaxCount = 2147483647;

// The payload WithExitCode sets; its value is the exit status in decimal.
constexpr absl::string_view kExitCodeUrl = "type.canopy/slurm.ExitCode";

absl::Status Error(absl::string_view text) {
  return absl::InvalidArgumentError(absl::StrCat("error: ", text));
}

absl::Status Spec(absl::string_view long_name) {
  return Error(absl::StrCat("Invalid --", long_name, " specification"));
}

// Found when Slurm builds the job request, after the options: sbatch and srun exit with 1.
absl::Status GresError() {
  return WithExitCode(Error("Invalid generic resource (gres) specification"), 1);
}

// Debian's Abseil has its own string_view; the sibling parsers take std::string_view.
std::string_view ToStd(absl::string_view s) { return std::string_view(s.data(), s.size()); }

bool AllDigits(absl::string_view s) {
  if (s.empty()) {
    return false;
  }
  for (char c : s) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) {
      return false;
    }
  }
  return true;
}

// Unsigned decimal without sign or spaces, at most kMaxCount.
std::optional<int64_t> ParseCount(absl::string_view s) {
  int64_t value = 0;
  if (!AllDigits(s) || s.size() > 10 || !absl::SimpleAtoi(s, &value) || value > kMaxCount) {
    return std::nullopt;
  }
  return value;
}

}  // namespace

absl::StatusOr<NodeCount> ParseNodeCount(absl::string_view value) {
  std::vector<absl::string_view> parts = absl::StrSplit(value, absl::MaxSplits('-', 1));
  auto invalid = [](absl::string_view text) {
    return Error(absl::StrCat("\"", text, "\" is not a valid node count"));
  };
  NodeCount count;
  if (!parts[0].empty() || parts.size() == 1) {
    std::optional<int64_t> n = ParseCount(parts[0]);
    if (!n.has_value()) {
      return invalid(parts[0]);
    }
    count.min = *n;
  }
  count.max = count.min;
  if (parts.size() == 2) {
    std::optional<int64_t> n = ParseCount(parts[1]);
    if (!n.has_value()) {
      return invalid(parts[1].empty() ? value : parts[1]);
    }
    count.max = *n;
    if (count.max < count.min) {
      return Error(absl::StrCat("Maximum node count ", count.max,
                                " is less than minimum node count ", count.min));
    }
  }
  return count;
}

absl::StatusOr<int64_t> ParsePositiveCount(absl::string_view value, absl::string_view long_name) {
  std::optional<int64_t> n = ParseCount(value);
  if (!n.has_value() || *n <= 0) {
    return WithExitCode(
        Error(absl::StrCat("Invalid numeric value \"", value, "\" for --", long_name, ".")), 1);
  }
  return *n;
}

absl::StatusOr<int64_t> ParseMemMib(absl::string_view value) { return ParseSizeMib(value, "mem"); }

absl::StatusOr<int64_t> ParseSizeMib(absl::string_view value, absl::string_view long_name) {
  size_t digits = 0;
  while (digits < value.size() && absl::ascii_isdigit(static_cast<unsigned char>(value[digits]))) {
    ++digits;
  }
  int64_t n = 0;
  if (digits == 0 || digits > 15 || !absl::SimpleAtoi(value.substr(0, digits), &n)) {
    return Spec(long_name);
  }
  absl::string_view suffix = value.substr(digits);
  if (suffix.empty()) {
    return n;
  }
  int64_t mib = n;
  switch (absl::ascii_toupper(static_cast<unsigned char>(suffix[0]))) {
    case 'K':
      mib = (n + 1023) / 1024;
      break;
    case 'M':
      break;
    case 'G':
      mib = n * 1024;
      break;
    case 'T':
      mib = n * 1024 * 1024;
      break;
    default:
      return Spec(long_name);
  }
  suffix.remove_prefix(1);
  if (!suffix.empty() && !(suffix.size() == 1 && (suffix[0] == 'B' || suffix[0] == 'b'))) {
    return Spec(long_name);
  }
  return mib;
}

absl::StatusOr<absl::Duration> ParseTimeLimit(absl::string_view value) {
  absl::StatusOr<absl::Duration> d = ParseSlurmDuration(ToStd(value));
  if (!d.ok()) {
    return Spec("time");
  }
  if (*d == absl::ZeroDuration() || *d == absl::InfiniteDuration()) {
    return absl::InfiniteDuration();
  }
  return absl::Ceil(*d, absl::Minutes(1));
}

absl::StatusOr<GresRequest> ParseGres(absl::string_view value) {
  GresRequest request;
  if (absl::EqualsIgnoreCase(value, "none")) {
    request.none = true;
    return request;
  }
  for (absl::string_view item : absl::StrSplit(value, ',')) {
    std::vector<absl::string_view> parts = absl::StrSplit(item, ':');
    if (parts[0].empty() || parts.size() > 3) {
      return GresError();
    }
    if (parts[0] != "gpu") {
      request.other.emplace_back(item);
      continue;
    }
    std::string type;
    int64_t count = 1;
    if (parts.size() == 3) {
      std::optional<int64_t> n = ParseCount(parts[2]);
      if (parts[1].empty() || !n.has_value()) {
        return GresError();
      }
      type = std::string(parts[1]);
      count = *n;
    } else if (parts.size() == 2) {
      if (std::optional<int64_t> n = ParseCount(parts[1]); n.has_value()) {
        count = *n;
      } else if (!parts[1].empty()) {
        type = std::string(parts[1]);
      } else {
        return GresError();
      }
    }
    if (request.gpus_per_node.has_value()) {
      return GresError();
    }
    request.gpu_type = std::move(type);
    request.gpus_per_node = count;
  }
  return request;
}

absl::StatusOr<TypedCount> ParseGpuCount(absl::string_view value) {
  std::vector<absl::string_view> parts = absl::StrSplit(value, ':');
  if (parts.size() > 2 || (parts.size() == 2 && parts[0].empty())) {
    return GresError();
  }
  std::optional<int64_t> n = ParseCount(parts.back());
  if (!n.has_value()) {
    return GresError();
  }
  return TypedCount{parts.size() == 2 ? std::string(parts[0]) : std::string(), *n};
}

SbatchExport ParseExport(absl::string_view value) {
  SbatchExport e;
  e.all = false;
  bool first = true;
  for (absl::string_view item : absl::StrSplit(value, ',', absl::SkipEmpty())) {
    if (first && absl::EqualsIgnoreCase(item, "ALL")) {
      e.all = true;
    } else if (first && absl::EqualsIgnoreCase(item, "NONE")) {
      e.all = false;
    } else {
      e.variables.emplace_back(item);
    }
    first = false;
  }
  return e;
}

ExportedEnvironment ExportEnvironment(const std::optional<SbatchExport>& export_env,
                                      const std::map<std::string, std::string>& env) {
  ExportedEnvironment out;
  if (!export_env.has_value() || export_env->all) {
    out.variables = env;
  } else {
    // NONE and explicit lists still carry the caller's SLURM_* variables (sbatch(1), --export).
    for (const auto& [k, v] : env) {
      if (absl::StartsWith(k, "SLURM_")) {
        out.variables[k] = v;
      }
    }
    out.none = export_env->variables.empty();
  }
  if (!export_env.has_value()) {
    return out;
  }
  for (const std::string& item : export_env->variables) {
    const size_t eq = item.find('=');
    if (eq != std::string::npos) {
      out.variables[item.substr(0, eq)] = item.substr(eq + 1);
    } else if (auto it = env.find(item); it != env.end()) {
      out.variables[item] = it->second;
    }
  }
  return out;
}

std::optional<int> SignalNumber(absl::string_view name) {
  if (AllDigits(name)) {
    std::optional<int64_t> n = ParseCount(name);
    if (!n.has_value() || *n < 1 || *n > 127) {
      return std::nullopt;
    }
    return static_cast<int>(*n);
  }
  std::string upper = absl::AsciiStrToUpper(name);
  absl::string_view bare = upper;
  absl::ConsumePrefix(&bare, "SIG");
  static constexpr std::pair<absl::string_view, int> kNames[] = {
      {"HUP", SIGHUP},   {"INT", SIGINT},     {"QUIT", SIGQUIT}, {"ABRT", SIGABRT},
      {"KILL", SIGKILL}, {"USR1", SIGUSR1},   {"SEGV", SIGSEGV}, {"USR2", SIGUSR2},
      {"PIPE", SIGPIPE}, {"ALRM", SIGALRM},   {"TERM", SIGTERM}, {"CONT", SIGCONT},
      {"STOP", SIGSTOP}, {"TSTP", SIGTSTP},   {"TTIN", SIGTTIN}, {"TTOU", SIGTTOU},
      {"URG", SIGURG},   {"XCPU", SIGXCPU},   {"XFSZ", SIGXFSZ}, {"VTALRM", SIGVTALRM},
      {"PROF", SIGPROF}, {"WINCH", SIGWINCH}, {"BUS", SIGBUS},
  };
  for (const auto& [n, number] : kNames) {
    if (n == bare) {
      return number;
    }
  }
  return std::nullopt;
}

absl::StatusOr<SbatchSignal> ParseSignalSpec(absl::string_view value) {
  SbatchSignal signal;
  if (size_t colon = value.find(':'); colon != absl::string_view::npos) {
    absl::string_view flags = value.substr(0, colon);
    if (flags.empty()) {
      return Spec("signal");
    }
    for (char c : flags) {
      if (c == 'B' || c == 'b') {
        signal.batch_only = true;
      } else if (c == 'R' || c == 'r') {
        signal.reservation = true;
      } else {
        return Spec("signal");
      }
    }
    value.remove_prefix(colon + 1);
  }
  absl::string_view name = value;
  if (size_t at = value.find('@'); at != absl::string_view::npos) {
    name = value.substr(0, at);
    std::optional<int64_t> seconds = ParseCount(value.substr(at + 1));
    if (!seconds.has_value() || *seconds > 0xffff) {
      return Spec("signal");
    }
    signal.seconds = static_cast<int>(*seconds);
  }
  std::optional<int> number = SignalNumber(name);
  if (!number.has_value()) {
    return Spec("signal");
  }
  signal.signal_number = *number;
  return signal;
}

absl::Status CheckHostlist(absl::string_view value, absl::string_view long_name) {
  absl::StatusOr<std::vector<std::string>> hosts = ExpandHostlist(ToStd(value));
  if (!hosts.ok()) {
    return WithExitCode(
        Error(absl::StrCat("Invalid --", long_name, " specification: ", hosts.status().message())),
        1);
  }
  return absl::OkStatus();
}

absl::StatusOr<OpenMode> ParseOpenMode(absl::string_view value) {
  const char first =
      value.empty() ? '\0' : absl::ascii_tolower(static_cast<unsigned char>(value[0]));
  if (first == 'a') {
    return OpenMode::kAppend;
  }
  if (first == 't') {
    return OpenMode::kTruncate;
  }
  return Spec("open-mode");
}

absl::StatusOr<ExclusiveMode> ParseExclusive(std::optional<absl::string_view> value) {
  if (!value.has_value() || absl::EqualsIgnoreCase(*value, "exclusive")) {
    return ExclusiveMode::kExclusive;
  }
  if (absl::EqualsIgnoreCase(*value, "oversubscribe")) {
    return ExclusiveMode::kOversubscribe;
  }
  if (absl::EqualsIgnoreCase(*value, "user")) {
    return ExclusiveMode::kUser;
  }
  if (absl::EqualsIgnoreCase(*value, "mcs")) {
    return ExclusiveMode::kMcs;
  }
  return Spec("exclusive");
}

bool ExclusiveNodes(ExclusiveMode mode) {
  return mode == ExclusiveMode::kExclusive || mode == ExclusiveMode::kUser ||
         mode == ExclusiveMode::kMcs;
}

absl::string_view ExclusiveModeName(ExclusiveMode mode) {
  switch (mode) {
    case ExclusiveMode::kOversubscribe:
      return "oversubscribe";
    case ExclusiveMode::kUser:
      return "user";
    case ExclusiveMode::kMcs:
      return "mcs";
    case ExclusiveMode::kUnset:
    case ExclusiveMode::kExclusive:
      return "";
  }
  return "";
}

bool EnvironmentFlagIsSet(absl::string_view value) {
  int64_t n = 0;
  return value.empty() || absl::EqualsIgnoreCase(value, "yes") ||
         (absl::SimpleAtoi(value, &n) && n != 0 &&
          !absl::ascii_isspace(static_cast<unsigned char>(value[0])));
}

int64_t GpusPerNodeForTasks(int64_t gpus_per_task, std::optional<int64_t> ntasks,
                            std::optional<int64_t> ntasks_per_node, int64_t nodes) {
  nodes = std::max<int64_t>(1, nodes);
  const int64_t tasks = ntasks_per_node ? *ntasks_per_node
                        : ntasks        ? (*ntasks + nodes - 1) / nodes
                                        : 1;
  return std::min(gpus_per_task * tasks, kMaxCount);
}

absl::Status WithExitCode(absl::Status status, int exit_code) {
  if (!status.ok()) {
    status.SetPayload(kExitCodeUrl, absl::Cord(absl::StrCat(exit_code)));
  }
  return status;
}

absl::Status WithDefaultExitCode(absl::Status status, int exit_code) {
  if (status.ok() || status.GetPayload(kExitCodeUrl).has_value()) {
    return status;
  }
  return WithExitCode(std::move(status), exit_code);
}

int ExitCodeOf(const absl::Status& status) {
  if (status.ok()) {
    return 0;
  }
  if (auto code = status.GetPayload(kExitCodeUrl); code.has_value()) {
    int n = 0;
    if (absl::SimpleAtoi(std::string(*code), &n)) {
      return n;
    }
  }
  return absl::StrContains(status.message(), "Try \"") ? 255 : 1;
}

int InfoExitCode(InfoRequest request) {
  switch (request) {
    case InfoRequest::kHintHelp:
      return 1;
    case InfoRequest::kCpuBindHelp:
      return 255;
    case InfoRequest::kNone:
    case InfoRequest::kHelp:
    case InfoRequest::kUsage:
    case InfoRequest::kVersion:
      return 0;
  }
  return 0;
}

absl::StatusOr<TypedCount> ParseGpusPerTask(absl::string_view value) {
  absl::StatusOr<TypedCount> count = ParseGpuCount(value);
  if (count.ok() && count->count < 1) {
    return GresError();
  }
  return count;
}

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

bool IsDigit(char c) { return absl::ascii_isdigit(static_cast<unsigned char>(c)); }

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
