#include "ctl/srun/options.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/slurm/time_format.h"
#include "ctl/sbatch/job_spec.h"

namespace canopy::ctl::srun {
namespace {

enum class Arg { kNone, kRequired };

struct OptionSpec {
  const char* long_name;
  char short_name;
  Arg arg;
};

constexpr OptionSpec kOptions[] = {
    {"nodes", 'N', Arg::kRequired},
    {"ntasks", 'n', Arg::kRequired},
    {"ntasks-per-node", 0, Arg::kRequired},
    {"cpus-per-task", 'c', Arg::kRequired},
    {"label", 'l', Arg::kNone},
    {"output", 'o', Arg::kRequired},
    {"error", 'e', Arg::kRequired},
    {"job-name", 'J', Arg::kRequired},
    {"jobid", 0, Arg::kRequired},
    {"chdir", 'D', Arg::kRequired},
    {"export", 0, Arg::kRequired},
    {"partition", 'p', Arg::kRequired},
    {"time", 't', Arg::kRequired},
    {"nodelist", 'w', Arg::kRequired},
    {"exclude", 'x', Arg::kRequired},
    {"exclusive", 0, Arg::kNone},
    {"account", 'A', Arg::kRequired},
    {"gpus-per-node", 0, Arg::kRequired},
    {"gres", 0, Arg::kRequired},
    {"verbose", 'v', Arg::kNone},
};

absl::Status Invalid(absl::string_view what, absl::string_view value) {
  return absl::InvalidArgumentError(absl::StrCat("error: Invalid ", what, ": ", value));
}

absl::Status ParseCount(absl::string_view name, absl::string_view value, std::optional<int>& out) {
  int n = 0;
  if (!absl::SimpleAtoi(value, &n) || n <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("error: Invalid numeric value \"", value, "\" for --", name, "."));
  }
  out = n;
  return absl::OkStatus();
}

// "[TYPE:]N" of --gpus-per-node, or "gpu[:TYPE][:N]" of --gres.
absl::Status ParseGpus(absl::string_view value, bool gres, SrunOptions& o) {
  std::vector<std::string> parts = absl::StrSplit(value, ':');
  if (gres) {
    if (parts.empty() || parts[0] != "gpu") {
      return absl::InvalidArgumentError("error: Invalid generic resource (gres) specification");
    }
    parts.erase(parts.begin());
  }
  int n = 1;
  if (!parts.empty() && absl::SimpleAtoi(parts.back(), &n)) {
    parts.pop_back();
  } else if (!gres) {
    return Invalid("--gpus-per-node specification", value);
  }
  if (parts.size() > 1 || n < 0) {
    return Invalid("generic resource (gres) specification", value);
  }
  o.gpus_per_node = n;
  o.gpu_type = parts.empty() ? "" : parts[0];
  return absl::OkStatus();
}

absl::Status Apply(absl::string_view name, const std::string& v, SrunOptions& o) {
  if (name == "nodes") {
    return ParseCount("nodes", v, o.nodes);
  }
  if (name == "ntasks") {
    return ParseCount("ntasks", v, o.ntasks);
  }
  if (name == "ntasks-per-node") {
    return ParseCount("ntasks-per-node", v, o.ntasks_per_node);
  }
  if (name == "cpus-per-task") {
    return ParseCount("cpus-per-task", v, o.cpus_per_task);
  }
  if (name == "jobid") {
    uint32_t id = 0;
    if (!absl::SimpleAtoi(v, &id) || id == 0) {
      return Invalid("job id", v);
    }
    o.jobid = id;
  } else if (name == "time") {
    absl::StatusOr<absl::Duration> d = slurm::ParseSlurmDuration(v);
    if (!d.ok()) {
      return absl::InvalidArgumentError("error: Invalid time limit specification");
    }
    o.time_limit =
        *d == absl::ZeroDuration() ? absl::InfiniteDuration() : absl::Ceil(*d, absl::Minutes(1));
  } else if (name == "export") {
    slurm::SbatchExport e;
    e.all = false;
    bool first = true;
    for (absl::string_view item : absl::StrSplit(v, ',', absl::SkipEmpty())) {
      if (first && absl::EqualsIgnoreCase(item, "ALL")) {
        e.all = true;
      } else if (!(first && absl::EqualsIgnoreCase(item, "NONE"))) {
        e.variables.emplace_back(item);
      }
      first = false;
    }
    o.export_env = e;
  } else if (name == "gpus-per-node" || name == "gres") {
    return ParseGpus(v, name == "gres", o);
  } else if (name == "output") {
    o.output = v;
  } else if (name == "error") {
    o.error = v;
  } else if (name == "job-name") {
    o.job_name = v;
  } else if (name == "chdir") {
    o.chdir = v;
  } else if (name == "partition") {
    o.partition = v;
  } else if (name == "nodelist") {
    o.nodelist = v;
  } else if (name == "exclude") {
    o.exclude = v;
  } else if (name == "account") {
    o.account = v;
  }
  return absl::OkStatus();
}

absl::Status Unrecognized(const std::string& arg) {
  return absl::InvalidArgumentError(
      absl::StrCat(absl::StartsWith(arg, "--") ? absl::StrCat("unrecognized option '", arg, "'")
                                               : absl::StrCat("invalid option -- '", arg, "'"),
                   "\nTry \"srun --help\" for more information"));
}

}  // namespace

absl::StatusOr<SrunOptions> ParseSrunArgs(const std::vector<std::string>& args) {
  SrunOptions o;
  size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      break;  // the command
    }
    if (absl::StartsWith(arg, "--")) {
      const size_t eq = arg.find('=');
      const std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
      const OptionSpec* spec = nullptr;
      for (const OptionSpec& s : kOptions) {
        if (name == s.long_name) {
          spec = &s;
        }
      }
      if (spec == nullptr) {
        return Unrecognized(arg);
      }
      if (spec->arg == Arg::kNone) {
        if (eq != std::string::npos) {
          return absl::InvalidArgumentError(absl::StrCat(
              "option '--", name,
              "' doesn't allow an argument\nTry \"srun --help\" for more information"));
        }
        if (name == "label") {
          o.label = true;
        } else if (name == "exclusive") {
          o.exclusive = true;
        } else {
          ++o.verbose;
        }
        continue;
      }
      std::string value;
      if (eq != std::string::npos) {
        value = arg.substr(eq + 1);
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        return absl::InvalidArgumentError(
            absl::StrCat("option '--", name,
                         "' requires an argument\nTry \"srun --help\" for more information"));
      }
      if (absl::Status s = Apply(name, value, o); !s.ok()) {
        return s;
      }
      continue;
    }
    // A bundle of short options: "-lN2", "-n" "4".
    for (size_t k = 1; k < arg.size(); ++k) {
      const OptionSpec* spec = nullptr;
      for (const OptionSpec& s : kOptions) {
        if (s.short_name != 0 && s.short_name == arg[k]) {
          spec = &s;
        }
      }
      if (spec == nullptr) {
        return Unrecognized(std::string(1, arg[k]));
      }
      if (spec->arg == Arg::kNone) {
        if (arg[k] == 'l') {
          o.label = true;
        } else {
          ++o.verbose;
        }
        continue;
      }
      std::string value;
      if (k + 1 < arg.size()) {
        value = arg.substr(k + 1);
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        return absl::InvalidArgumentError(
            absl::StrCat("option requires an argument -- '", std::string(1, arg[k]),
                         "'\nTry \"srun --help\" for more information"));
      }
      if (absl::Status s = Apply(spec->long_name, value, o); !s.ok()) {
        return s;
      }
      break;
    }
  }
  o.command.assign(args.begin() + static_cast<long>(i), args.end());
  if (o.command.empty()) {
    return absl::InvalidArgumentError("fatal: No command given to execute.");
  }
  return o;
}

canopy::v1::JobSpec BuildAllocationSpec(const SrunOptions& o, const std::string& cwd,
                                        const std::string& short_hostname) {
  canopy::v1::JobSpec spec;
  const std::string& program = o.command.front();
  spec.set_name(o.job_name.empty() ? program.substr(program.rfind('/') + 1) : o.job_name);
  spec.set_partition(o.partition);
  spec.set_account(o.account);
  spec.set_min_nodes(o.nodes.value_or(0));
  spec.set_ntasks(o.ntasks.value_or(0));
  spec.set_ntasks_per_node(o.ntasks_per_node.value_or(0));
  spec.set_cpus_per_task(o.cpus_per_task.value_or(0));
  spec.set_gpus_per_node(o.gpus_per_node.value_or(0));
  spec.set_gpu_type(o.gpu_type);
  spec.set_exclusive(o.exclusive);
  if (o.time_limit && *o.time_limit != absl::InfiniteDuration()) {
    spec.mutable_time_limit()->set_seconds(absl::ToInt64Seconds(*o.time_limit));
  }
  spec.set_required_nodes(o.nodelist);
  spec.set_excluded_nodes(o.exclude);
  spec.set_work_dir(cwd);
  spec.set_submit_dir(cwd);
  spec.set_submit_host(short_hostname);
  return spec;
}

canopy::v1::CreateStepRequest BuildStepRequest(const SrunOptions& o, uint32_t job_id,
                                               const std::map<std::string, std::string>& env,
                                               const std::string& cwd) {
  canopy::v1::CreateStepRequest request;
  request.set_job_id(job_id);
  request.set_nodes(o.nodes.value_or(0));
  request.set_ntasks(o.ntasks.value_or(0));
  request.set_ntasks_per_node(o.ntasks_per_node.value_or(0));
  for (const std::string& a : o.command) {
    request.add_argv(a);
  }
  canopy::v1::JobSpec scratch;  // reuses sbatch's --export rules
  sbatch::ApplyExport(o.export_env, env, scratch);
  request.mutable_environment()->insert(scratch.environment().begin(), scratch.environment().end());
  if (o.chdir.empty()) {
    request.set_work_dir(cwd);
  } else {
    request.set_work_dir(o.chdir[0] == '/' ? o.chdir : absl::StrCat(cwd, "/", o.chdir));
  }
  request.set_stdout_path(o.output);
  request.set_stderr_path(o.error);
  request.set_name(o.job_name);
  return request;
}

}  // namespace canopy::ctl::srun
