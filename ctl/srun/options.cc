#include "ctl/srun/options.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/slurm/getopt.h"
#include "common/slurm/option_values.h"
#include "common/slurm/recorded_option_values.h"
#include "common/slurm/time_format.h"

namespace canopy::ctl::srun {
namespace {

enum class Opt {
  kNodes,
  kNtasks,
  kNtasksPerNode,
  kCpusPerTask,
  kLabel,
  kOutput,
  kError,
  kJobName,
  kJobId,
  kChdir,
  kExport,
  kPartition,
  kTime,
  kNodelist,
  kExclude,
  kExclusive,
  kAccount,
  kGpusPerNode,
  kGres,
  kVerbose,
  kComment,
  kWckey,
  kMailType,
  kMailUser,
  kOpenMode,
  kPropagate,
  kGpusPerTask,
  kGpuBind,
  kCpusPerGpu,
  kMemPerGpu,
  kDistribution,
  kMpi,
  kCpuBind,
  kHint,
  kOvercommit,
  kOverlap,
  kUnbuffered,
  kReservation,
  kDeadline,
  kDelayBoot,
  kContainer,
  kUid,
  kGid,
  kWait,
  kTestOnly,
  kHelp,
  kUsage,
  kVersion,
};

using slurm::ArgKind;

constexpr slurm::OptionSpec kOptions[] = {
    {"nodes", 'N', ArgKind::kRequired, Opt::kNodes},
    {"ntasks", 'n', ArgKind::kRequired, Opt::kNtasks},
    {"ntasks-per-node", '\0', ArgKind::kRequired, Opt::kNtasksPerNode},
    {"cpus-per-task", 'c', ArgKind::kRequired, Opt::kCpusPerTask},
    {"label", 'l', ArgKind::kNone, Opt::kLabel},
    {"output", 'o', ArgKind::kRequired, Opt::kOutput},
    {"error", 'e', ArgKind::kRequired, Opt::kError},
    {"job-name", 'J', ArgKind::kRequired, Opt::kJobName},
    {"jobid", '\0', ArgKind::kRequired, Opt::kJobId},
    {"chdir", 'D', ArgKind::kRequired, Opt::kChdir},
    {"export", '\0', ArgKind::kRequired, Opt::kExport},
    {"partition", 'p', ArgKind::kRequired, Opt::kPartition},
    {"time", 't', ArgKind::kRequired, Opt::kTime},
    {"nodelist", 'w', ArgKind::kRequired, Opt::kNodelist},
    {"exclude", 'x', ArgKind::kRequired, Opt::kExclude},
    {"exclusive", '\0', ArgKind::kOptional, Opt::kExclusive},
    {"account", 'A', ArgKind::kRequired, Opt::kAccount},
    {"gpus-per-node", '\0', ArgKind::kRequired, Opt::kGpusPerNode},
    {"gres", '\0', ArgKind::kRequired, Opt::kGres},
    {"verbose", 'v', ArgKind::kNone, Opt::kVerbose},
    {"comment", '\0', ArgKind::kRequired, Opt::kComment},
    {"wckey", '\0', ArgKind::kRequired, Opt::kWckey},
    {"mail-type", '\0', ArgKind::kRequired, Opt::kMailType},
    {"mail-user", '\0', ArgKind::kRequired, Opt::kMailUser},
    {"open-mode", '\0', ArgKind::kRequired, Opt::kOpenMode},
    {"propagate", '\0', ArgKind::kOptional, Opt::kPropagate},
    {"gpus-per-task", '\0', ArgKind::kRequired, Opt::kGpusPerTask},
    {"gpu-bind", '\0', ArgKind::kRequired, Opt::kGpuBind},
    {"cpus-per-gpu", '\0', ArgKind::kRequired, Opt::kCpusPerGpu},
    {"mem-per-gpu", '\0', ArgKind::kRequired, Opt::kMemPerGpu},
    {"distribution", 'm', ArgKind::kRequired, Opt::kDistribution},
    {"mpi", '\0', ArgKind::kRequired, Opt::kMpi},
    {"cpu-bind", '\0', ArgKind::kRequired, Opt::kCpuBind},
    // OpenMPI's mpirun still spells it this way; Slurm keeps the alias.
    {"cpu_bind", '\0', ArgKind::kRequired, Opt::kCpuBind},
    {"hint", '\0', ArgKind::kRequired, Opt::kHint},
    {"overcommit", 'O', ArgKind::kNone, Opt::kOvercommit},
    {"overlap", '\0', ArgKind::kNone, Opt::kOverlap},
    {"unbuffered", 'u', ArgKind::kNone, Opt::kUnbuffered},
    {"reservation", '\0', ArgKind::kRequired, Opt::kReservation},
    {"deadline", '\0', ArgKind::kRequired, Opt::kDeadline},
    {"delay-boot", '\0', ArgKind::kRequired, Opt::kDelayBoot},
    {"container", '\0', ArgKind::kRequired, Opt::kContainer},
    {"uid", '\0', ArgKind::kRequired, Opt::kUid},
    {"gid", '\0', ArgKind::kRequired, Opt::kGid},
    {"wait", 'W', ArgKind::kRequired, Opt::kWait},
    {"test-only", '\0', ArgKind::kNone, Opt::kTestOnly},
    {"help", 'h', ArgKind::kNone, Opt::kHelp},
    {"usage", '\0', ArgKind::kNone, Opt::kUsage},
    {"version", 'V', ArgKind::kNone, Opt::kVersion},
};
constexpr slurm::OptionTable kTable{"srun", slurm::Ordering::kRequireOrder, kOptions};

// srun(1)'s input environment variables for the options Canopy checks or records.
struct EnvironmentOption {
  absl::string_view variable;
  Opt option;
};
constexpr EnvironmentOption kSrunEnvironment[] = {
    {"SLURM_CONTAINER", Opt::kContainer},       {"SLURM_CPU_BIND", Opt::kCpuBind},
    {"SLURM_CPUS_PER_GPU", Opt::kCpusPerGpu},   {"SLURM_DELAY_BOOT", Opt::kDelayBoot},
    {"SLURM_DISTRIBUTION", Opt::kDistribution}, {"SLURM_GPU_BIND", Opt::kGpuBind},
    {"SLURM_GPUS_PER_TASK", Opt::kGpusPerTask}, {"SLURM_HINT", Opt::kHint},
    {"SLURM_MEM_PER_GPU", Opt::kMemPerGpu},     {"SLURM_MPI_TYPE", Opt::kMpi},
    {"SLURM_OPEN_MODE", Opt::kOpenMode},        {"SLURM_OVERCOMMIT", Opt::kOvercommit},
    {"SLURM_OVERLAP", Opt::kOverlap},           {"SLURM_UNBUFFEREDIO", Opt::kUnbuffered},
    {"SLURM_RESERVATION", Opt::kReservation},   {"SLURM_WCKEY", Opt::kWckey},
};

absl::Status Error(absl::string_view text) {
  return absl::InvalidArgumentError(absl::StrCat("error: ", text));
}

absl::Status Spec(absl::string_view long_name) {
  return Error(absl::StrCat("Invalid --", long_name, " specification"));
}

absl::Status SetCount(absl::string_view value, absl::string_view long_name,
                      std::optional<int>& out) {
  absl::StatusOr<int64_t> n = slurm::ParsePositiveCount(value, long_name);
  if (!n.ok()) {
    return n.status();
  }
  out = static_cast<int>(*n);  // at most 2^31-1
  return absl::OkStatus();
}

absl::Status SetNodes(absl::string_view value, SrunOptions& o) {
  absl::StatusOr<slurm::NodeCount> n = slurm::ParseNodeCount(value);
  if (!n.ok()) {
    return n.status();
  }
  o.nodes = static_cast<int>(n->min);
  o.max_nodes = static_cast<int>(n->max);
  return absl::OkStatus();
}

// --gres: only GPUs (Canopy schedules nothing else); "none" clears them.
absl::Status SetGres(absl::string_view value, SrunOptions& o) {
  absl::StatusOr<slurm::GresRequest> gres = slurm::ParseGres(value);
  if (!gres.ok()) {
    return gres.status();
  }
  if (!gres->other.empty()) {
    return slurm::WithExitCode(Error("Invalid generic resource (gres) specification"), 1);
  }
  o.gpus_per_node = gres->gpus_per_node;
  o.gpu_type = gres->gpu_type;
  return absl::OkStatus();
}

absl::Status SetGpus(absl::string_view value, bool per_task, SrunOptions& o) {
  absl::StatusOr<slurm::TypedCount> gpus =
      per_task ? slurm::ParseGpusPerTask(value) : slurm::ParseGpuCount(value);
  if (!gpus.ok()) {
    return gpus.status();
  }
  (per_task ? o.gpus_per_task : o.gpus_per_node) = static_cast<int>(gpus->count);
  if (!per_task || !gpus->type.empty()) {
    o.gpu_type = gpus->type;
  }
  return absl::OkStatus();
}

absl::Status SetExclusive(std::optional<absl::string_view> arg, SrunOptions& o) {
  absl::StatusOr<slurm::ExclusiveMode> mode = slurm::ParseExclusive(arg);
  if (!mode.ok()) {
    return mode.status();
  }
  o.exclusive_mode = *mode;
  o.exclusive = slurm::ExclusiveNodes(*mode);
  return absl::OkStatus();
}

absl::Status SetOpenMode(absl::string_view value, SrunOptions& o) {
  absl::StatusOr<slurm::OpenMode> mode = slurm::ParseOpenMode(value);
  if (!mode.ok()) {
    return mode.status();
  }
  o.open_mode = *mode;
  return absl::OkStatus();
}

absl::Status SetMailType(absl::string_view value, SrunOptions& o) {
  absl::StatusOr<uint16_t> bits = slurm::ParseMailType(value);
  if (!bits.ok()) {
    return bits.status();
  }
  o.mail_type = o.mail_type.value_or(0) | *bits;
  return absl::OkStatus();
}

absl::Status SetDuration(absl::string_view value, absl::string_view long_name,
                         std::optional<absl::Duration>& out) {
  absl::StatusOr<absl::Duration> d =
      slurm::ParseSlurmDuration(std::string_view(value.data(), value.size()));
  if (!d.ok()) {
    return Spec(long_name);
  }
  out = *d;
  return absl::OkStatus();
}

// -W, --wait=SECONDS: parse_int, zero allowed.
absl::Status SetWait(absl::string_view value, SrunOptions& o) {
  if (value == "0") {
    o.wait_seconds = 0;
    return absl::OkStatus();
  }
  return SetCount(value, "wait", o.wait_seconds);
}

// --cpu-bind: "help" prints the help text and ends srun (with 255: Slurm's option function
// fails after printing it).
absl::Status SetCpuBind(absl::string_view value, SrunOptions& o) {
  absl::StatusOr<bool> help = slurm::CheckCpuBind(value);
  if (!help.ok()) {
    return help.status();
  }
  if (*help) {
    o.info = slurm::InfoRequest::kCpuBindHelp;
  }
  o.cpu_bind = std::string(value);
  return absl::OkStatus();
}

// Applies one option. `arg` is nullopt only for kNone options and bare optional ones.
absl::Status Apply(const slurm::OptionSpec& option, std::optional<absl::string_view> arg,
                   const SrunInput& input, SrunOptions& o) {
  const absl::string_view value = arg.value_or("");
  auto set = [&](std::string& field) {
    field = std::string(value);
    return absl::OkStatus();
  };
  switch (option.IdAs<Opt>()) {
    case Opt::kNodes:
      return SetNodes(value, o);
    case Opt::kNtasks:
      return SetCount(value, option.long_name, o.ntasks);
    case Opt::kNtasksPerNode:
      return SetCount(value, option.long_name, o.ntasks_per_node);
    case Opt::kCpusPerTask:
      return SetCount(value, option.long_name, o.cpus_per_task);
    case Opt::kLabel:
      o.label = true;
      return absl::OkStatus();
    case Opt::kOutput:
      return set(o.output);
    case Opt::kError:
      return set(o.error);
    case Opt::kJobName:
      return set(o.job_name);
    case Opt::kJobId: {
      uint32_t id = 0;
      if (!absl::SimpleAtoi(value, &id) || id == 0) {
        return Error(absl::StrCat("Invalid job id: ", value));
      }
      o.jobid = id;
      return absl::OkStatus();
    }
    case Opt::kChdir:
      return set(o.chdir);
    case Opt::kExport:
      o.export_env = slurm::ParseExport(value);
      return absl::OkStatus();
    case Opt::kPartition:
      return set(o.partition);
    case Opt::kTime: {
      absl::StatusOr<absl::Duration> limit = slurm::ParseTimeLimit(value);
      if (!limit.ok()) {
        return limit.status();
      }
      o.time_limit = *limit;
      return absl::OkStatus();
    }
    case Opt::kNodelist:
      return set(o.nodelist);
    case Opt::kExclude:
      return set(o.exclude);
    case Opt::kExclusive:
      return SetExclusive(arg, o);
    case Opt::kAccount:
      return set(o.account);
    case Opt::kGpusPerNode:
      return SetGpus(value, false, o);
    case Opt::kGres:
      return SetGres(value, o);
    case Opt::kVerbose:
      ++o.verbose;
      return absl::OkStatus();
    case Opt::kComment:
      return set(o.comment);
    case Opt::kWckey:
      return set(o.wckey);
    case Opt::kMailType:
      return SetMailType(value, o);
    case Opt::kMailUser:
      return set(o.mail_user);
    case Opt::kOpenMode:
      return SetOpenMode(value, o);
    case Opt::kPropagate:
      o.propagate = std::string(arg.value_or("ALL"));
      return absl::OkStatus();
    case Opt::kGpusPerTask:
      return SetGpus(value, true, o);
    case Opt::kGpuBind:
      if (absl::Status s = slurm::CheckGpuBind(value); !s.ok()) {
        return s;
      }
      return set(o.gpu_bind);
    case Opt::kCpusPerGpu:
      return SetCount(value, option.long_name, o.cpus_per_gpu);
    case Opt::kMemPerGpu: {
      absl::StatusOr<int64_t> mib = slurm::ParseSizeMib(value, option.long_name);
      if (!mib.ok()) {
        return mib.status();
      }
      o.mem_per_gpu_mib = *mib;
      return absl::OkStatus();
    }
    case Opt::kDistribution: {
      absl::StatusOr<std::string> dist = slurm::ParseDistribution(value);
      if (!dist.ok()) {
        return dist.status();
      }
      o.distribution = *std::move(dist);
      return absl::OkStatus();
    }
    case Opt::kMpi:
      return set(o.mpi);
    case Opt::kCpuBind:
      return SetCpuBind(value, o);
    case Opt::kHint:
      o.hint = std::string(value);
      return absl::OkStatus();
    case Opt::kOvercommit:
      o.overcommit = true;
      return absl::OkStatus();
    case Opt::kOverlap:
      o.overlap = true;
      return absl::OkStatus();
    case Opt::kUnbuffered:
      o.unbuffered = true;
      return absl::OkStatus();
    case Opt::kReservation:
      return set(o.reservation);
    case Opt::kDeadline: {
      absl::StatusOr<absl::Time> deadline = slurm::ParseDeadline(value, input.now, input.tz);
      if (!deadline.ok()) {
        return deadline.status();
      }
      o.deadline = *deadline;
      return absl::OkStatus();
    }
    case Opt::kDelayBoot:
      return SetDuration(value, option.long_name, o.delay_boot);
    case Opt::kContainer:
      return set(o.container);
    case Opt::kUid:
      return set(o.uid);
    case Opt::kGid:
      return set(o.gid);
    case Opt::kWait:
      return SetWait(value, o);
    case Opt::kTestOnly:
      o.test_only = true;
      return absl::OkStatus();
    case Opt::kHelp:
      o.info = slurm::InfoRequest::kHelp;
      return absl::OkStatus();
    case Opt::kUsage:
      o.info = slurm::InfoRequest::kUsage;
      return absl::OkStatus();
    case Opt::kVersion:
      o.info = slurm::InfoRequest::kVersion;
      return absl::OkStatus();
  }
  return absl::InternalError("unhandled srun option");
}

// Applies one option with srun's exit status for its error (255 unless the value parser set 1).
// Stops the parse once an option asked for a text instead of a run.
absl::Status ApplyOption(const slurm::OptionSpec& option, std::optional<absl::string_view> arg,
                         const SrunInput& input, SrunOptions& o) {
  absl::Status s = slurm::WithDefaultExitCode(Apply(option, arg, input, o), 255);
  if (s.ok() && o.info != slurm::InfoRequest::kNone) {
    return absl::CancelledError("info");
  }
  return s;
}

const slurm::OptionSpec* SpecOf(Opt option) {
  for (const slurm::OptionSpec& spec : kOptions) {
    if (spec.IdAs<Opt>() == option) {
      return &spec;
    }
  }
  return nullptr;
}

absl::Status ApplyEnvironment(const SrunInput& input, SrunOptions& o) {
  for (const EnvironmentOption& e : kSrunEnvironment) {
    auto it = input.env.find(std::string(e.variable));
    const slurm::OptionSpec* spec = SpecOf(e.option);
    if (it == input.env.end() || spec == nullptr) {
      continue;
    }
    std::optional<absl::string_view> arg = it->second;
    if (spec->arg == ArgKind::kNone) {
      if (!slurm::EnvironmentFlagIsSet(it->second)) {
        // The flag variables srun reads here: set to a false value, they turn the flag off.
        (e.option == Opt::kOverlap      ? o.overlap
         : e.option == Opt::kUnbuffered ? o.unbuffered
                                        : o.overcommit) = false;
        continue;
      }
      arg.reset();
    }
    if (absl::Status s = ApplyOption(*spec, arg, input, o); !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

// srun's checks after all options: --propagate's names; --hint is dropped when --cpu-bind binds
// too (Slurm's validate_hint_option), else checked.
absl::Status Verify(SrunOptions& o) {
  if (o.propagate.has_value()) {
    if (absl::Status s = slurm::CheckPropagate(*o.propagate); !s.ok()) {
      return s;
    }
  }
  if (!o.hint.has_value()) {
    return absl::OkStatus();
  }
  if (!o.cpu_bind.empty() && !absl::EqualsIgnoreCase(o.cpu_bind, "verbose") &&
      !absl::EqualsIgnoreCase(o.cpu_bind, "v")) {
    o.hint.reset();
    return absl::OkStatus();
  }
  absl::StatusOr<bool> help = slurm::CheckHint(*o.hint);
  if (!help.ok()) {
    return help.status();
  }
  if (*help) {
    o.info = slurm::InfoRequest::kHintHelp;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<SrunOptions> ParseSrunArgs(const std::vector<std::string>& args,
                                          const SrunInput& input) {
  SrunOptions o;
  if (absl::Status s = ApplyEnvironment(input, o); !s.ok() && !absl::IsCancelled(s)) {
    return s;
  }
  if (o.info != slurm::InfoRequest::kNone) {
    return o;
  }
  const std::vector<slurm::OptionSpec> options =
      slurm::WithExtraOptions(kOptions, input.plugin_options);
  absl::StatusOr<std::vector<std::string>> command = slurm::ParseCommandLine(
      {kTable.command, kTable.ordering, options}, args,
      [&o, &input](const slurm::OptionSpec& option, std::optional<absl::string_view> value) {
        if (option.id >= slurm::kExtraOptionId) {
          o.plugin_options.emplace_back(
              input.plugin_options[option.id - slurm::kExtraOptionId].name,
              std::string(value.value_or("")));
          return absl::OkStatus();
        }
        return ApplyOption(option, value, input, o);
      });
  if (o.info != slurm::InfoRequest::kNone) {
    return o;
  }
  if (!command.ok()) {
    return slurm::WithDefaultExitCode(command.status(), 255);
  }
  if (absl::Status s = Verify(o); !s.ok()) {
    return s;
  }
  if (o.info != slurm::InfoRequest::kNone) {
    return o;
  }
  if (command->empty()) {
    return slurm::WithExitCode(absl::InvalidArgumentError("fatal: No command given to execute."),
                               1);
  }
  o.command = *std::move(command);
  return o;
}

}  // namespace canopy::ctl::srun
