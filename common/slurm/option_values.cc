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
#include "common/slurm/digits.h"
#include "common/slurm/hostlist.h"
#include "common/slurm/option_errors.h"
#include "common/slurm/time_format.h"

namespace canopy::slurm {
namespace {

using option_errors::Error;
using option_errors::kMaxCount;
using option_errors::Spec;

// The payload WithExitCode sets; its value is the exit status in decimal.
constexpr absl::string_view kExitCodeUrl = "type.canopy/slurm.ExitCode";

// Found when Slurm builds the job request, after the options: sbatch and srun exit with 1.
absl::Status GresError() {
  return WithExitCode(Error("Invalid generic resource (gres) specification"), 1);
}

// Debian's Abseil has its own string_view; the sibling parsers take std::string_view.
std::string_view ToStd(absl::string_view s) { return std::string_view(s.data(), s.size()); }

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
      if (n > INT64_MAX / 1024) {
        return Spec(long_name);
      }
      mib = n * 1024;
      break;
    case 'T':
      if (n > INT64_MAX / (1024 * 1024)) {
        return Spec(long_name);
      }
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
  e.text = std::string(value);
  bool first = true;
  for (absl::string_view item : absl::StrSplit(value, ',', absl::SkipEmpty())) {
    if (first && absl::EqualsIgnoreCase(item, "ALL")) {
      e.all = true;
    } else if (!first && absl::EqualsIgnoreCase(item, "ALL")) {
      e.all = true;  // ALL later in the list: applied where it stands (ExportEnvironment)
      e.variables.emplace_back("ALL");
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
    if (item == "ALL") {
      for (const auto& [k, v] : env) {
        out.variables[k] = v;
      }
    } else if (eq != std::string::npos) {
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

}  // namespace canopy::slurm
