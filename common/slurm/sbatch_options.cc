#include "common/slurm/sbatch_options.h"

#include <cstddef>
#include <cstdint>
#include <map>
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
#include "common/slurm/recorded_option_values.h"
#include "common/slurm/sbatch_option_appliers.h"
#include "common/slurm/time_format.h"

namespace canopy::slurm {
namespace {

using namespace sbatch_internal;  // NOLINT(build/namespaces): the option appliers

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
  kQuiet,
  kTestOnly,
  kWrap,
  kArray,
  kNice,
  kSignal,
  kBegin,
  kDependency,
  kKillOnInvalidDep,
  kComment,
  kWckey,
  kMailType,
  kMailUser,
  kExportFile,
  kGetUserEnv,
  kPropagate,
  kGpusPerTask,
  kGpuBind,
  kCpusPerGpu,
  kMemPerGpu,
  kDistribution,
  kHint,
  kOvercommit,
  kReservation,
  kDeadline,
  kDelayBoot,
  kContainer,
  kUid,
  kGid,
  kWait,
  kHelp,
  kUsage,
  kVersion,
  // Environment variables only (sbatch has no such option): SBATCH_REQ_SWITCH and
  // SBATCH_WAIT4SWITCH, the two halves of --switches.
  kSwitchCount,
  kSwitchWait,
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
    {"quiet", 'Q', ArgKind::kNone, Opt::kQuiet},
    {"test-only", '\0', ArgKind::kNone, Opt::kTestOnly},
    {"wrap", '\0', ArgKind::kRequired, Opt::kWrap},
    {"array", 'a', ArgKind::kRequired, Opt::kArray},
    {"nice", '\0', ArgKind::kOptional, Opt::kNice},
    {"signal", '\0', ArgKind::kRequired, Opt::kSignal},
    {"begin", 'b', ArgKind::kRequired, Opt::kBegin},
    {"dependency", 'd', ArgKind::kRequired, Opt::kDependency},
    {"kill-on-invalid-dep", '\0', ArgKind::kRequired, Opt::kKillOnInvalidDep},
    {"comment", '\0', ArgKind::kRequired, Opt::kComment},
    {"wckey", '\0', ArgKind::kRequired, Opt::kWckey},
    {"mail-type", '\0', ArgKind::kRequired, Opt::kMailType},
    {"mail-user", '\0', ArgKind::kRequired, Opt::kMailUser},
    {"export-file", '\0', ArgKind::kRequired, Opt::kExportFile},
    {"get-user-env", '\0', ArgKind::kOptional, Opt::kGetUserEnv},
    {"propagate", '\0', ArgKind::kOptional, Opt::kPropagate},
    {"gpus-per-task", '\0', ArgKind::kRequired, Opt::kGpusPerTask},
    {"gpu-bind", '\0', ArgKind::kRequired, Opt::kGpuBind},
    {"cpus-per-gpu", '\0', ArgKind::kRequired, Opt::kCpusPerGpu},
    {"mem-per-gpu", '\0', ArgKind::kRequired, Opt::kMemPerGpu},
    {"distribution", 'm', ArgKind::kRequired, Opt::kDistribution},
    {"hint", '\0', ArgKind::kRequired, Opt::kHint},
    {"overcommit", 'O', ArgKind::kNone, Opt::kOvercommit},
    {"reservation", '\0', ArgKind::kRequired, Opt::kReservation},
    {"deadline", '\0', ArgKind::kRequired, Opt::kDeadline},
    {"delay-boot", '\0', ArgKind::kRequired, Opt::kDelayBoot},
    {"container", '\0', ArgKind::kRequired, Opt::kContainer},
    {"uid", '\0', ArgKind::kRequired, Opt::kUid},
    {"gid", '\0', ArgKind::kRequired, Opt::kGid},
    {"wait", 'W', ArgKind::kNone, Opt::kWait},
    {"help", 'h', ArgKind::kNone, Opt::kHelp},
    {"usage", '\0', ArgKind::kNone, Opt::kUsage},
    {"version", 'V', ArgKind::kNone, Opt::kVersion},
};

// The environment-only options, outside the getopt table.
constexpr OptionSpec kSwitchCountSpec{"switches", '\0', ArgKind::kRequired, Opt::kSwitchCount};
constexpr OptionSpec kSwitchWaitSpec{"", '\0', ArgKind::kRequired, Opt::kSwitchWait};

// sbatch(1)'s INPUT ENVIRONMENT VARIABLES (Slurm 22.05) for the options above, in the order sbatch
// reads them (SLURM_HINT before SBATCH_HINT, so the latter wins).
struct EnvironmentOption {
  absl::string_view variable;
  Opt option;
};
constexpr EnvironmentOption kSbatchEnvironment[] = {
    {"SBATCH_ACCOUNT", Opt::kAccount},
    {"SBATCH_ARRAY_INX", Opt::kArray},
    {"SBATCH_CONTAINER", Opt::kContainer},
    {"SBATCH_CPUS_PER_GPU", Opt::kCpusPerGpu},
    {"SBATCH_DELAY_BOOT", Opt::kDelayBoot},
    {"SBATCH_DISTRIBUTION", Opt::kDistribution},
    {"SBATCH_EXCLUSIVE", Opt::kExclusive},
    {"SBATCH_EXPORT", Opt::kExport},
    {"SBATCH_GET_USER_ENV", Opt::kGetUserEnv},
    {"SBATCH_GRES", Opt::kGres},
    {"SBATCH_GPUS", Opt::kGpus},
    {"SBATCH_GPU_BIND", Opt::kGpuBind},
    {"SBATCH_GPUS_PER_NODE", Opt::kGpusPerNode},
    {"SBATCH_GPUS_PER_TASK", Opt::kGpusPerTask},
    {"SLURM_HINT", Opt::kHint},
    {"SBATCH_HINT", Opt::kHint},
    {"SBATCH_JOB_NAME", Opt::kJobName},
    {"SBATCH_MEM_PER_GPU", Opt::kMemPerGpu},
    {"SBATCH_MEM_PER_NODE", Opt::kMem},
    {"SBATCH_NO_REQUEUE", Opt::kNoRequeue},
    {"SBATCH_OPEN_MODE", Opt::kOpenMode},
    {"SBATCH_OVERCOMMIT", Opt::kOvercommit},
    {"SBATCH_PARTITION", Opt::kPartition},
    {"SBATCH_QOS", Opt::kQos},
    {"SBATCH_REQ_SWITCH", Opt::kSwitchCount},
    {"SBATCH_REQUEUE", Opt::kRequeue},
    {"SBATCH_RESERVATION", Opt::kReservation},
    {"SBATCH_SIGNAL", Opt::kSignal},
    {"SBATCH_TIMELIMIT", Opt::kTime},
    {"SBATCH_WAIT", Opt::kWait},
    {"SBATCH_WAIT4SWITCH", Opt::kSwitchWait},
    {"SBATCH_WCKEY", Opt::kWckey},
    {"SBATCH_ERROR", Opt::kError},
    {"SBATCH_INPUT", Opt::kInput},
    {"SBATCH_OUTPUT", Opt::kOutput},
};

constexpr OptionTable kTable{"sbatch", Ordering::kRequireOrder, kOptions};

// Applies one option from `source`. `arg` is nullopt only for kNone options and bare optional
// ones.
absl::Status Apply(const OptionSpec& spec, std::optional<absl::string_view> arg,
                   OptionSource source, SbatchOptions& o) {
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
      o.mem_source = source;
      return Store([&] { return ParseMemMib(value); }, o.mem_per_node_mib);
    case Opt::kGres:
      return ApplyGres(value, o);
    case Opt::kGpusPerNode:
      o.gpus_per_node_text = std::string(value);
      return ApplyGpus(value, o.gpus_per_node, o);
    case Opt::kGpus:
      o.gpus_text = std::string(value);
      return ApplyGpus(value, o.gpus_total, o);
    case Opt::kExclusive:
      return Store([&] { return ParseExclusive(arg); }, o.exclusive);
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
      return Store([&] { return ParseOpenMode(value); }, o.open_mode);
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
    case Opt::kQuiet:
      return flag(o.quiet);
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
    case Opt::kComment:
      return set(o.comment);
    case Opt::kWckey:
      return set(o.wckey);
    case Opt::kMailType:
      return ApplyMailType(value, o);
    case Opt::kMailUser:
      return set(o.mail_user);
    case Opt::kExportFile:
      return set(o.export_file);
    case Opt::kGetUserEnv:
      return Store([&] { return ParseGetUserEnv(arg); }, o.get_user_env);
    case Opt::kPropagate:
      o.propagate = std::string(arg.value_or("ALL"));
      return absl::OkStatus();
    case Opt::kGpusPerTask:
      return ApplyGpusPerTask(value, o);
    case Opt::kGpuBind:
      if (absl::Status s = CheckGpuBind(value); !s.ok()) {
        return s;
      }
      return set(o.gpu_bind);
    case Opt::kCpusPerGpu:
      return Store([&] { return ParsePositiveCount(value, spec.long_name); }, o.cpus_per_gpu);
    case Opt::kMemPerGpu:
      o.mem_per_gpu_source = source;
      return Store([&] { return ParseSizeMib(value, spec.long_name); }, o.mem_per_gpu_mib);
    case Opt::kDistribution: {
      absl::StatusOr<std::string> dist = ParseDistribution(value);
      if (!dist.ok()) {
        return dist.status();
      }
      o.distribution = *std::move(dist);
      return absl::OkStatus();
    }
    case Opt::kHint:
      o.hint = std::string(value);
      return absl::OkStatus();
    case Opt::kOvercommit:
      return flag(o.overcommit);
    case Opt::kReservation:
      return set(o.reservation);
    case Opt::kDeadline:
      return set(o.deadline);
    case Opt::kDelayBoot:
      return ApplyDelayBoot(value, o);
    case Opt::kContainer:
      return set(o.container);
    case Opt::kUid:
      return set(o.uid);
    case Opt::kGid:
      return set(o.gid);
    case Opt::kWait:
      return flag(o.wait);
    case Opt::kHelp:
    case Opt::kUsage:
    case Opt::kVersion:
      return absl::OkStatus();  // acted on in the first pass only (FindSbatchInfoRequest)
    case Opt::kSwitchCount:
      return Store([&] { return ParsePositiveCount(value, spec.long_name); }, o.switches);
    case Opt::kSwitchWait:
      ApplySwitchWait(value, o);
      return absl::OkStatus();
  }
  return absl::InternalError("unhandled sbatch option");
}

// An environment flag set to anything but "", "yes" or a non-zero number: the option goes back
// to its default, as Slurm's reset functions do.
void Reset(Opt option, SbatchOptions& o) {
  switch (option) {
    case Opt::kRequeue:
    case Opt::kNoRequeue:
      o.requeue.reset();
      break;
    case Opt::kOvercommit:
      o.overcommit = false;
      break;
    case Opt::kWait:
      o.wait = false;
      break;
    default:
      break;
  }
}

// Applies one option and gives its error the exit status sbatch ends with: the value parsers
// that Slurm runs through parse_int or fatal() set 1; every other option error is exit(-1).
absl::Status ApplyOption(const OptionSpec& spec, std::optional<absl::string_view> arg,
                         OptionSource source, SbatchOptions& o) {
  return WithDefaultExitCode(Apply(spec, arg, source, o), 255);
}

const OptionSpec* SpecOf(Opt option) {
  if (option == Opt::kSwitchCount) {
    return &kSwitchCountSpec;
  }
  if (option == Opt::kSwitchWait) {
    return &kSwitchWaitSpec;
  }
  for (const OptionSpec& spec : kOptions) {
    if (spec.IdAs<Opt>() == option) {
      return &spec;
    }
  }
  return nullptr;
}

absl::Status ApplyEnvironment(const std::map<std::string, std::string>& env, SbatchOptions& o) {
  for (const EnvironmentOption& e : kSbatchEnvironment) {
    auto it = env.find(std::string(e.variable));
    if (it == env.end()) {
      continue;
    }
    const OptionSpec* found = SpecOf(e.option);
    if (found == nullptr) {
      return absl::InternalError(absl::StrCat("no option for ", e.variable));
    }
    const OptionSpec& spec = *found;
    const absl::string_view value = it->second;
    std::optional<absl::string_view> arg = value;
    if (spec.arg == ArgKind::kNone) {
      if (!EnvironmentFlagIsSet(value)) {
        Reset(e.option, o);
        continue;
      }
      arg.reset();
    } else if (spec.arg == ArgKind::kOptional && value.empty()) {
      arg.reset();
    }
    if (absl::Status s = ApplyOption(spec, arg, OptionSource::kEnvironment, o); !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

// Slurm's checks after all options (_validate_memory_options, then _opt_verify's hint check).
absl::Status Verify(SbatchOptions& o) {
  const bool mem = o.mem_per_node_mib.has_value();
  const bool per_gpu = o.mem_per_gpu_mib.has_value();
  if (mem && per_gpu) {
    const bool mem_cli = o.mem_source == OptionSource::kCommandLine;
    const bool per_gpu_cli = o.mem_per_gpu_source == OptionSource::kCommandLine;
    if (mem_cli && per_gpu_cli) {
      return WithExitCode(
          absl::InvalidArgumentError("fatal: --mem, --mem-per-cpu, and --mem-per-gpu are mutually "
                                     "exclusive."),
          1);
    }
    if (mem_cli) {
      o.mem_per_gpu_mib.reset();
      o.mem_per_gpu_source = OptionSource::kUnset;
    } else if (per_gpu_cli) {
      o.mem_per_node_mib.reset();
      o.mem_source = OptionSource::kUnset;
    } else {
      return WithExitCode(
          absl::InvalidArgumentError("fatal: SLURM_MEM_PER_CPU, SLURM_MEM_PER_GPU, and "
                                     "SLURM_MEM_PER_NODE are mutually exclusive."),
          1);
    }
  }
  if (o.hint.has_value()) {
    absl::StatusOr<bool> help = CheckHint(*o.hint);
    if (!help.ok()) {
      return help.status();
    }
    if (*help) {
      o.info = InfoRequest::kHintHelp;
    }
  }
  return absl::OkStatus();
}

// getopt_long with sbatch's table: options are applied to `o` in order; returns the operands
// (the first non-option argument and everything after it).
absl::StatusOr<std::vector<std::string>> ParseOptions(const std::vector<std::string>& argv,
                                                      absl::Span<const ExtraOption> extra,
                                                      SbatchOptions& o) {
  const std::vector<OptionSpec> options = WithExtraOptions(kOptions, extra);
  absl::StatusOr<std::vector<std::string>> operands =
      ParseCommandLine({kTable.command, kTable.ordering, options}, argv,
                       [&](const OptionSpec& spec, std::optional<absl::string_view> value) {
                         if (spec.id >= kExtraOptionId) {
                           o.plugin_options.emplace_back(extra[spec.id - kExtraOptionId].name,
                                                         std::string(value.value_or("")));
                           return absl::OkStatus();
                         }
                         return ApplyOption(spec, value, OptionSource::kCommandLine, o);
                       });
  if (!operands.ok()) {
    return WithDefaultExitCode(operands.status(), 255);
  }
  return operands;
}

void SetScript(const std::vector<std::string>& operands, SbatchOptions& o) {
  if (!operands.empty()) {
    o.script_path = operands.front();
    o.script_args.assign(operands.begin() + 1, operands.end());
  }
}

}  // namespace

absl::StatusOr<InfoRequest> FindSbatchInfoRequest(const std::vector<std::string>& argv,
                                                  absl::Span<const ExtraOption> extra) {
  InfoRequest found = InfoRequest::kNone;
  const std::vector<OptionSpec> options = WithExtraOptions(kOptions, extra);
  absl::StatusOr<std::vector<std::string>> operands =
      ParseCommandLine({kTable.command, kTable.ordering, options}, argv,
                       [&found](const OptionSpec& spec, std::optional<absl::string_view>) {
                         switch (spec.IdAs<Opt>()) {  // plugin options: default
                           case Opt::kHelp:
                             found = InfoRequest::kHelp;
                             break;
                           case Opt::kUsage:
                             found = InfoRequest::kUsage;
                             break;
                           case Opt::kVersion:
                             found = InfoRequest::kVersion;
                             break;
                           default:
                             return absl::OkStatus();
                         }
                         return absl::CancelledError("found");  // the first one wins: stop here
                       });
  if (!operands.ok() && found == InfoRequest::kNone) {
    return WithDefaultExitCode(operands.status(), 255);
  }
  return found;
}

absl::StatusOr<SbatchOptions> ParseSbatchCommandLine(const std::vector<std::string>& argv,
                                                     absl::Span<const ExtraOption> extra) {
  SbatchOptions o;
  absl::StatusOr<std::vector<std::string>> operands = ParseOptions(argv, extra, o);
  if (!operands.ok()) {
    return operands.status();
  }
  SetScript(*operands, o);
  if (absl::Status s = Verify(o); !s.ok()) {
    return s;
  }
  return o;
}

absl::StatusOr<SbatchOptions> ParseSbatch(absl::string_view script,
                                          const std::vector<std::string>& argv,
                                          const std::map<std::string, std::string>& env,
                                          absl::Span<const ExtraOption> extra) {
  if (absl::Status s = CheckBatchScript(script); !s.ok()) {
    return s;
  }
  absl::StatusOr<std::vector<std::string>> directives = ExtractSbatchDirectives(script);
  if (!directives.ok()) {
    return WithDefaultExitCode(directives.status(), 1);  // fatal()
  }
  SbatchOptions o;
  absl::StatusOr<std::vector<std::string>> leftover = ParseOptions(*directives, extra, o);
  if (!leftover.ok()) {
    return leftover.status();
  }
  if (!leftover->empty()) {
    return WithExitCode(
        Error(absl::StrCat("Invalid directive found in batch script: ", leftover->front())), 255);
  }
  if (absl::Status s = ApplyEnvironment(env, o); !s.ok()) {
    return s;
  }
  absl::StatusOr<std::vector<std::string>> operands = ParseOptions(argv, extra, o);
  if (!operands.ok()) {
    return operands.status();
  }
  SetScript(*operands, o);
  if (absl::Status s = Verify(o); !s.ok()) {
    return s;
  }
  return o;
}

}  // namespace canopy::slurm
