#include "ctl/squeue/options.h"

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "common/slurm/getopt.h"
#include "common/slurm/hostlist.h"
#include "ctl/output/job_format.h"

namespace canopy::ctl::squeue {
namespace {

enum class Opt {
  kAccounts,
  kNoHeader,
  kIterate,
  kJobs,
  kJson,
  kLong,
  kMe,
  kNames,
  kNoConvert,
  kFormat,
  kFormatLong,
  kPartitions,
  kQos,
  kArray,
  kSteps,
  kSort,
  kStart,
  kStates,
  kUsers,
  kNodes,
  kHelp,
  kUsage,
  kVersion,
  kIgnored,       // one cluster, nothing hidden, no federation: nothing to do
  kIgnoredValue,  // likewise, with a value (-M cluster)
};

using slurm::ArgKind;

// Slurm 22.05's table (squeue/opts.c, optstring "A:ahi:j::lL:n:M:O:o:p:Pq:R:rs::S:t:u:U:vVw:").
constexpr slurm::OptionSpec kOptions[] = {
    {"account", 'A', ArgKind::kRequired, Opt::kAccounts},
    {"accounts", '\0', ArgKind::kRequired, Opt::kAccounts},
    {"all", 'a', ArgKind::kNone, Opt::kIgnored},
    {"array", 'r', ArgKind::kNone, Opt::kArray},
    {"array-unique", '\0', ArgKind::kNone, Opt::kIgnored},
    {"Format", 'O', ArgKind::kRequired, Opt::kFormatLong},
    {"format", 'o', ArgKind::kRequired, Opt::kFormat},
    {"federation", '\0', ArgKind::kNone, Opt::kIgnored},
    {"help", '\0', ArgKind::kNone, Opt::kHelp},
    {"hide", '\0', ArgKind::kNone, Opt::kIgnored},
    {"iterate", 'i', ArgKind::kRequired, Opt::kIterate},
    {"jobs", 'j', ArgKind::kOptional, Opt::kJobs},
    {"json", '\0', ArgKind::kNone, Opt::kJson},
    {"licenses", 'L', ArgKind::kRequired, Opt::kIgnoredValue},
    {"local", '\0', ArgKind::kNone, Opt::kIgnored},
    {"long", 'l', ArgKind::kNone, Opt::kLong},
    {"cluster", 'M', ArgKind::kRequired, Opt::kIgnoredValue},
    {"clusters", '\0', ArgKind::kRequired, Opt::kIgnoredValue},
    {"me", '\0', ArgKind::kNone, Opt::kMe},
    {"name", 'n', ArgKind::kRequired, Opt::kNames},
    {"noconvert", '\0', ArgKind::kNone, Opt::kNoConvert},
    {"nodelist", 'w', ArgKind::kRequired, Opt::kNodes},
    {"noheader", 'h', ArgKind::kNone, Opt::kNoHeader},
    {"partition", 'p', ArgKind::kRequired, Opt::kPartitions},
    {"partitions", '\0', ArgKind::kRequired, Opt::kPartitions},
    {"priority", 'P', ArgKind::kNone, Opt::kIgnored},
    {"qos", 'q', ArgKind::kRequired, Opt::kQos},
    {"reservation", 'R', ArgKind::kRequired, Opt::kIgnoredValue},
    {"sib", '\0', ArgKind::kNone, Opt::kIgnored},
    {"sibling", '\0', ArgKind::kNone, Opt::kIgnored},
    {"sort", 'S', ArgKind::kRequired, Opt::kSort},
    {"start", '\0', ArgKind::kNone, Opt::kStart},
    {"steps", 's', ArgKind::kOptional, Opt::kSteps},
    {"states", 't', ArgKind::kRequired, Opt::kStates},
    {"usage", '\0', ArgKind::kNone, Opt::kUsage},
    {"user", 'u', ArgKind::kRequired, Opt::kUsers},
    {"users", '\0', ArgKind::kRequired, Opt::kUsers},
    {"verbose", 'v', ArgKind::kNone, Opt::kIgnored},
    {"version", 'V', ArgKind::kNone, Opt::kVersion},
};
constexpr slurm::OptionTable kTable{"squeue", slurm::Ordering::kPermute, kOptions};

// Job states Slurm accepts in -t that no Canopy job is ever in: they match nothing.
constexpr absl::string_view kStatesCanopyLacks[] = {
    "SUSPENDED",   "S",  "BOOT_FAIL",    "BF", "DEADLINE",  "DL", "RESIZING",      "RS",
    "REVOKED",     "RV", "SPECIAL_EXIT", "SE", "STOPPED",   "ST", "RESV_DEL_HOLD", "RD",
    "REQUEUE_FED", "RF", "REQUEUE_HOLD", "RH", "SIGNALING", "SI", "STAGE_OUT",     "SO",
};

std::vector<std::string> SplitList(absl::string_view v) {
  return std::vector<std::string>(absl::StrSplit(v, ',', absl::SkipEmpty()));
}

absl::Status Error(absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat("error: ", message));
}

absl::Status SetJobs(absl::string_view value, SqueueOptions& o) {
  for (const std::string& id : SplitList(value)) {
    uint32_t n = 0;
    if (!absl::SimpleAtoi(id.substr(0, id.find('_')), &n)) {
      return Error(absl::StrCat("Invalid job id: ", id));
    }
    o.jobs.push_back(id);
  }
  return absl::OkStatus();
}

// "JOB[_TASK].STEP"; a step that is not a number is step 0, as strtol makes it in Slurm.
absl::Status SetSteps(absl::string_view value, SqueueOptions& o) {
  for (const std::string& item : SplitList(value)) {
    const size_t dot = item.find('.');
    if (dot == std::string::npos) {
      return Error(absl::StrCat("Invalid job_step id: ", item, ".??"));
    }
    const std::string job = item.substr(0, dot);
    StepSelector s;
    const size_t underscore = job.find('_');
    uint32_t task = 0;
    if (!absl::SimpleAtoi(job.substr(0, underscore), &s.job_id) ||
        (underscore != std::string::npos && !absl::SimpleAtoi(job.substr(underscore + 1), &task))) {
      return Error(absl::StrCat("Invalid job_step id: ", item));
    }
    if (underscore != std::string::npos) {
      s.array_task = task;
    }
    s.step_id = static_cast<uint32_t>(std::strtoul(item.c_str() + dot + 1, nullptr, 10));
    o.step_list.push_back(s);
  }
  return absl::OkStatus();
}

absl::Status SetStates(absl::string_view value, SqueueOptions& o) {
  for (const std::string& s : SplitList(value)) {
    if (absl::EqualsIgnoreCase(s, "all")) {
      o.all_states = true;
      continue;
    }
    if (std::optional<canopy::v1::JobState> st = output::ParseJobState(s); st.has_value()) {
      o.states.push_back(*st);
      continue;
    }
    bool known = false;
    for (absl::string_view lacking : kStatesCanopyLacks) {
      known = known || absl::EqualsIgnoreCase(s, lacking);
    }
    if (!known) {
      return Error(absl::StrCat(
          "Invalid job state specified: ", s,
          "\nerror: Valid job states include: PENDING,RUNNING,SUSPENDED,COMPLETED,CANCELLED,"
          "FAILED,TIMEOUT,NODE_FAIL,PREEMPTED,BOOT_FAIL,DEADLINE,OUT_OF_MEMORY,COMPLETING,"
          "CONFIGURING,RESIZING,RESV_DEL_HOLD,REQUEUED,REQUEUE_FED,REQUEUE_HOLD,REVOKED,"
          "SIGNALING,SPECIAL_EXIT,STAGE_OUT,STOPPED"));
    }
    // A state no Canopy job has: remember that -t was given, so that nothing matches.
    o.states.push_back(canopy::v1::JOB_STATE_UNSPECIFIED);
  }
  return absl::OkStatus();
}

absl::Status SetUsers(absl::string_view value, const SqueueEnvironment& env, SqueueOptions& o) {
  for (const std::string& user : SplitList(value)) {
    if (!env.lookup_user) {
      o.users.push_back(user);
      continue;
    }
    std::optional<uint32_t> uid = env.lookup_user(user);
    if (!uid.has_value()) {
      // squeue reports it, drops it, and goes on.
      o.warnings.push_back(absl::StrCat("squeue: error: Invalid user: ", user, "\n\n"));
      continue;
    }
    o.users.push_back(user);
    o.user_ids.push_back(*uid);
  }
  return absl::OkStatus();
}

// squeue reads -i with atoi and takes any positive number of seconds.
absl::Status SetIterate(absl::string_view value, SqueueOptions& o) {
  const long seconds = std::strtol(std::string(value).c_str(), nullptr, 10);
  if (seconds <= 0 || seconds > INT32_MAX) {
    return Error(absl::StrCat("--iterate=", value));
  }
  o.iterate_seconds = static_cast<int>(seconds);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<SqueueOptions> ParseSqueueArgs(const std::vector<std::string>& args,
                                              const SqueueEnvironment& env) {
  SqueueOptions o;
  if (env.squeue_format.has_value()) {
    o.format = *env.squeue_format;
  }
  if (env.squeue_format2.has_value() && o.format.empty()) {
    o.format_long = *env.squeue_format2;
  }
  if (env.squeue_sort.has_value()) {
    o.sort = *env.squeue_sort;
  }
  if (env.squeue_account.has_value()) {
    o.accounts = SplitList(*env.squeue_account);
  }
  if (env.squeue_names.has_value()) {
    o.names = SplitList(*env.squeue_names);
  }
  if (env.squeue_partition.has_value()) {
    o.partitions = SplitList(*env.squeue_partition);
  }
  if (env.squeue_qos.has_value()) {
    o.qos = SplitList(*env.squeue_qos);
  }
  o.expand_arrays = env.squeue_array;
  bool format_given = false;       // -o on the command line
  bool format_long_given = false;  // -O on the command line
  bool users_given = false;        // -u or --me on the command line (SQUEUE_USERS is not read)
  bool states_given = false;       // -t on the command line (SQUEUE_STATES is not read)
  bool jobs_flag = false;          // -j given without a list: the first operand is the list
  bool steps_flag = false;         // likewise for -s
  absl::StatusOr<std::vector<std::string>> operands = slurm::ParseCommandLine(
      kTable, args, [&](const slurm::OptionSpec& option, std::optional<absl::string_view> value) {
        const absl::string_view v = value.value_or("");
        switch (option.IdAs<Opt>()) {
          case Opt::kAccounts:
            o.accounts = SplitList(v);
            return absl::OkStatus();
          case Opt::kNoHeader:
            o.no_header = true;
            return absl::OkStatus();
          case Opt::kIterate:
            return SetIterate(v, o);
          case Opt::kJobs:
            jobs_flag = true;
            return value.has_value() ? SetJobs(v, o) : absl::OkStatus();
          case Opt::kJson:
            o.json = true;
            return absl::OkStatus();
          case Opt::kLong:
            o.long_format = true;
            return absl::OkStatus();
          case Opt::kMe:
            users_given = true;
            o.user_ids.push_back(env.uid);
            return absl::OkStatus();
          case Opt::kNames:
            o.names = SplitList(v);
            return absl::OkStatus();
          case Opt::kNoConvert:
            o.noconvert = true;
            return absl::OkStatus();
          case Opt::kFormat:
            if (format_long_given) {
              return Error("-o (--format) is incompatible with -O (--Format)");
            }
            format_given = true;
            o.format = std::string(v);
            o.format_long.clear();
            return absl::OkStatus();
          case Opt::kFormatLong:
            if (format_given) {
              return Error("-O (--Format) is incompatible with -o (--format)");
            }
            format_long_given = true;
            o.format_long = std::string(v);
            o.format.clear();
            return absl::OkStatus();
          case Opt::kPartitions:
            o.partitions = SplitList(v);
            return absl::OkStatus();
          case Opt::kQos:
            o.qos = SplitList(v);
            return absl::OkStatus();
          case Opt::kArray:
            o.expand_arrays = true;
            return absl::OkStatus();
          case Opt::kSteps:
            o.steps = true;
            steps_flag = true;
            return value.has_value() ? SetSteps(v, o) : absl::OkStatus();
          case Opt::kSort:
            o.sort = std::string(v);
            return absl::OkStatus();
          case Opt::kStart:
            o.start = true;
            return absl::OkStatus();
          case Opt::kStates:
            states_given = true;
            return SetStates(v, o);
          case Opt::kUsers:
            users_given = true;
            return SetUsers(v, env, o);
          case Opt::kNodes: {
            absl::StatusOr<std::vector<std::string>> nodes = slurm::ExpandHostlist(std::string(v));
            if (!nodes.ok()) {
              return Error(absl::StrCat("Invalid node name ", v));
            }
            o.nodes = *std::move(nodes);
            return absl::OkStatus();
          }
          case Opt::kHelp:
          case Opt::kUsage:
          case Opt::kVersion:
            o.info = option.IdAs<Opt>() == Opt::kHelp    ? InfoRequest::kHelp
                     : option.IdAs<Opt>() == Opt::kUsage ? InfoRequest::kUsage
                                                         : InfoRequest::kVersion;
            return slurm::StopAtInfoRequest();
          case Opt::kIgnored:
          case Opt::kIgnoredValue:
            return absl::OkStatus();
        }
        return absl::InternalError("unhandled squeue option");
      });
  if (!operands.ok()) {
    if (slurm::StoppedAtInfoRequest(operands.status())) {
      return o;
    }
    return operands.status();
  }
  size_t next = 0;
  if (jobs_flag && next < operands->size()) {
    if (absl::Status s = SetJobs((*operands)[next++], o); !s.ok()) {
      return s;
    }
  }
  if (steps_flag && next < operands->size()) {
    if (absl::Status s = SetSteps((*operands)[next++], o); !s.ok()) {
      return s;
    }
  }
  if (next < operands->size()) {
    return Error(absl::StrCat("Unrecognized option: ", (*operands)[next]));
  }
  if (o.long_format && format_given) {
    return absl::InvalidArgumentError(
        "fatal: Options -o(--format) and -l(--long) are mutually exclusive. Please remove one "
        "and retry.");
  }
  // SQUEUE_STATES and SQUEUE_USERS only where -t, or -u and --me, were not given, as squeue
  // reads them: a bad value the command line overrides is no error.
  if (!states_given && env.squeue_states.has_value()) {
    if (absl::Status s = SetStates(*env.squeue_states, o); !s.ok()) {
      return s;
    }
  }
  const bool env_users = !users_given && env.squeue_users.has_value() && !env.squeue_users->empty();
  if (env_users) {
    if (absl::Status s = SetUsers(*env.squeue_users, env, o); !s.ok()) {
      return s;
    }
  }
  if ((users_given || env_users) && o.users.empty() && o.user_ids.empty()) {
    // Every user named was unknown: squeue then lists no job.
    o.user_ids.push_back(UINT32_MAX);
  }
  return o;
}

}  // namespace canopy::ctl::squeue
