#include "ctl/salloc/options.h"

#include <csignal>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/slurm/getopt.h"
#include "common/slurm/slurm_version.h"

namespace canopy::ctl::salloc {
namespace {

enum class Opt {
  kShared,  // an option srun parses too: forwarded to srun's parser
  kMem,
  kQos,
  kHold,
  kNoShell,
  kBell,
  kBegin,
  kDependency,
  kImmediate,
  kKillCommand,
  kQuiet,
  kHelp,
  kUsage,
  kVersion,
};

using slurm::ArgKind;

// salloc exits 1 for a bad command line (srun exits 255 for most of the same errors).
constexpr int kErrorExit = 1;

constexpr slurm::OptionSpec kOptions[] = {
    {"account", 'A', ArgKind::kRequired, Opt::kShared},
    {"cpus-per-task", 'c', ArgKind::kRequired, Opt::kShared},
    {"comment", '\0', ArgKind::kRequired, Opt::kShared},
    {"chdir", 'D', ArgKind::kRequired, Opt::kShared},
    {"exclusive", '\0', ArgKind::kOptional, Opt::kShared},
    {"gpus-per-node", '\0', ArgKind::kRequired, Opt::kShared},
    {"gres", '\0', ArgKind::kRequired, Opt::kShared},
    {"job-name", 'J', ArgKind::kRequired, Opt::kShared},
    {"nodes", 'N', ArgKind::kRequired, Opt::kShared},
    {"ntasks", 'n', ArgKind::kRequired, Opt::kShared},
    {"ntasks-per-node", '\0', ArgKind::kRequired, Opt::kShared},
    {"partition", 'p', ArgKind::kRequired, Opt::kShared},
    {"time", 't', ArgKind::kRequired, Opt::kShared},
    {"nodelist", 'w', ArgKind::kRequired, Opt::kShared},
    {"exclude", 'x', ArgKind::kRequired, Opt::kShared},
    {"wckey", '\0', ArgKind::kRequired, Opt::kShared},
    {"mail-type", '\0', ArgKind::kRequired, Opt::kShared},
    {"mail-user", '\0', ArgKind::kRequired, Opt::kShared},
    {"reservation", '\0', ArgKind::kRequired, Opt::kShared},
    {"deadline", '\0', ArgKind::kRequired, Opt::kShared},
    {"delay-boot", '\0', ArgKind::kRequired, Opt::kShared},
    {"container", '\0', ArgKind::kRequired, Opt::kShared},
    {"uid", '\0', ArgKind::kRequired, Opt::kShared},
    {"gid", '\0', ArgKind::kRequired, Opt::kShared},
    {"overcommit", 'O', ArgKind::kNone, Opt::kShared},
    {"hint", '\0', ArgKind::kRequired, Opt::kShared},
    {"distribution", 'm', ArgKind::kRequired, Opt::kShared},
    {"gpus-per-task", '\0', ArgKind::kRequired, Opt::kShared},
    {"cpus-per-gpu", '\0', ArgKind::kRequired, Opt::kShared},
    {"mem-per-gpu", '\0', ArgKind::kRequired, Opt::kShared},
    {"verbose", 'v', ArgKind::kNone, Opt::kShared},
    {"mem", '\0', ArgKind::kRequired, Opt::kMem},
    {"qos", 'q', ArgKind::kRequired, Opt::kQos},
    {"hold", 'H', ArgKind::kNone, Opt::kHold},
    {"no-shell", '\0', ArgKind::kNone, Opt::kNoShell},
    {"bell", '\0', ArgKind::kNone, Opt::kBell},
    {"no-bell", '\0', ArgKind::kNone, Opt::kBell},
    {"begin", 'b', ArgKind::kRequired, Opt::kBegin},
    {"dependency", 'd', ArgKind::kRequired, Opt::kDependency},
    {"immediate", 'I', ArgKind::kOptional, Opt::kImmediate},
    {"kill-command", 'K', ArgKind::kOptional, Opt::kKillCommand},
    {"quiet", 'Q', ArgKind::kNone, Opt::kQuiet},
    {"help", 'h', ArgKind::kNone, Opt::kHelp},
    {"usage", '\0', ArgKind::kNone, Opt::kUsage},
    {"version", 'V', ArgKind::kNone, Opt::kVersion},
};
constexpr slurm::OptionTable kTable{"salloc", slurm::Ordering::kRequireOrder, kOptions};

// salloc(1)'s input variables, as the options they stand for (before the command line's).
constexpr std::pair<const char*, const char*> kEnvironment[] = {
    {"SALLOC_ACCOUNT", "--account"}, {"SALLOC_PARTITION", "--partition"},
    {"SALLOC_QOS", "--qos"},         {"SALLOC_TIMELIMIT", "--time"},
    {"SALLOC_WCKEY", "--wckey"},     {"SALLOC_GPUS_PER_NODE", "--gpus-per-node"},
    {"SALLOC_GRES", "--gres"},
};

std::vector<std::string> WithEnvironment(const std::vector<std::string>& args,
                                         const srun::SrunInput& input) {
  std::vector<std::string> all;
  for (const auto& [variable, option] : kEnvironment) {
    if (auto it = input.env.find(variable); it != input.env.end()) {
      all.push_back(absl::StrCat(option, "=", it->second));
    }
  }
  // SALLOC_EXCLUSIVE is a flag: set, it asks for whole nodes.
  if (auto it = input.env.find("SALLOC_EXCLUSIVE");
      it != input.env.end() && slurm::EnvironmentFlagIsSet(it->second)) {
    all.push_back("--exclusive");
  }
  all.insert(all.end(), args.begin(), args.end());
  return all;
}

}  // namespace

absl::StatusOr<SallocOptions> ParseSallocArgs(const std::vector<std::string>& args,
                                              const srun::SrunInput& input) {
  SallocOptions o;
  // The shared options, rewritten in their long form for srun's parser.
  std::vector<std::string> shared;
  bool stop = false;
  const std::vector<slurm::OptionSpec> options =
      slurm::WithExtraOptions(kOptions, input.plugin_options);
  absl::StatusOr<std::vector<std::string>> rest = slurm::ParseCommandLine(
      {kTable.command, kTable.ordering, options}, WithEnvironment(args, input),
      [&](const slurm::OptionSpec& option, std::optional<absl::string_view> value) {
        if (stop) {
          return absl::OkStatus();  // after --help/--usage/--version, as salloc acts in order
        }
        if (option.id >= slurm::kExtraOptionId) {  // a SPANK plugin's
          o.allocation.plugin_options.emplace_back(
              input.plugin_options[option.id - slurm::kExtraOptionId].name,
              std::string(value.value_or("")));
          return absl::OkStatus();
        }
        switch (option.IdAs<Opt>()) {
          case Opt::kShared:
            shared.push_back(value.has_value() ? absl::StrCat("--", option.long_name, "=", *value)
                                               : absl::StrCat("--", option.long_name));
            return absl::OkStatus();
          case Opt::kMem: {
            absl::StatusOr<int64_t> mib = slurm::ParseMemMib(*value);
            if (!mib.ok()) {
              return mib.status();
            }
            o.mem_mib = *mib;
            return absl::OkStatus();
          }
          case Opt::kQos:
            o.qos = std::string(*value);
            return absl::OkStatus();
          case Opt::kHold:
            o.hold = true;
            return absl::OkStatus();
          case Opt::kNoShell:
            o.no_shell = true;
            return absl::OkStatus();
          case Opt::kBell:
            return absl::OkStatus();
          case Opt::kBegin:
            o.begin = std::string(*value);
            return absl::OkStatus();
          case Opt::kDependency:
            o.dependency = std::string(*value);
            return absl::OkStatus();
          case Opt::kImmediate: {
            int seconds = 0;
            if (value.has_value() && (!absl::SimpleAtoi(*value, &seconds) || seconds < 0)) {
              return absl::InvalidArgumentError(absl::StrCat(
                  "error: Invalid --immediate value: ", *value, " (expected a number of seconds)"));
            }
            // As Slurm: -I alone means at once; -I0 leaves it off.
            if (!value.has_value()) {
              o.immediate = absl::ZeroDuration();
            } else if (seconds > 0) {
              o.immediate = absl::Seconds(seconds);
            } else {
              o.immediate.reset();
            }
            return absl::OkStatus();
          }
          case Opt::kKillCommand: {
            if (!value.has_value()) {
              o.kill_signal = SIGTERM;
              return absl::OkStatus();
            }
            std::optional<int> sig = slurm::SignalNumber(*value);
            if (!sig.has_value()) {
              return absl::InvalidArgumentError(
                  absl::StrCat("error: Invalid --kill-command specification: ", *value));
            }
            o.kill_signal = *sig;
            return absl::OkStatus();
          }
          case Opt::kQuiet:
            o.quiet = true;
            return absl::OkStatus();
          case Opt::kHelp:
            o.info = slurm::InfoRequest::kHelp;
            stop = true;
            return absl::OkStatus();
          case Opt::kUsage:
            o.info = slurm::InfoRequest::kUsage;
            stop = true;
            return absl::OkStatus();
          case Opt::kVersion:
            o.info = slurm::InfoRequest::kVersion;
            stop = true;
            return absl::OkStatus();
        }
        return absl::OkStatus();
      });
  if (!rest.ok()) {
    return slurm::WithExitCode(rest.status(), kErrorExit);
  }
  if (o.info != slurm::InfoRequest::kNone) {
    return o;
  }
  o.command = *std::move(rest);
  // srun's parser wants a command; salloc's is checked by the caller (it may be the shell).
  shared.push_back("--");
  shared.push_back(o.command.empty() ? "sh" : o.command.front());
  absl::StatusOr<srun::SrunOptions> parsed = srun::ParseSrunArgs(shared, input);
  if (!parsed.ok()) {
    return slurm::WithExitCode(parsed.status(), kErrorExit);
  }
  parsed->plugin_options = std::move(o.allocation.plugin_options);
  o.allocation = *std::move(parsed);
  o.allocation.command = o.command;
  return o;
}

std::string SallocInfoText(slurm::InfoRequest request) {
  switch (request) {
    case slurm::InfoRequest::kVersion:
      return slurm::SlurmVersionLine("salloc");
    case slurm::InfoRequest::kUsage:
      return "Usage: salloc [-N numnodes|[min nodes]-[max nodes]] [-n num-processors]\n"
             "              [-c cpus-per-node] [-p partition] [--hold] [-t minutes]\n"
             "              [--no-shell] [-J jobname] [--exclusive] [-A account]\n"
             "              [--qos=qos] [--mem=MB] [-w hosts...] [-x hosts...]\n"
             "              [--gres=list] [--gpus-per-node=n] [--comment=name]\n"
             "              [executable [args...]]\n";
    default:
      break;
  }
  // The layout of salloc's --help, listing the options Canopy's salloc accepts.
  return "Usage: salloc [OPTIONS(0)...] [command(0) [args(0)...]]\n"
         "\n"
         "Parallel run options:\n"
         "  -A, --account=name          charge job to specified account\n"
         "  -b, --begin=time            defer job until HH:MM MM/DD/YY\n"
         "  -c, --cpus-per-task=ncpus   number of cpus required per task\n"
         "      --comment=name          arbitrary comment\n"
         "  -d, --dependency=type:jobid[:time] defer job until condition on jobid is satisfied\n"
         "  -D, --chdir=path            change working directory\n"
         "  -H, --hold                  submit job in held state\n"
         "  -I, --immediate[=secs]      exit if resources not available in \"secs\"\n"
         "  -J, --job-name=jobname      name of job\n"
         "  -K, --kill-command[=signal] signal to send terminating job\n"
         "  -m, --distribution=type     distribution method for processes to nodes\n"
         "      --mail-type=type        notify on state change: BEGIN, END, FAIL or ALL\n"
         "      --mail-user=user        who to send email notification for job state\n"
         "                              changes\n"
         "  -n, --ntasks=N              number of processors required\n"
         "      --no-shell              immediately exit after allocating resources,\n"
         "                              without running a command\n"
         "  -N, --nodes=N               number of nodes on which to run (N = min[-max])\n"
         "  -O, --overcommit            overcommit resources\n"
         "  -p, --partition=partition   partition requested\n"
         "  -q, --qos=qos               quality of service\n"
         "  -Q, --quiet                 quiet mode (suppress informational messages)\n"
         "      --reservation=name      allocate resources from named reservation\n"
         "  -t, --time=minutes          time limit\n"
         "  -v, --verbose               verbose mode (multiple -v's increase verbosity)\n"
         "      --wckey=wckey           wckey to run job under\n"
         "\n"
         "Constraint options:\n"
         "      --mem=MB                minimum amount of real memory\n"
         "  -w, --nodelist=hosts...     request a specific list of hosts\n"
         "  -x, --exclude=hosts...      exclude a specific list of hosts\n"
         "\n"
         "Consumable resources related options:\n"
         "      --exclusive[=user]      allocate nodes in exclusive mode when\n"
         "                              cpu consumable resource is enabled\n"
         "\n"
         "GPU scheduling options:\n"
         "      --cpus-per-gpu=n        number of CPUs required per allocated GPU\n"
         "      --gpus-per-node=n       number of GPUs required per allocated node\n"
         "      --gpus-per-task=n       number of GPUs required per spawned task\n"
         "      --mem-per-gpu=n         real memory required per allocated GPU\n"
         "      --gres=list             required generic resources\n"
         "\n"
         "Help options:\n"
         "  -h, --help                  show this help message\n"
         "      --usage                 display brief usage message\n"
         "\n"
         "Other options:\n"
         "  -V, --version               output version information and exit\n"
         "\n";
}

}  // namespace canopy::ctl::salloc
