#include "ctl/sacct/options.h"

#include <optional>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/time/civil_time.h"
#include "common/slurm/getopt.h"
#include "common/slurm/hostlist.h"
#include "ctl/output/job_format.h"
#include "ctl/sacct/past_time.h"

namespace canopy::ctl::sacct {
namespace {

enum class Opt {
  kAllUsers,
  kAccounts,
  kAllocations,
  kBrief,
  kCompletion,
  kDelimiter,
  kDuplicates,
  kHelpFormat,
  kEndTime,
  kHelp,
  kJson,
  kName,
  kJobs,
  kLong,
  kNodeList,
  kNoConvert,
  kNoHeader,
  kFormat,
  kParsable,
  kParsable2,
  kQos,
  kPartition,
  kState,
  kStartTime,
  kUsers,
  kUsage,
  kVersion,
  kIgnored,       // one cluster, no statistics to truncate: nothing to do
  kIgnoredValue,  // likewise, with a value (-M cluster)
};

using slurm::ArgKind;

// Slurm 22.05's table (src/sacct/options.c) for the options Canopy serves or accepts.
constexpr slurm::OptionSpec kOptions[] = {
    {"allusers", 'a', ArgKind::kNone, Opt::kAllUsers},
    {"accounts", 'A', ArgKind::kRequired, Opt::kAccounts},
    {"allocations", 'X', ArgKind::kNone, Opt::kAllocations},
    {"", 't', ArgKind::kNone, Opt::kAllocations},  // -t: the old spelling of -X
    {"brief", 'b', ArgKind::kNone, Opt::kBrief},
    {"completion", 'c', ArgKind::kNone, Opt::kCompletion},
    {"delimiter", '\0', ArgKind::kRequired, Opt::kDelimiter},
    {"duplicates", 'D', ArgKind::kNone, Opt::kDuplicates},
    {"federation", '\0', ArgKind::kNone, Opt::kIgnored},
    {"helpformat", 'e', ArgKind::kNone, Opt::kHelpFormat},
    {"help-fields", '\0', ArgKind::kNone, Opt::kHelpFormat},
    {"endtime", 'E', ArgKind::kRequired, Opt::kEndTime},
    {"help", 'h', ArgKind::kNone, Opt::kHelp},
    {"json", '\0', ArgKind::kNone, Opt::kJson},
    {"local", '\0', ArgKind::kNone, Opt::kIgnored},
    {"name", '\0', ArgKind::kRequired, Opt::kName},
    {"jobs", 'j', ArgKind::kRequired, Opt::kJobs},
    {"long", 'l', ArgKind::kNone, Opt::kLong},
    {"allclusters", 'L', ArgKind::kNone, Opt::kIgnored},
    {"cluster", 'M', ArgKind::kRequired, Opt::kIgnoredValue},
    {"clusters", '\0', ArgKind::kRequired, Opt::kIgnoredValue},
    {"nodelist", 'N', ArgKind::kRequired, Opt::kNodeList},
    {"noconvert", '\0', ArgKind::kNone, Opt::kNoConvert},
    {"noheader", 'n', ArgKind::kNone, Opt::kNoHeader},
    {"fields", '\0', ArgKind::kRequired, Opt::kFormat},
    {"format", 'o', ArgKind::kRequired, Opt::kFormat},
    {"parsable", 'p', ArgKind::kNone, Opt::kParsable},
    {"parsable2", 'P', ArgKind::kNone, Opt::kParsable2},
    {"qos", 'q', ArgKind::kRequired, Opt::kQos},
    {"partition", 'r', ArgKind::kRequired, Opt::kPartition},
    {"state", 's', ArgKind::kRequired, Opt::kState},
    {"starttime", 'S', ArgKind::kRequired, Opt::kStartTime},
    {"truncate", 'T', ArgKind::kNone, Opt::kIgnored},
    {"uid", 'u', ArgKind::kRequired, Opt::kUsers},
    {"usage", '\0', ArgKind::kNone, Opt::kUsage},
    {"user", '\0', ArgKind::kRequired, Opt::kUsers},
    {"verbose", 'v', ArgKind::kNone, Opt::kIgnored},
    {"version", 'V', ArgKind::kNone, Opt::kVersion},
};
constexpr slurm::OptionTable kTable{"sacct", slurm::Ordering::kPermute, kOptions};

// src/sacct/sacct.h.
constexpr absl::string_view kDefaultFields =
    "jobid,jobname,partition,account,alloccpus,state,exitcode";
constexpr absl::string_view kBriefFields = "jobid,state,exitcode";
constexpr absl::string_view kLongFields =
    "jobid,jobidraw,jobname,partition,maxvmsize,maxvmsizenode,maxvmsizetask,avevmsize,maxrss,"
    "maxrssnode,maxrsstask,averss,maxpages,maxpagesnode,maxpagestask,avepages,mincpu,mincpunode,"
    "mincputask,avecpu,ntasks,alloccpus,elapsed,state,exitcode,avecpufreq,reqcpufreqmin,"
    "reqcpufreqmax,reqcpufreqgov,reqmem,consumedenergy,maxdiskread,maxdiskreadnode,"
    "maxdiskreadtask,avediskread,maxdiskwrite,maxdiskwritenode,maxdiskwritetask,avediskwrite,"
    "reqtres,alloctres,tresusageinave,tresusageinmax,tresusageinmaxn,tresusageinmaxt,"
    "tresusageinmin,tresusageinminn,tresusageinmint,tresusageintot,tresusageoutmax,"
    "tresusageoutmaxn,tresusageoutmaxt,tresusageoutave,tresusageouttot";
constexpr absl::string_view kDefaultCompletionFields =
    "jobid,uid,jobname,partition,nnodes,nodelist,state,end";
constexpr absl::string_view kBriefCompletionFields = "jobid,uid,state";
constexpr absl::string_view kLongCompletionFields =
    "jobid,uid,jobname,partition,nnodes,nodelist,state,start,end,timelimit";

// Job states Slurm knows (job_state_num) that no Canopy job is ever in.
constexpr absl::string_view kStatesCanopyLacks[] = {
    "SUSPENDED",   "S",  "BOOT_FAIL",    "BF", "DEADLINE",  "DL", "RESIZING",      "RS",
    "REVOKED",     "RV", "SPECIAL_EXIT", "SE", "STOPPED",   "ST", "RESV_DEL_HOLD", "RD",
    "REQUEUE_FED", "RF", "REQUEUE_HOLD", "RH", "SIGNALING", "SI", "STAGE_OUT",     "SO",
};

// slurm_addto_char_list: comma-separated, empty items dropped.
std::vector<std::string> SplitList(absl::string_view v) {
  return std::vector<std::string>(absl::StrSplit(v, ',', absl::SkipEmpty()));
}

absl::Status Fatal(absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat("sacct: fatal: ", message));
}

// atoi of the leading digits (the caller has checked there is at least one).
uint32_t LeadingNumber(absl::string_view s) {
  size_t end = 0;
  while (end < s.size() && absl::ascii_isdigit(static_cast<unsigned char>(s[end]))) {
    ++end;
  }
  uint32_t n = 0;
  if (!absl::SimpleAtoi(s.substr(0, end), &n)) {
    n = 0;
  }
  return n;
}

bool StartsWithDigit(absl::string_view s) {
  return !s.empty() && absl::ascii_isdigit(static_cast<unsigned char>(s[0]));
}

// slurm_addto_step_list: "ID[_TASK][.STEP]" items.
absl::Status AddJobs(absl::string_view value, SacctOptions& o) {
  for (absl::string_view item : absl::StrSplit(value, ',', absl::SkipEmpty())) {
    if (!StartsWithDigit(item)) {
      return Fatal(absl::StrCat("Bad job/step specified: ", item));
    }
    JobSelector selector;
    absl::string_view job = item;
    if (const size_t dot = item.find('.'); dot != absl::string_view::npos) {
      job = item.substr(0, dot);
      const absl::string_view step = item.substr(dot + 1);
      if (step == "batch" || step == "extern") {
        selector.step = std::string(step);
      } else if (StartsWithDigit(step)) {
        selector.step = absl::StrCat(LeadingNumber(step));
      } else {
        return Fatal(absl::StrCat("Bad step specified: ", job));
      }
    }
    if (const size_t underscore = job.find('_'); underscore != absl::string_view::npos) {
      const absl::string_view task = job.substr(underscore + 1);
      job = job.substr(0, underscore);
      if (!StartsWithDigit(task)) {
        return Fatal(absl::StrCat("Bad job array element specified: ", job));
      }
      selector.array_task = LeadingNumber(task);
    }
    selector.job_id = LeadingNumber(job);
    o.jobs.push_back(std::move(selector));
  }
  return absl::OkStatus();
}

// _addto_state_char_list: job_state_num of each name; sacct dies at the first unknown one,
// quoting it only when it is the last item.
absl::Status AddStates(absl::string_view value, SacctOptions& o) {
  o.states_given = true;
  const std::vector<absl::string_view> items = absl::StrSplit(value, ',');
  for (size_t i = 0; i < items.size(); ++i) {
    const absl::string_view name = items[i];
    if (name.empty()) {
      continue;
    }
    if (std::optional<canopy::v1::JobState> state = output::ParseJobState(name)) {
      o.states.push_back(*state);
      continue;
    }
    bool known = false;
    for (absl::string_view other : kStatesCanopyLacks) {
      known = known || absl::EqualsIgnoreCase(name, other);
    }
    if (!known) {
      return Fatal(i + 1 == items.size() ? absl::StrCat("unrecognized job state value '", name, "'")
                                         : absl::StrCat("unrecognized job state value ", name));
    }
  }
  return absl::OkStatus();
}

// _addto_id_char_list: each name or number becomes a uid; an unknown one ends sacct.
absl::Status AddUsers(absl::string_view value, const SacctEnvironment& env, SacctOptions& o) {
  for (const std::string& user : SplitList(value)) {
    uint32_t uid = 0;
    if (absl::SimpleAtoi(user, &uid)) {
      o.user_ids.push_back(uid);
      continue;
    }
    std::optional<uint32_t> found = env.lookup_user ? env.lookup_user(user) : std::nullopt;
    if (!found.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat("sacct: error: Invalid user id: ", user));
    }
    o.user_ids.push_back(*found);
  }
  return absl::OkStatus();
}

absl::Status SetTime(absl::string_view value, const SacctEnvironment& env,
                     std::optional<absl::Time>& out) {
  absl::StatusOr<absl::Time> t = ParsePastTime(value, env.now, env.tz);
  if (!t.ok()) {
    return t.status();
  }
  out = *t;
  return absl::OkStatus();
}

// getopt's line with sacct's prefix: sacct's '?' case exits without the "Try" hint.
absl::Status GetoptError(const absl::Status& status) {
  const absl::string_view message = status.message();
  return absl::InvalidArgumentError(absl::StrCat("sacct: ", message.substr(0, message.find('\n'))));
}

struct Flags {
  bool brief = false;
  bool long_format = false;
  std::string field_list;  // every -o, each followed by ','
};

absl::Status Apply(const slurm::OptionSpec& option, absl::string_view v,
                   const SacctEnvironment& env, Flags& f, SacctOptions& o) {
  switch (option.IdAs<Opt>()) {
    case Opt::kAllUsers:
      o.all_users = true;
      return absl::OkStatus();
    case Opt::kAccounts:
      for (std::string& a : SplitList(v)) {
        o.accounts.push_back(std::move(a));
      }
      return absl::OkStatus();
    case Opt::kAllocations:
      o.allocations = true;
      return absl::OkStatus();
    case Opt::kBrief:
      f.brief = true;
      return absl::OkStatus();
    case Opt::kCompletion:
      o.completion = true;
      return absl::OkStatus();
    case Opt::kDelimiter:
      o.delimiter = std::string(v);
      return absl::OkStatus();
    case Opt::kDuplicates:
      o.duplicates = true;
      return absl::OkStatus();
    case Opt::kHelpFormat:
      o.helpformat = true;
      return absl::OkStatus();
    case Opt::kEndTime:
      return SetTime(v, env, o.end);
    case Opt::kHelp:
      o.help = true;
      return absl::OkStatus();
    case Opt::kJson:
      o.json = true;
      return absl::OkStatus();
    case Opt::kName:
      for (std::string& n : SplitList(v)) {
        o.names.push_back(std::move(n));
      }
      return absl::OkStatus();
    case Opt::kJobs:
      return AddJobs(v, o);
    case Opt::kLong:
      f.long_format = true;
      return absl::OkStatus();
    case Opt::kNodeList: {
      // sacct keeps the first -N (and says "Aleady asked for nodes" to later ones).
      if (!o.nodes.empty()) {
        return absl::OkStatus();
      }
      absl::StatusOr<std::vector<std::string>> nodes =
          slurm::ExpandHostlist(std::string_view(v.data(), v.size()));
      o.nodes = nodes.ok() ? *std::move(nodes) : std::vector<std::string>{std::string(v)};
      return absl::OkStatus();
    }
    case Opt::kNoConvert:
      o.noconvert = true;
      return absl::OkStatus();
    case Opt::kNoHeader:
      o.no_header = true;
      return absl::OkStatus();
    case Opt::kFormat:
      absl::StrAppend(&f.field_list, v, ",");
      return absl::OkStatus();
    case Opt::kParsable:
      o.mode = output::FieldsMode::kParsable;
      return absl::OkStatus();
    case Opt::kParsable2:
      o.mode = output::FieldsMode::kParsable2;
      return absl::OkStatus();
    case Opt::kQos:
      for (std::string& q : SplitList(v)) {
        o.qos.push_back(std::move(q));
      }
      return absl::OkStatus();
    case Opt::kPartition:
      for (std::string& p : SplitList(v)) {
        o.partitions.push_back(std::move(p));
      }
      return absl::OkStatus();
    case Opt::kState:
      return AddStates(v, o);
    case Opt::kStartTime:
      return SetTime(v, env, o.start);
    case Opt::kUsers:
      if (v == "-1") {
        o.all_users = true;
        return absl::OkStatus();
      }
      o.all_users = false;
      o.users_given = true;
      return AddUsers(v, env, o);
    case Opt::kUsage:
      o.usage = true;
      return absl::OkStatus();
    case Opt::kVersion:
      o.version = true;
      return absl::OkStatus();
    case Opt::kIgnored:
    case Opt::kIgnoredValue:
      return absl::OkStatus();
  }
  return absl::InternalError("unhandled sacct option");
}

// The field list as sacct assembles it: every -o, then -b's and -l's lists; when none of them
// was given, SACCT_FORMAT or the default.
std::string FieldList(const Flags& f, const SacctOptions& o, const SacctEnvironment& env) {
  std::string list = f.field_list;
  if (f.brief) {
    absl::StrAppend(&list, o.completion ? kBriefCompletionFields : kBriefFields, ",");
  }
  if (f.long_format) {
    absl::StrAppend(&list, o.completion ? kLongCompletionFields : kLongFields, ",");
  }
  if (list.empty()) {
    if (o.completion) {
      list = std::string(kDefaultCompletionFields);
    } else if (env.sacct_format.has_value()) {
      list = *env.sacct_format;
    } else {
      list = std::string(kDefaultFields);
    }
  }
  return list;
}

}  // namespace

absl::StatusOr<SacctOptions> ParseSacctArgs(const std::vector<std::string>& args,
                                            const SacctEnvironment& env) {
  SacctOptions o;
  Flags f;
  absl::Status handler_error;
  absl::StatusOr<std::vector<std::string>> operands = slurm::ParseCommandLine(
      kTable, args, [&](const slurm::OptionSpec& option, std::optional<absl::string_view> value) {
        handler_error = Apply(option, value.value_or(""), env, f, o);
        return handler_error;
      });
  if (!operands.ok()) {
    return handler_error.ok() ? GetoptError(operands.status()) : operands.status();
  }
  if (o.help || o.usage || o.version || o.helpformat) {
    return o;
  }

  // The window: from 00:00 today unless -S or -j; from now with -s (the jobs in those states
  // now), as sacct defaults it. With -s and -S but no -E the window ends where it starts
  // (sacct(1), "DEFAULT TIME WINDOW"): the jobs in those states at that moment.
  if (o.states_given && o.start.has_value() && !o.end.has_value()) {
    o.end = o.start;
  }
  if (!o.start.has_value() && o.jobs.empty()) {
    if (o.states_given) {
      o.start = env.now;
    } else {
      const absl::CivilDay today = absl::ToCivilDay(env.now, env.tz);
      o.start = absl::FromCivil(today, env.tz);
    }
  }
  // -j or -N without -u: everyone's jobs; so for root without -u.
  if (o.user_ids.empty() && (!o.jobs.empty() || !o.nodes.empty())) {
    o.all_users = true;
  }
  if (!o.users_given && env.uid == 0) {
    o.all_users = true;
  }
  if (o.all_users) {
    o.user_ids.clear();
  }

  absl::StatusOr<std::vector<FieldColumn>> columns = ParseFieldList(FieldList(f, o, env));
  if (!columns.ok()) {
    return columns.status();
  }
  o.columns = *std::move(columns);

  if (!operands->empty()) {
    std::string message = "sacct: error: Unknown arguments:";
    for (const std::string& operand : *operands) {
      absl::StrAppend(&message, "\nsacct: error:  ", operand);
    }
    return absl::InvalidArgumentError(message);
  }
  return o;
}

std::string SacctUsage() { return "Usage: sacct [options]\n\tUse --help for help\n"; }

std::string SacctHelp() {
  return "Usage: sacct [OPTIONS]\n"
         "Canopy's sacct: accounting records of jobs and their steps, as Slurm 22.05's sacct\n"
         "prints them.\n"
         "  -a, --allusers         every user's jobs (the default for root)\n"
         "  -A, --accounts=LIST    only jobs of these accounts\n"
         "  -b, --brief            the fields JobID,State,ExitCode\n"
         "  -c, --completion       the job completion view (JobID,UID,JobName,...,End)\n"
         "      --delimiter=STR    field separator with -p or -P (default '|')\n"
         "  -D, --duplicates       also the earlier runs of requeued jobs\n"
         "  -e, --helpformat       list the fields -o accepts\n"
         "  -E, --endtime=TIME     jobs eligible, running or ended before TIME\n"
         "  -h, --help             this text\n"
         "  -j, --jobs=LIST        these jobs: ID, ID_TASK, ID.STEP (a step only)\n"
         "      --json             the records as JSON (Slurm's data_parser v0.0.38)\n"
         "  -l, --long             the long field list\n"
         "  -n, --noheader         no header lines\n"
         "      --name=LIST        only jobs with these names\n"
         "      --noconvert        memory in MiB, not converted to G, T, ...\n"
         "  -N, --nodelist=HOSTS   jobs that ran on any of these nodes\n"
         "  -o, --format=FIELDS    comma-separated fields, each optionally NAME%WIDTH\n"
         "  -p, --parsable         '|'-separated, with a '|' at the end\n"
         "  -P, --parsable2        '|'-separated, without one at the end\n"
         "  -q, --qos=LIST         only jobs of these QOS\n"
         "  -r, --partition=LIST   only jobs of these partitions\n"
         "  -s, --state=LIST       jobs in these states (PD,R,CD,F,CA,TO,NF,OOM,...)\n"
         "  -S, --starttime=TIME   jobs eligible, running or ended after TIME\n"
         "                         (default 00:00 today, or now with -s; none with -j)\n"
         "  -u, --user=LIST        jobs of these users (names or uids; -1 = all)\n"
         "      --usage            a one-line summary\n"
         "  -V, --version          the Slurm version Canopy follows\n"
         "  -X, --allocations      job lines only, no steps\n"
         "TIME: HH:MM[:SS] [AM|PM], MMDD[YY], MM/DD[/YY], MM.DD[.YY], MM/DD[/YY]-HH:MM[:SS],\n"
         "      YYYY-MM-DD[THH:MM[:SS]], today, midnight, noon, now[{+|-}COUNT[seconds|minutes|\n"
         "      hours|days|weeks]]\n";
}

std::string SacctHelpFormat() {
  // Four names a line, each in 19 columns, as sacct -e lists them.
  std::string text;
  const std::vector<FieldDef>& fields = AllFields();
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i % 4 != 0) {
      text += " ";
    } else if (i != 0) {
      text += "\n";
    }
    absl::StrAppendFormat(&text, "%-19s", fields[i].name);
  }
  return text + "\n";
}

}  // namespace canopy::ctl::sacct
