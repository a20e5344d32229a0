#include "ctl/srun/options.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/slurm/getopt.h"
#include "common/slurm/option_values.h"

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
    {"exclusive", '\0', ArgKind::kNone, Opt::kExclusive},
    {"account", 'A', ArgKind::kRequired, Opt::kAccount},
    {"gpus-per-node", '\0', ArgKind::kRequired, Opt::kGpusPerNode},
    {"gres", '\0', ArgKind::kRequired, Opt::kGres},
    {"verbose", 'v', ArgKind::kNone, Opt::kVerbose},
};
constexpr slurm::OptionTable kTable{"srun", slurm::Ordering::kRequireOrder, kOptions};

absl::Status GresError() {
  return absl::InvalidArgumentError("error: Invalid generic resource (gres) specification");
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
    return GresError();
  }
  o.gpus_per_node = gres->gpus_per_node;
  o.gpu_type = gres->gpu_type;
  return absl::OkStatus();
}

absl::Status SetGpusPerNode(absl::string_view value, SrunOptions& o) {
  absl::StatusOr<slurm::TypedCount> gpus = slurm::ParseGpuCount(value);
  if (!gpus.ok()) {
    return gpus.status();
  }
  o.gpus_per_node = static_cast<int>(gpus->count);
  o.gpu_type = gpus->type;
  return absl::OkStatus();
}

absl::Status Apply(const slurm::OptionSpec& option, std::optional<absl::string_view> arg,
                   SrunOptions& o) {
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
        return absl::InvalidArgumentError(absl::StrCat("error: Invalid job id: ", value));
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
      o.exclusive = true;
      return absl::OkStatus();
    case Opt::kAccount:
      return set(o.account);
    case Opt::kGpusPerNode:
      return SetGpusPerNode(value, o);
    case Opt::kGres:
      return SetGres(value, o);
    case Opt::kVerbose:
      ++o.verbose;
      return absl::OkStatus();
  }
  return absl::InternalError("unhandled srun option");
}

}  // namespace

absl::StatusOr<SrunOptions> ParseSrunArgs(const std::vector<std::string>& args) {
  SrunOptions o;
  absl::StatusOr<std::vector<std::string>> command = slurm::ParseCommandLine(
      kTable, args, [&o](const slurm::OptionSpec& option, std::optional<absl::string_view> value) {
        return Apply(option, value, o);
      });
  if (!command.ok()) {
    return command.status();
  }
  if (command->empty()) {
    return absl::InvalidArgumentError("fatal: No command given to execute.");
  }
  o.command = *std::move(command);
  return o;
}

}  // namespace canopy::ctl::srun
