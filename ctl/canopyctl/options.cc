#include "ctl/canopyctl/options.h"

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace canopy::ctl::canopyctl {

const char kUsage[] = R"(usage: canopyctl [--controller HOST:PORT] COMMAND [ARGS]

commands:
  nodes [--partition P] [NODES]   nodes with state, CPUs, memory, GPUs, leaf switch, reason
  topology [NODE]                 the switch tree with node states and GPU usage per switch
  drain NODES --reason TEXT       stop placing jobs on NODES (running jobs finish)
  down NODES --reason TEXT        take NODES out of service now
  resume NODES                    return drained/down NODES to service
  ping                            is the controller up?
  jobs [--user U] [--partition P] jobs with state, nodes, leaf switches, time, reason/nodelist
  job ID                          one job: state, exit code, nodes, leaves, placement, times
  cancel ID...                    cancel jobs
  run [SRUN OPTIONS] CMD [ARGS]   run CMD as a job step, as srun does
  whoami                          who the controller thinks you are
  install-links [--force] DIR     make sbatch, srun, squeue, sacct, ... in DIR links to canopyctl
  completion bash                 a bash completion script for canopyctl
  version (or --version)          print canopyctl's version

The controller is found from --controller, else $CANOPY_CONTROLLER, else the config named by
$CANOPY_CONFIG or $SLURM_CONF (its unix socket when readable, so job commands know who you
are). Called as sbatch, srun, squeue, scancel, sinfo, scontrol, sacct, sacctmgr, sshare or
sprio, the same binary acts as that Slurm command.
)";

const std::vector<CommandWords>& Commands() {
  static const std::vector<CommandWords> commands = {
      {"nodes", {"--partition"}},
      {"topology", {}},
      {"drain", {"--reason"}},
      {"down", {"--reason"}},
      {"resume", {}},
      {"ping", {}},
      {"jobs", {"--user", "--partition"}},
      {"job", {}},
      {"cancel", {}},
      {"run", {}},
      {"whoami", {}},
      {"install-links", {"--force"}},
      {"completion", {"bash"}},
      {"version", {}},
      {"help", {}},
  };
  return commands;
}

std::string BashCompletion() {
  std::string commands;
  std::string cases;
  for (const CommandWords& c : Commands()) {
    absl::StrAppend(&commands, commands.empty() ? "" : " ", c.command);
    if (!c.options.empty()) {
      absl::StrAppend(&cases, "    ", c.command, ") words=\"", absl::StrJoin(c.options, " "),
                      "\" ;;\n");
    }
  }
  // Node names for the commands that take them, from the controller (quietly nothing when it
  // cannot be reached).
  return absl::StrCat(
      "# bash completion for canopyctl (canopyctl completion bash)\n"
      "_canopyctl() {\n"
      "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" cmd=\"\" i words=\"\"\n"
      "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      "    case \"${COMP_WORDS[i]}\" in\n"
      "      --controller) ((i++)) ;;\n"
      "      -*) ;;\n"
      "      *) cmd=\"${COMP_WORDS[i]}\"; break ;;\n"
      "    esac\n"
      "  done\n"
      "  if [[ -z \"$cmd\" ]]; then\n"
      "    COMPREPLY=($(compgen -W \"",
      commands,
      " --controller\" -- \"$cur\"))\n"
      "    return\n"
      "  fi\n"
      "  case \"$cmd\" in\n",
      cases,
      "  esac\n"
      "  case \"$cmd\" in\n"
      "    nodes|topology|drain|down|resume)\n"
      "      words=\"$words $(canopyctl nodes 2>/dev/null | awk 'NR > 1 {print $1}')\" ;;\n"
      "  esac\n"
      "  COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
      "}\n"
      "complete -o default -F _canopyctl canopyctl\n");
}

CommandLine SplitCommandLine(const std::vector<std::string>& all_args) {
  CommandLine line;
  for (size_t i = 0; i < all_args.size(); ++i) {
    if (all_args[i] == "--controller" && i + 1 < all_args.size()) {
      line.controller = all_args[++i];
    } else if (absl::StartsWith(all_args[i], "--controller=")) {
      line.controller = all_args[i].substr(13);
    } else {
      line.args.push_back(all_args[i]);
    }
  }
  return line;
}

absl::StatusOr<canopy::v1::ListNodesRequest> ParseNodesArgs(const std::vector<std::string>& args) {
  canopy::v1::ListNodesRequest request;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--partition" || args[i] == "-p") {
      if (i + 1 >= args.size()) {
        return absl::InvalidArgumentError("canopyctl nodes: --partition needs a partition name");
      }
      request.set_partition(args[++i]);
    } else if (absl::StartsWith(args[i], "-")) {
      return absl::InvalidArgumentError(
          absl::StrCat("canopyctl nodes: unknown option '", args[i], "'"));
    } else {
      request.set_nodes(args[i]);
    }
  }
  return request;
}

canopy::v1::GetTopologyRequest ParseTopologyArgs(const std::vector<std::string>& args) {
  canopy::v1::GetTopologyRequest request;
  if (!args.empty()) {
    request.set_node(args[0]);
  }
  return request;
}

absl::StatusOr<canopy::v1::UpdateNodeRequest> ParseNodeUpdateArgs(
    const std::string& verb, const std::vector<std::string>& args) {
  canopy::v1::UpdateNodeRequest request;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--reason") {
      if (i + 1 >= args.size()) {
        return absl::InvalidArgumentError(
            absl::StrCat("canopyctl ", verb, ": --reason needs a text"));
      }
      request.set_reason(args[++i]);
    } else if (absl::StartsWith(args[i], "--reason=")) {
      request.set_reason(args[i].substr(9));
    } else {
      request.set_nodes(args[i]);
    }
  }
  if (request.nodes().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("canopyctl ", verb, ": name the nodes, e.g. canopyctl ", verb, " gpu[001-004]",
                     verb == "resume" ? "" : " --reason \"bad fan\""));
  }
  return request;
}

absl::StatusOr<canopy::v1::ListJobsRequest> ParseJobsArgs(const std::vector<std::string>& args) {
  canopy::v1::ListJobsRequest request;
  for (size_t i = 0; i < args.size(); ++i) {
    if ((args[i] == "--user" || args[i] == "-u") && i + 1 < args.size()) {
      request.set_user_name(args[++i]);
    } else if ((args[i] == "--partition" || args[i] == "-p") && i + 1 < args.size()) {
      request.set_partition(args[++i]);
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("canopyctl jobs: unknown argument '", args[i], "'"));
    }
  }
  return request;
}

absl::StatusOr<uint32_t> ParseJobArgs(const std::vector<std::string>& args) {
  uint32_t id = 0;
  if (args.size() != 1 || !absl::SimpleAtoi(args[0], &id)) {
    return absl::InvalidArgumentError("canopyctl job: give one job id, e.g. canopyctl job 42");
  }
  return id;
}

absl::StatusOr<canopy::v1::CancelJobRequest> ParseCancelArgs(const std::vector<std::string>& args) {
  canopy::v1::CancelJobRequest request;
  for (const std::string& a : args) {
    uint32_t id = 0;
    if (!absl::SimpleAtoi(a, &id)) {
      return absl::InvalidArgumentError(
          absl::StrCat("canopyctl cancel: '", a, "' is not a job id"));
    }
    request.add_job_ids(id);
  }
  if (request.job_ids().empty()) {
    return absl::InvalidArgumentError("canopyctl cancel: give the job ids to cancel");
  }
  return request;
}

}  // namespace canopy::ctl::canopyctl
