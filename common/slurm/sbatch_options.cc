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
#include "common/slurm/getopt.h"
#include "common/slurm/option_values.h"
#include "common/slurm/time_format.h"

namespace canopy::slurm {
namespace {

constexpr int64_t kMaxNice = 2147483645;  // Slurm's NICE_OFFSET - 3

enum class Opt {
  kJobName,
  kPartition,
  kAccount,
  kQos,
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
  kInput,
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
  kKillOnInvalidDep,
};

constexpr OptionSpec kOptions[] = {
    {"job-name", 'J', ArgKind::kRequired, Opt::kJobName},
    {"partition", 'p', ArgKind::kRequired, Opt::kPartition},
    {"account", 'A', ArgKind::kRequired, Opt::kAccount},
    {"qos", 'q', ArgKind::kRequired, Opt::kQos},
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
    {"input", 'i', ArgKind::kRequired, Opt::kInput},
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
    {"kill-on-invalid-dep", '\0', ArgKind::kRequired, Opt::kKillOnInvalidDep},
};

constexpr OptionTable kTable{"sbatch", Ordering::kRequireOrder, kOptions};

absl::Status Error(absl::string_view text) {
  return absl::InvalidArgumentError(absl::StrCat("error: ", text));
}

absl::Status Spec(absl::string_view long_name) {
  return Error(absl::StrCat("Invalid --", long_name, " specification"));
}

// Stores `value` (or reports the error) through `parse`, a Slurm value parser.
template <typename T, typename Parse>
absl::Status Store(Parse parse, std::optional<T>& out) {
  auto parsed = parse();
  if (!parsed.ok()) {
    return parsed.status();
  }
  out = *std::move(parsed);
  return absl::OkStatus();
}

absl::Status ApplyNodes(absl::string_view value, SbatchOptions& o) {
  absl::StatusOr<NodeCount> n = ParseNodeCount(value);
  if (!n.ok()) {
    return n.status();
  }
  o.min_nodes = n->min;
  o.max_nodes = n->max;
  return absl::OkStatus();
}

absl::Status ApplyGres(absl::string_view value, SbatchOptions& o) {
  absl::StatusOr<GresRequest> gres = ParseGres(value);
  if (!gres.ok()) {
    return gres.status();
  }
  if (gres->none) {
    o.gpus_per_node.reset();
    o.gpu_type.clear();
    o.other_gres.clear();
    return absl::OkStatus();
  }
  o.other_gres = std::move(gres->other);
  if (gres->gpus_per_node.has_value()) {
    o.gpu_type = std::move(gres->gpu_type);
    o.gpus_per_node = gres->gpus_per_node;
  }
  return absl::OkStatus();
}

absl::Status ApplyGpus(absl::string_view value, std::optional<int64_t>& count, SbatchOptions& o) {
  absl::StatusOr<TypedCount> typed = ParseGpuCount(value);
  if (!typed.ok()) {
    return typed.status();
  }
  o.gpu_type = std::move(typed->type);
  count = typed->count;
  return absl::OkStatus();
}

absl::Status ApplySwitches(absl::string_view value, SbatchOptions& o) {
  absl::string_view count = value;
  std::optional<absl::Duration> wait;
  if (size_t at = value.find('@'); at != absl::string_view::npos) {
    count = value.substr(0, at);
    absl::StatusOr<absl::Duration> d =
        ParseSlurmDuration(std::string_view(value.data() + at + 1, value.size() - at - 1));
    if (!d.ok()) {
      return Spec("switches");
    }
    wait = *d;
  }
  absl::StatusOr<int64_t> n = ParsePositiveCount(count, "switches");
  if (!n.ok()) {
    return n.status();
  }
  o.switches = *n;
  o.switches_wait = wait;
  return absl::OkStatus();
}

absl::Status ApplyHostlist(absl::string_view value, absl::string_view long_name, std::string& out) {
  if (absl::Status s = CheckHostlist(value, long_name); !s.ok()) {
    return s;
  }
  out = std::string(value);
  return absl::OkStatus();
}

absl::Status ApplyExclusive(std::optional<absl::string_view> arg, SbatchOptions& o) {
  if (!arg.has_value()) {
    o.exclusive = ExclusiveMode::kExclusive;
  } else if (absl::EqualsIgnoreCase(*arg, "user")) {
    o.exclusive = ExclusiveMode::kUser;
  } else if (absl::EqualsIgnoreCase(*arg, "mcs")) {
    o.exclusive = ExclusiveMode::kMcs;
  } else {
    return Spec("exclusive");
  }
  return absl::OkStatus();
}

absl::Status ApplyOpenMode(absl::string_view value, SbatchOptions& o) {
  if (!value.empty() && (value[0] == 'a' || value[0] == 'A')) {
    o.open_mode = OpenMode::kAppend;
  } else if (!value.empty() && (value[0] == 't' || value[0] == 'T')) {
    o.open_mode = OpenMode::kTruncate;
  } else {
    return Spec("open-mode");
  }
  return absl::OkStatus();
}

absl::Status ApplyNice(std::optional<absl::string_view> arg, SbatchOptions& o) {
  if (!arg.has_value()) {
    o.nice = 100;
    return absl::OkStatus();
  }
  int64_t n = 0;
  if (!absl::SimpleAtoi(*arg, &n) || arg->empty() || absl::ascii_isspace((*arg)[0])) {
    return Error("Invalid --nice value");
  }
  if (n > kMaxNice || n < -kMaxNice) {
    return Error(absl::StrCat("Invalid --nice value, out of range (+/- ", kMaxNice, ")"));
  }
  o.nice = n;
  return absl::OkStatus();
}

// Applies one option. `arg` is nullopt only for kNone options and bare optional ones.
absl::Status Apply(const OptionSpec& spec, std::optional<absl::string_view> arg, SbatchOptions& o) {
  const absl::string_view value = arg.value_or("");
  auto set = [&](std::string& field) {
    field = std::string(value);
    return absl::OkStatus();
  };
  auto flag = [](bool& field) {
    field = true;
    return absl::OkStatus();
  };
  switch (spec.IdAs<Opt>()) {
    case Opt::kJobName:
      return set(o.job_name);
    case Opt::kPartition:
      return set(o.partition);
    case Opt::kAccount:
      return set(o.account);
    case Opt::kQos:
      return set(o.qos);
    case Opt::kNodes:
      return ApplyNodes(value, o);
    case Opt::kNtasks:
      return Store([&] { return ParsePositiveCount(value, spec.long_name); }, o.ntasks);
    case Opt::kNtasksPerNode:
      return Store([&] { return ParsePositiveCount(value, spec.long_name); }, o.ntasks_per_node);
    case Opt::kCpusPerTask:
      return Store([&] { return ParsePositiveCount(value, spec.long_name); }, o.cpus_per_task);
    case Opt::kMem:
      return Store([&] { return ParseMemMib(value); }, o.mem_per_node_mib);
    case Opt::kGres:
      return ApplyGres(value, o);
    case Opt::kGpusPerNode:
      return ApplyGpus(value, o.gpus_per_node, o);
    case Opt::kGpus:
      return ApplyGpus(value, o.gpus_total, o);
    case Opt::kExclusive:
      return ApplyExclusive(arg, o);
    case Opt::kTime:
      return Store([&] { return ParseTimeLimit(value); }, o.time_limit);
    case Opt::kSwitches:
      return ApplySwitches(value, o);
    case Opt::kNodelist:
      return ApplyHostlist(value, spec.long_name, o.nodelist);
    case Opt::kExclude:
      return ApplyHostlist(value, spec.long_name, o.exclude);
    case Opt::kOutput:
      return set(o.output);
    case Opt::kError:
      return set(o.error);
    case Opt::kOpenMode:
      return ApplyOpenMode(value, o);
    case Opt::kChdir:
      return set(o.chdir);
    case Opt::kInput:
      return set(o.input);
    case Opt::kExport:
      o.export_env = ParseExport(value);
      return absl::OkStatus();
    case Opt::kRequeue:
    case Opt::kNoRequeue:
      o.requeue = spec.IdAs<Opt>() == Opt::kRequeue;
      return absl::OkStatus();
    case Opt::kHold:
      return flag(o.hold);
    case Opt::kParsable:
      return flag(o.parsable);
    case Opt::kTestOnly:
      return flag(o.test_only);
    case Opt::kWrap:
      return set(o.wrap);
    case Opt::kArray:
      return set(o.array);
    case Opt::kNice:
      return ApplyNice(arg, o);
    case Opt::kSignal:
      return Store([&] { return ParseSignalSpec(value); }, o.signal);
    case Opt::kBegin:
      return set(o.begin);
    case Opt::kDependency:
      return set(o.dependency);
    case Opt::kKillOnInvalidDep:
      if (absl::EqualsIgnoreCase(value, "yes")) {
        o.kill_on_invalid_dep = true;
      } else if (absl::EqualsIgnoreCase(value, "no")) {
        o.kill_on_invalid_dep = false;
      } else {
        return Spec("kill-on-invalid-dep");
      }
      return absl::OkStatus();
  }
  return absl::InternalError("unhandled sbatch option");
}

// getopt_long with sbatch's table: options are applied to `o` in order; returns the operands
// (the first non-option argument and everything after it).
absl::StatusOr<std::vector<std::string>> ParseOptions(const std::vector<std::string>& argv,
                                                      SbatchOptions& o) {
  return ParseCommandLine(kTable, argv,
                          [&o](const OptionSpec& spec, std::optional<absl::string_view> value) {
                            return Apply(spec, value, o);
                          });
}

void SetScript(const std::vector<std::string>& operands, SbatchOptions& o) {
  if (!operands.empty()) {
    o.script_path = operands.front();
    o.script_args.assign(operands.begin() + 1, operands.end());
  }
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
  absl::StatusOr<std::vector<std::string>> operands = ParseOptions(argv, o);
  if (!operands.ok()) {
    return operands.status();
  }
  SetScript(*operands, o);
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
  absl::StatusOr<std::vector<std::string>> extra = ParseOptions(*directives, o);
  if (!extra.ok()) {
    return extra.status();
  }
  if (!extra->empty()) {
    return Error(absl::StrCat("Invalid directive found in batch script: ", extra->front()));
  }
  absl::StatusOr<std::vector<std::string>> operands = ParseOptions(argv, o);
  if (!operands.ok()) {
    return operands.status();
  }
  SetScript(*operands, o);
  return o;
}

}  // namespace canopy::slurm
