#include "common/slurm/sbatch_options.h"

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
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/slurm/hostlist.h"
#include "common/slurm/time_format.h"

namespace canopy::slurm {
namespace {

constexpr absl::string_view kTryHelp = "\nTry \"sbatch --help\" for more information";
constexpr int64_t kMaxNice = 2147483645;  // Slurm's NICE_OFFSET - 3
constexpr int64_t kMaxCount = 2147483647;

enum class ArgKind { kNone, kRequired, kOptional };

enum class Opt {
  kJobName,
  kPartition,
  kAccount,
  kNodes,
  kNtasks,
  kNtasksPerNode,
  kCpusPerTask,
  kMem,
  kGres,
  kGpusPerNode,
  kGpus,
  kExclusive,
  kTime,
  kSwitches,
  kNodelist,
  kExclude,
  kOutput,
  kError,
  kOpenMode,
  kChdir,
  kExport,
  kRequeue,
  kNoRequeue,
  kHold,
  kParsable,
  kTestOnly,
  kWrap,
  kArray,
  kNice,
  kSignal,
  kBegin,
  kDependency,
};

struct OptionSpec {
  absl::string_view long_name;
  char short_name;  // '\0' when there is none
  ArgKind arg;
  Opt id;
};

constexpr OptionSpec kOptions[] = {
    {"job-name", 'J', ArgKind::kRequired, Opt::kJobName},
    {"partition", 'p', ArgKind::kRequired, Opt::kPartition},
    {"account", 'A', ArgKind::kRequired, Opt::kAccount},
    {"nodes", 'N', ArgKind::kRequired, Opt::kNodes},
    {"ntasks", 'n', ArgKind::kRequired, Opt::kNtasks},
    {"ntasks-per-node", '\0', ArgKind::kRequired, Opt::kNtasksPerNode},
    {"cpus-per-task", 'c', ArgKind::kRequired, Opt::kCpusPerTask},
    {"mem", '\0', ArgKind::kRequired, Opt::kMem},
    {"gres", '\0', ArgKind::kRequired, Opt::kGres},
    {"gpus-per-node", '\0', ArgKind::kRequired, Opt::kGpusPerNode},
    {"gpus", 'G', ArgKind::kRequired, Opt::kGpus},
    {"exclusive", '\0', ArgKind::kOptional, Opt::kExclusive},
    {"time", 't', ArgKind::kRequired, Opt::kTime},
    {"switches", '\0', ArgKind::kRequired, Opt::kSwitches},
    {"nodelist", 'w', ArgKind::kRequired, Opt::kNodelist},
    {"exclude", 'x', ArgKind::kRequired, Opt::kExclude},
    {"output", 'o', ArgKind::kRequired, Opt::kOutput},
    {"error", 'e', ArgKind::kRequired, Opt::kError},
    {"open-mode", '\0', ArgKind::kRequired, Opt::kOpenMode},
    {"chdir", 'D', ArgKind::kRequired, Opt::kChdir},
    {"export", '\0', ArgKind::kRequired, Opt::kExport},
    {"requeue", '\0', ArgKind::kNone, Opt::kRequeue},
    {"no-requeue", '\0', ArgKind::kNone, Opt::kNoRequeue},
    {"hold", 'H', ArgKind::kNone, Opt::kHold},
    {"parsable", '\0', ArgKind::kNone, Opt::kParsable},
    {"test-only", '\0', ArgKind::kNone, Opt::kTestOnly},
    {"wrap", '\0', ArgKind::kRequired, Opt::kWrap},
    {"array", 'a', ArgKind::kRequired, Opt::kArray},
    {"nice", '\0', ArgKind::kOptional, Opt::kNice},
    {"signal", '\0', ArgKind::kRequired, Opt::kSignal},
    {"begin", 'b', ArgKind::kRequired, Opt::kBegin},
    {"dependency", 'd', ArgKind::kRequired, Opt::kDependency},
};

const OptionSpec* FindLong(absl::string_view name) {
  for (const OptionSpec& spec : kOptions) {
    if (spec.long_name == name) {
      return &spec;
    }
  }
  return nullptr;
}

const OptionSpec* FindShort(char c) {
  for (const OptionSpec& spec : kOptions) {
    if (spec.short_name != '\0' && spec.short_name == c) {
      return &spec;
    }
  }
  return nullptr;
}

absl::Status Error(absl::string_view text) {
  return absl::InvalidArgumentError(absl::StrCat("error: ", text));
}

absl::Status Spec(absl::string_view long_name) {
  return Error(absl::StrCat("Invalid --", long_name, " specification"));
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

absl::StatusOr<int64_t> ParsePositive(absl::string_view value, absl::string_view long_name) {
  std::optional<int64_t> n = ParseCount(value);
  if (!n.has_value() || *n <= 0) {
    return Error(absl::StrCat("Invalid numeric value \"", value, "\" for --", long_name, "."));
  }
  return *n;
}

absl::Status ParseNodes(absl::string_view value, SbatchOptions& o) {
  std::vector<absl::string_view> parts = absl::StrSplit(value, absl::MaxSplits('-', 1));
  auto invalid = [](absl::string_view text) {
    return Error(absl::StrCat("\"", text, "\" is not a valid node count"));
  };
  int64_t min = 1;
  if (!parts[0].empty() || parts.size() == 1) {
    std::optional<int64_t> n = ParseCount(parts[0]);
    if (!n.has_value()) {
      return invalid(parts[0]);
    }
    min = *n;
  }
  int64_t max = min;
  if (parts.size() == 2) {
    std::optional<int64_t> n = ParseCount(parts[1]);
    if (!n.has_value()) {
      return invalid(parts[1].empty() ? value : parts[1]);
    }
    max = *n;
    if (max < min) {
      return Error(
          absl::StrCat("Maximum node count ", max, " is less than minimum node count ", min));
    }
  }
  o.min_nodes = min;
  o.max_nodes = max;
  return absl::OkStatus();
}

// Slurm's str_to_mbytes: digits, then an optional unit K/M/G/T (any case; M by default), then an
// optional 'B'. Kibibytes round up to whole MiB.
absl::Status ParseMem(absl::string_view value, SbatchOptions& o) {
  size_t digits = 0;
  while (digits < value.size() && absl::ascii_isdigit(static_cast<unsigned char>(value[digits]))) {
    ++digits;
  }
  int64_t n = 0;
  if (digits == 0 || digits > 15 || !absl::SimpleAtoi(value.substr(0, digits), &n)) {
    return Spec("mem");
  }
  absl::string_view suffix = value.substr(digits);
  int64_t mib = n;
  if (!suffix.empty()) {
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
        return Spec("mem");
    }
    suffix.remove_prefix(1);
    if (!suffix.empty() && !(suffix.size() == 1 && (suffix[0] == 'B' || suffix[0] == 'b'))) {
      return Spec("mem");
    }
  }
  o.mem_per_node_mib = mib;
  return absl::OkStatus();
}

absl::Status GresError() { return Error("Invalid generic resource (gres) specification"); }

// "[TYPE:]N" for --gpus-per-node and --gpus.
absl::StatusOr<std::pair<std::string, int64_t>> ParseTypedCount(absl::string_view value) {
  std::vector<absl::string_view> parts = absl::StrSplit(value, ':');
  if (parts.size() > 2 || (parts.size() == 2 && parts[0].empty())) {
    return GresError();
  }
  std::optional<int64_t> n = ParseCount(parts.back());
  if (!n.has_value()) {
    return GresError();
  }
  return std::make_pair(parts.size() == 2 ? std::string(parts[0]) : std::string(), *n);
}

// --gres=NAME[:TYPE][:COUNT][,...]; only "gpu" items are interpreted.
absl::Status ParseGres(absl::string_view value, SbatchOptions& o) {
  if (absl::EqualsIgnoreCase(value, "none")) {
    o.gpus_per_node.reset();
    o.gpu_type.clear();
    o.other_gres.clear();
    return absl::OkStatus();
  }
  std::vector<std::string> other;
  std::optional<std::pair<std::string, int64_t>> gpu;
  for (absl::string_view item : absl::StrSplit(value, ',')) {
    std::vector<absl::string_view> parts = absl::StrSplit(item, ':');
    if (parts[0].empty() || parts.size() > 3) {
      return GresError();
    }
    if (parts[0] != "gpu") {
      other.emplace_back(item);
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
    if (gpu.has_value()) {
      return GresError();
    }
    gpu = std::make_pair(std::move(type), count);
  }
  o.other_gres = std::move(other);
  if (gpu.has_value()) {
    o.gpu_type = std::move(gpu->first);
    o.gpus_per_node = gpu->second;
  }
  return absl::OkStatus();
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
      {"HUP", 1},   {"INT", 2},   {"QUIT", 3},  {"ABRT", 6},  {"KILL", 9},
      {"USR1", 10}, {"USR2", 12}, {"ALRM", 14}, {"TERM", 15}, {"CONT", 18},
      {"STOP", 19}, {"TSTP", 20}, {"TTIN", 21}, {"TTOU", 22}, {"URG", 23},
  };
  for (const auto& [n, number] : kNames) {
    if (n == bare) {
      return number;
    }
  }
  return std::nullopt;
}

absl::Status ParseSignal(absl::string_view value, SbatchOptions& o) {
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
  o.signal = signal;
  return absl::OkStatus();
}

absl::Status ParseSwitches(absl::string_view value, SbatchOptions& o) {
  absl::string_view count = value;
  std::optional<absl::Duration> wait;
  if (size_t at = value.find('@'); at != absl::string_view::npos) {
    count = value.substr(0, at);
    absl::StatusOr<absl::Duration> d = ParseSlurmDuration(ToStd(value.substr(at + 1)));
    if (!d.ok()) {
      return Spec("switches");
    }
    wait = *d;
  }
  absl::StatusOr<int64_t> n = ParsePositive(count, "switches");
  if (!n.ok()) {
    return n.status();
  }
  o.switches = *n;
  o.switches_wait = wait;
  return absl::OkStatus();
}

absl::Status ParseTime(absl::string_view value, SbatchOptions& o) {
  absl::StatusOr<absl::Duration> d = ParseSlurmDuration(ToStd(value));
  if (!d.ok()) {
    return Spec("time");
  }
  if (*d == absl::ZeroDuration()) {
    o.time_limit = absl::InfiniteDuration();
  } else if (*d == absl::InfiniteDuration()) {
    o.time_limit = *d;
  } else {
    o.time_limit = absl::Ceil(*d, absl::Minutes(1));
  }
  return absl::OkStatus();
}

void ParseExport(absl::string_view value, SbatchOptions& o) {
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
  o.export_env = std::move(e);
}

absl::Status CheckHostlist(absl::string_view value, absl::string_view long_name) {
  absl::StatusOr<std::vector<std::string>> hosts = ExpandHostlist(ToStd(value));
  if (!hosts.ok()) {
    return Error(
        absl::StrCat("Invalid --", long_name, " specification: ", hosts.status().message()));
  }
  return absl::OkStatus();
}

// Applies one option. `value` is nullopt only for kNone options and bare optional ones.
absl::Status Apply(const OptionSpec& spec, const std::optional<std::string>& arg,
                   SbatchOptions& o) {
  const std::string value = arg.value_or("");
  switch (spec.id) {
    case Opt::kJobName:
      o.job_name = value;
      return absl::OkStatus();
    case Opt::kPartition:
      o.partition = value;
      return absl::OkStatus();
    case Opt::kAccount:
      o.account = value;
      return absl::OkStatus();
    case Opt::kNodes:
      return ParseNodes(value, o);
    case Opt::kNtasks:
    case Opt::kNtasksPerNode:
    case Opt::kCpusPerTask: {
      absl::StatusOr<int64_t> n = ParsePositive(value, spec.long_name);
      if (!n.ok()) {
        return n.status();
      }
      (spec.id == Opt::kNtasks          ? o.ntasks
       : spec.id == Opt::kNtasksPerNode ? o.ntasks_per_node
                                        : o.cpus_per_task) = *n;
      return absl::OkStatus();
    }
    case Opt::kMem:
      return ParseMem(value, o);
    case Opt::kGres:
      return ParseGres(value, o);
    case Opt::kGpusPerNode:
    case Opt::kGpus: {
      absl::StatusOr<std::pair<std::string, int64_t>> typed = ParseTypedCount(value);
      if (!typed.ok()) {
        return typed.status();
      }
      o.gpu_type = typed->first;
      (spec.id == Opt::kGpus ? o.gpus_total : o.gpus_per_node) = typed->second;
      return absl::OkStatus();
    }
    case Opt::kExclusive:
      if (!arg.has_value()) {
        o.exclusive = ExclusiveMode::kExclusive;
      } else if (absl::EqualsIgnoreCase(value, "user")) {
        o.exclusive = ExclusiveMode::kUser;
      } else if (absl::EqualsIgnoreCase(value, "mcs")) {
        o.exclusive = ExclusiveMode::kMcs;
      } else {
        return Spec("exclusive");
      }
      return absl::OkStatus();
    case Opt::kTime:
      return ParseTime(value, o);
    case Opt::kSwitches:
      return ParseSwitches(value, o);
    case Opt::kNodelist:
    case Opt::kExclude: {
      absl::Status status = CheckHostlist(value, spec.long_name);
      if (!status.ok()) {
        return status;
      }
      (spec.id == Opt::kNodelist ? o.nodelist : o.exclude) = value;
      return absl::OkStatus();
    }
    case Opt::kOutput:
      o.output = value;
      return absl::OkStatus();
    case Opt::kError:
      o.error = value;
      return absl::OkStatus();
    case Opt::kOpenMode:
      if (!value.empty() && (value[0] == 'a' || value[0] == 'A')) {
        o.open_mode = OpenMode::kAppend;
      } else if (!value.empty() && (value[0] == 't' || value[0] == 'T')) {
        o.open_mode = OpenMode::kTruncate;
      } else {
        return Spec("open-mode");
      }
      return absl::OkStatus();
    case Opt::kChdir:
      o.chdir = value;
      return absl::OkStatus();
    case Opt::kExport:
      ParseExport(value, o);
      return absl::OkStatus();
    case Opt::kRequeue:
      o.requeue = true;
      return absl::OkStatus();
    case Opt::kNoRequeue:
      o.requeue = false;
      return absl::OkStatus();
    case Opt::kHold:
      o.hold = true;
      return absl::OkStatus();
    case Opt::kParsable:
      o.parsable = true;
      return absl::OkStatus();
    case Opt::kTestOnly:
      o.test_only = true;
      return absl::OkStatus();
    case Opt::kWrap:
      o.wrap = value;
      return absl::OkStatus();
    case Opt::kArray:
      o.array = value;
      return absl::OkStatus();
    case Opt::kNice: {
      if (!arg.has_value()) {
        o.nice = 100;
        return absl::OkStatus();
      }
      int64_t n = 0;
      if (!absl::SimpleAtoi(value, &n) || value.empty() || absl::ascii_isspace(value[0])) {
        return Error("Invalid --nice value");
      }
      if (n > kMaxNice || n < -kMaxNice) {
        return Error(absl::StrCat("Invalid --nice value, out of range (+/- ", kMaxNice, ")"));
      }
      o.nice = n;
      return absl::OkStatus();
    }
    case Opt::kSignal:
      return ParseSignal(value, o);
    case Opt::kBegin:
      o.begin = value;
      return absl::OkStatus();
    case Opt::kDependency:
      o.dependency = value;
      return absl::OkStatus();
  }
  return absl::InternalError("unhandled sbatch option");
}

absl::Status GetoptError(absl::string_view text) {
  return absl::InvalidArgumentError(absl::StrCat(text, kTryHelp));
}

// getopt_long with a leading '+': options are applied to `o` in order; returns the index of the
// first non-option argument (argv.size() when there is none).
absl::StatusOr<size_t> ParseOptions(const std::vector<std::string>& argv, SbatchOptions& o) {
  size_t i = 0;
  while (i < argv.size()) {
    const std::string& arg = argv[i];
    if (arg == "--") {
      return i + 1;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      return i;
    }
    ++i;
    if (arg[1] == '-') {
      absl::string_view body = absl::string_view(arg).substr(2);
      size_t eq = body.find('=');
      absl::string_view name = body.substr(0, eq);
      const OptionSpec* spec = FindLong(name);
      if (spec == nullptr) {
        return GetoptError(absl::StrCat("unrecognized option '", arg, "'"));
      }
      std::optional<std::string> value;
      if (eq != absl::string_view::npos) {
        if (spec->arg == ArgKind::kNone) {
          return GetoptError(
              absl::StrCat("option '--", spec->long_name, "' doesn't allow an argument"));
        }
        value = std::string(body.substr(eq + 1));
      } else if (spec->arg == ArgKind::kRequired) {
        if (i >= argv.size()) {
          return GetoptError(absl::StrCat("option '--", spec->long_name, "' requires an argument"));
        }
        value = argv[i++];
      }
      absl::Status status = Apply(*spec, value, o);
      if (!status.ok()) {
        return status;
      }
      continue;
    }
    // A bundle of short options: "-H", "-N2", "-HN2", "-N 2".
    for (size_t k = 1; k < arg.size(); ++k) {
      const OptionSpec* spec = FindShort(arg[k]);
      if (spec == nullptr) {
        return GetoptError(absl::StrCat("invalid option -- '", std::string(1, arg[k]), "'"));
      }
      std::optional<std::string> value;
      if (spec->arg == ArgKind::kRequired) {
        if (k + 1 < arg.size()) {
          value = arg.substr(k + 1);
        } else if (i < argv.size()) {
          value = argv[i++];
        } else {
          return GetoptError(
              absl::StrCat("option requires an argument -- '", std::string(1, arg[k]), "'"));
        }
      }
      absl::Status status = Apply(*spec, value, o);
      if (!status.ok()) {
        return status;
      }
      if (value.has_value()) {
        break;
      }
    }
  }
  return i;
}

bool IsSpace(char c) { return absl::ascii_isspace(static_cast<unsigned char>(c)); }

// Splits the text after "#SBATCH" as Slurm 22.05's _get_argument() does.
absl::Status SplitDirective(absl::string_view rest, int line_number,
                            std::vector<std::string>& out) {
  size_t pos = 0;
  while (true) {
    const size_t start = pos;
    while (pos < rest.size() && IsSpace(rest[pos])) {
      ++pos;
    }
    if (pos >= rest.size()) {
      return absl::OkStatus();
    }
    std::string word;
    char quote = '\0';
    bool escape = false;
    while (pos < rest.size() && (quote != '\0' || !IsSpace(rest[pos]))) {
      const char c = rest[pos];
      if (escape) {
        escape = false;
      } else if (c == '\\') {
        escape = true;
        ++pos;
        continue;
      } else if (quote != '\0') {
        if (c == quote) {
          quote = '\0';
          ++pos;
          continue;
        }
      } else if (c == '"' || c == '\'') {
        quote = c;
        ++pos;
        continue;
      } else if (c == '#') {
        break;  // an unquoted, unescaped '#': the rest of the line is a comment
      }
      word.push_back(c);
      ++pos;
    }
    if (quote != '\0') {
      return absl::InvalidArgumentError(absl::StrCat("fatal: line ", line_number, ": Unmatched `",
                                                     std::string(1, quote), "` in [",
                                                     rest.substr(start), "]"));
    }
    if (word.empty()) {
      return absl::OkStatus();  // Slurm stops at an empty word ("" or a comment)
    }
    out.push_back(std::move(word));
  }
}

}  // namespace

absl::StatusOr<SbatchOptions> ParseSbatchCommandLine(const std::vector<std::string>& argv) {
  SbatchOptions o;
  absl::StatusOr<size_t> first = ParseOptions(argv, o);
  if (!first.ok()) {
    return first.status();
  }
  if (*first < argv.size()) {
    o.script_path = argv[*first];
    o.script_args.assign(argv.begin() + static_cast<std::ptrdiff_t>(*first) + 1, argv.end());
  }
  return o;
}

absl::StatusOr<std::vector<std::string>> ExtractSbatchDirectives(absl::string_view script) {
  constexpr absl::string_view kMagic = "#SBATCH";
  std::vector<std::string> args;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(script, '\n')) {
    ++line_number;
    if (absl::StartsWith(line, kMagic)) {
      absl::Status status = SplitDirective(line.substr(kMagic.size()), line_number, args);
      if (!status.ok()) {
        return status;
      }
      continue;
    }
    absl::string_view stripped = absl::StripLeadingAsciiWhitespace(line);
    if (!stripped.empty() && stripped[0] != '#') {
      break;  // the first command ends the directives
    }
  }
  return args;
}

absl::StatusOr<SbatchOptions> ParseSbatch(absl::string_view script,
                                          const std::vector<std::string>& argv) {
  if (script.empty()) {
    return Error("Batch script is empty!");
  }
  if (!absl::StartsWith(script, "#!")) {
    return absl::InvalidArgumentError(
        "error: This does not look like a batch script.  The first\n"
        "error: line must start with #! followed by the path to an interpreter.\n"
        "error: For instance: #!/bin/sh");
  }
  if (absl::StrContains(script, "\r\n")) {
    return absl::InvalidArgumentError(
        "error: Batch script contains DOS line breaks (\\r\\n)\n"
        "error: instead of expected UNIX line breaks (\\n).");
  }
  absl::StatusOr<std::vector<std::string>> directives = ExtractSbatchDirectives(script);
  if (!directives.ok()) {
    return directives.status();
  }
  SbatchOptions o;
  absl::StatusOr<size_t> end = ParseOptions(*directives, o);
  if (!end.ok()) {
    return end.status();
  }
  if (*end < directives->size()) {
    return Error(absl::StrCat("Invalid directive found in batch script: ", (*directives)[*end]));
  }
  end = ParseOptions(argv, o);
  if (!end.ok()) {
    return end.status();
  }
  if (*end < argv.size()) {
    o.script_path = argv[*end];
    o.script_args.assign(argv.begin() + static_cast<std::ptrdiff_t>(*end) + 1, argv.end());
  }
  return o;
}

}  // namespace canopy::slurm
