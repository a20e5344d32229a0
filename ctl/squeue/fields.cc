// squeue's job fields (fields.h). Headers and the values of unset fields are those Slurm
// 22.05's squeue printed for the same job (docs: squeue(1), -o and -O).
#include "ctl/squeue/fields.h"

#include <algorithm>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/slurm/hostlist.h"
#include "common/slurm/time_format.h"
#include "ctl/output/job_format.h"
#include "ctl/output/proto_time.h"
#include "ctl/squeue/job_values.h"

namespace canopy::ctl::squeue {
namespace {

using canopy::v1::Job;
using Ctx = FieldContext;
using Row = JobRow;

std::string OrNull(const std::string& s) { return s.empty() ? "(null)" : s; }

std::string Time(const google::protobuf::Timestamp& t, const Ctx& c, const char* unset) {
  return output::FormatTimestampOr(t, c.tz, unset);
}

bool Pending(const Job& job) { return job.state() == canopy::v1::JOB_STATE_PENDING; }

std::string Reason(const Job& job) { return job.reason().empty() ? "None" : job.reason(); }

std::string ArrayTaskId(const Row& r) {
  if (r.pending_group) {
    return r.task_string;
  }
  return r.job->array_job_id() != 0 ? absl::StrCat(r.job->array_task_id()) : "N/A";
}

std::string EndTime(const Row& r, const Ctx& c) {
  const Job& job = *r.job;
  if (output::IsSet(job.end_time())) {
    return Time(job.end_time(), c, "N/A");
  }
  if (!HasStarted(job)) {
    return "N/A";
  }
  // A running job without a limit never ends by itself: squeue prints NONE.
  const int64_t end = ExpectedEndSeconds(job);
  return end == 0 ? "NONE" : slurm::FormatSlurmTimestamp(absl::FromUnixSeconds(end), c.tz);
}

std::string StartTime(const Row& r, const Ctx& c) {
  // A pending job's expected start, from its backfill reservation.
  return Time(Pending(*r.job) ? r.job->expected_start() : r.job->start_time(), c, "N/A");
}

std::string TimeLeft(const Row& r, const Ctx& c) {
  if (!r.job->has_time_limit()) {
    return "UNLIMITED";
  }
  return slurm::FormatSlurmDuration(absl::Seconds(r.job->time_limit().seconds()) -
                                    output::JobRunTime(*r.job, c.now));
}

std::string ReasonList(const Row& r, const Ctx&) {
  const Job& job = *r.job;
  // Pending, failed and timed-out jobs show why; others their nodes.
  const bool why = Pending(job) || job.state() == canopy::v1::JOB_STATE_FAILED ||
                   job.state() == canopy::v1::JOB_STATE_TIMEOUT || job.nodes().empty();
  return why ? absl::StrCat("(", Reason(job), ")") : NodeListOf(job);
}

std::string SchedNodes(const Row& r, const Ctx&) {
  const Job& job = *r.job;
  return job.expected_nodes().empty()
             ? "(null)"
             : slurm::CompressHostlist(std::vector<std::string>(job.expected_nodes().begin(),
                                                                job.expected_nodes().end()));
}

// job_share_string: a whole-node job shares nothing ("NO"); --exclusive=user|mcs say whom it
// shares with; --exclusive=oversubscribe (--oversubscribe) "YES"; the partition decides ("OK").
std::string OverSubscribe(const Row& r, const Ctx&) {
  const canopy::v1::JobSpec& spec = r.job->spec();
  if (spec.exclusive_mode() == "user") {
    return "USER";
  }
  if (spec.exclusive_mode() == "mcs") {
    return "MCS";
  }
  if (spec.exclusive_mode() == "oversubscribe") {
    return "YES";
  }
  return spec.exclusive() ? "NO" : "OK";
}

std::string BatchHost(const Row& r, const Ctx&) {
  return r.job->nodes().empty() ? "n/a" : r.job->nodes(0);
}

std::string Seconds(int64_t s) { return absl::StrCat(std::max<int64_t>(0, s)); }

// Seconds from submission to the start, or to now while pending.
std::string PendingTime(const Row& r, const Ctx& c) {
  const Job& job = *r.job;
  const int64_t until = HasStarted(job) ? job.start_time().seconds() : absl::ToUnixSeconds(c.now);
  return Seconds(until - job.submit_time().seconds());
}

std::string StdOut(const Row& r, const Ctx&) {
  const canopy::v1::JobSpec& spec = r.job->spec();
  if (!spec.stdout_path().empty()) {
    return spec.stdout_path();
  }
  return absl::StrCat(spec.work_dir(), "/slurm-", r.base_id, ".out");
}

std::string GresOr(int count, const char* unset) {
  return count > 0 ? absl::StrCat("gres:gpu:", count) : unset;
}

std::string TresAlloc(const Row& r, const Ctx& c) {
  const Job& job = *r.job;
  if (job.nodes().empty()) {
    return RequestedTres(job);  // what squeue shows before the job has an allocation
  }
  int64_t cpus = 0;
  int64_t mem = 0;
  int64_t gpus = 0;
  for (int n : job.cpus_allocated()) {
    cpus += n;
  }
  for (int64_t m : job.mem_allocated_mib()) {
    mem += m;
  }
  for (int g : job.gpus_per_node_allocated()) {
    gpus += g;
  }
  if (cpus == 0) {
    cpus = output::JobCpuCount(job);
  }
  std::string s = absl::StrCat("cpu=", cpus);
  if (mem > 0) {
    absl::StrAppend(&s, ",mem=", MemoryString(mem, c.noconvert));
  }
  absl::StrAppend(&s, ",node=", job.nodes_size(), ",billing=", cpus);
  if (gpus > 0) {
    absl::StrAppend(&s, ",gres/gpu=", gpus);
  }
  return s;
}

std::string GroupName(const Row& r, const Ctx& c) {
  return c.group_name ? c.group_name(r.job->group_id()) : absl::StrCat(r.job->group_id());
}

// Letters and names as in squeue(1); several -O names print the same field.
const JobField kJobFields[] = {
    {'a', "account", "ACCOUNT",
     [](const Row& r, const Ctx&) { return OrNull(r.job->spec().account()); }},
    {'b', "tres-per-node", "TRES_PER_NODE",
     [](const Row& r, const Ctx&) { return output::TresPerNode(r.job->spec()); }},
    {'c', "mincpus", "MIN_CPUS",
     [](const Row& r, const Ctx&) {
       return absl::StrCat(std::max(1, r.job->spec().cpus_per_task()));
     }},
    {'d', "mintmpdisk", "MIN_TMP_DISK", [](const Row&, const Ctx&) -> std::string { return "0"; }},
    {'e', "endtime", "END_TIME", EndTime},
    {'f', "feature", "FEATURES", [](const Row&, const Ctx&) -> std::string { return "(null)"; }},
    {'g', "groupname", "GROUP", GroupName},
    {'h', "oversubscribe,shared", "OVER_SUBSCRIBE", OverSubscribe},
    {'i', "jobarrayid", "JOBID", [](const Row& r, const Ctx&) { return r.id; }},
    {'j', "name", "NAME", [](const Row& r, const Ctx&) { return r.job->spec().name(); }},
    {'k', "comment", "COMMENT",
     [](const Row& r, const Ctx&) { return OrNull(r.job->spec().comment()); }},
    {'l', "timelimit", "TIME_LIMIT",
     [](const Row& r, const Ctx&) { return output::JobTimeLimitString(*r.job); }},
    {'m', "minmemory", "MIN_MEMORY",
     [](const Row& r, const Ctx& c) {
       return MemoryString(r.job->spec().mem_per_node_mib(), c.noconvert);
     }},
    {'n', "reqnodes", "REQ_NODES",
     [](const Row& r, const Ctx&) { return r.job->spec().required_nodes(); }},
    // Slurm records the batch script's path; Canopy keeps only its text.
    {'o', "command", "COMMAND", [](const Row&, const Ctx&) -> std::string { return "(null)"; }},
    {'p', "priority", "PRIORITY",
     [](const Row& r, const Ctx&) { return NormalizedPriority(r.job->priority()); }},
    {'q', "qos", "QOS", [](const Row& r, const Ctx&) { return output::JobQosName(*r.job); }},
    {'r', "reason", "REASON", [](const Row& r, const Ctx&) { return Reason(*r.job); }},
    {'s', "selectjobinfo", "", [](const Row&, const Ctx&) -> std::string { return ""; }},
    {'t', "statecompact", "ST",
     [](const Row& r, const Ctx&) { return output::JobStateCompact(r.job->state()); }},
    {'u', "username", "USER", [](const Row& r, const Ctx&) { return UserNameOf(*r.job); }},
    {'v', "reservation", "RESERVATION",
     [](const Row& r, const Ctx&) { return OrNull(r.job->spec().reservation()); }},
    {'w', "wckey", "WCKEY", [](const Row& r, const Ctx&) { return OrNull(r.job->spec().wckey()); }},
    {'x', "", "EXC_NODES", [](const Row& r, const Ctx&) { return r.job->spec().excluded_nodes(); }},
    {'y', "nice", "NICE", [](const Row& r, const Ctx&) { return absl::StrCat(r.job->spec().nice()); }},
    {'z', "sct", "S:C:T", [](const Row&, const Ctx&) -> std::string { return "*:*:*"; }},
    {'A', "jobid", "JOBID", [](const Row& r, const Ctx&) { return absl::StrCat(r.base_id); }},
    {'B', "batchhost", "EXEC_HOST", BatchHost},
    {'C', "numcpus", "CPUS",
     [](const Row& r, const Ctx&) { return absl::StrCat(output::JobCpuCount(*r.job)); }},
    {'D', "numnodes", "NODES",
     [](const Row& r, const Ctx&) { return absl::StrCat(output::JobNodeCount(*r.job)); }},
    {'E', "dependency", "DEPENDENCY",
     [](const Row& r, const Ctx&) { return DependencyString(r.job->spec()); }},
    {'F', "arrayjobid", "ARRAY_JOB_ID",
     [](const Row& r, const Ctx&) {
       return absl::StrCat(r.job->array_job_id() != 0 ? r.job->array_job_id() : r.base_id);
     }},
    {'G', "groupid", "GROUP", [](const Row& r, const Ctx&) { return absl::StrCat(r.job->group_id()); }},
    {'H', "sockets", "SOCKETS_PER_NODE", [](const Row&, const Ctx&) -> std::string { return "*"; }},
    {'I', "cores", "CORES_PER_SOCKET", [](const Row&, const Ctx&) -> std::string { return "*"; }},
    {'J', "threads", "THREADS_PER_CORE", [](const Row&, const Ctx&) -> std::string { return "*"; }},
    {'K', "arraytaskid", "ARRAY_TASK_ID", [](const Row& r, const Ctx&) { return ArrayTaskId(r); }},
    {'L', "timeleft", "TIME_LEFT", TimeLeft},
    {'M', "timeused", "TIME",
     [](const Row& r, const Ctx& c) {
       return slurm::FormatSlurmDuration(output::JobRunTime(*r.job, c.now));
     }},
    {'N', "nodelist", "NODELIST", [](const Row& r, const Ctx&) { return NodeListOf(*r.job); }},
    {'O', "contiguous", "CONTIGUOUS", [](const Row&, const Ctx&) -> std::string { return "0"; }},
    {'P', "partition", "PARTITION", [](const Row& r, const Ctx&) { return PartitionOf(*r.job); }},
    {'Q', "prioritylong", "PRIORITY",
     [](const Row& r, const Ctx&) { return absl::StrCat(r.job->priority()); }},
    {'R', "reasonlist", "NODELIST(REASON)", ReasonList},
    {'S', "starttime", "START_TIME", StartTime},
    {'T', "state", "STATE",
     [](const Row& r, const Ctx&) { return output::JobStateName(r.job->state()); }},
    {'U', "userid", "UID", [](const Row& r, const Ctx&) { return absl::StrCat(r.job->user_id()); }},
    {'V', "submittime", "SUBMIT_TIME",
     [](const Row& r, const Ctx& c) { return Time(r.job->submit_time(), c, "N/A"); }},
    {'W', "licenses", "LICENSES", [](const Row&, const Ctx&) -> std::string { return "(null)"; }},
    {'X', "corespec", "CORE_SPEC", [](const Row&, const Ctx&) -> std::string { return "N/A"; }},
    {'Y', "schednodes", "SCHEDNODES", SchedNodes},
    {'Z', "workdir", "WORK_DIR", [](const Row& r, const Ctx&) { return r.job->spec().work_dir(); }},
    // -O only.
    {'\0', "accruetime", "ACCRUE_TIME",
     [](const Row& r, const Ctx& c) {
       // Held jobs accrue no age.
       return absl::StartsWith(r.job->reason(), "JobHeld") ? "N/A"
                                                           : Time(r.job->eligible_time(), c, "N/A");
     }},
    {'\0', "admin_comment", "ADMIN_COMMENT",
     [](const Row&, const Ctx&) -> std::string { return "(null)"; }},
    {'\0', "allocnodes", "ALLOC_NODES",
     [](const Row& r, const Ctx&) { return OrNull(r.job->spec().submit_host()); }},
    {'\0', "allocsid", "ALLOC_SID", [](const Row&, const Ctx&) -> std::string { return "0"; }},
    {'\0', "associd", "ASSOC_ID", [](const Row&, const Ctx&) -> std::string { return "0"; }},
    {'\0', "batchflag", "BATCH_FLAG",
     [](const Row& r, const Ctx&) -> std::string { return IsBatchJob(*r.job) ? "1" : "0"; }},
    {'\0', "boardspernode", "BOARDS_PER_NODE",
     [](const Row&, const Ctx&) -> std::string { return "0"; }},
    {'\0', "burstbuffer", "BURST_BUFFER",
     [](const Row&, const Ctx&) -> std::string { return "(null)"; }},
    {'\0', "burstbufferstate", "BURST_BUFFER_STATE",
     [](const Row&, const Ctx&) -> std::string { return "(null)"; }},
    // The cluster's name is not in ListJobs' answer.
    {'\0', "cluster", "CLUSTER", [](const Row&, const Ctx&) -> std::string { return "(null)"; }},
    {'\0', "clusterfeature", "CLUSTER_FEATURES",
     [](const Row&, const Ctx&) -> std::string { return "(null)"; }},
    {'\0', "container", "CONTAINER",
     [](const Row& r, const Ctx&) { return OrNull(r.job->spec().container()); }},
    {'\0', "cpus-per-task,cpuspertask", "CPUS_PER_TASK",
     [](const Row& r, const Ctx&) {
       return absl::StrCat(std::max(1, r.job->spec().cpus_per_task()));
     }},
    {'\0', "cpus-per-tres", "CPUS_PER_TRES",
     [](const Row& r, const Ctx&) { return GresOr(r.job->spec().cpus_per_gpu(), "N/A"); }},
    {'\0', "deadline", "DEADLINE",
     [](const Row& r, const Ctx& c) { return Time(r.job->spec().deadline(), c, "N/A"); }},
    {'\0', "delayboot", "DELAY_BOOT",
     [](const Row& r, const Ctx&) {
       return slurm::FormatSlurmDuration(absl::Seconds(r.job->spec().delay_boot().seconds()));
     }},
    {'\0', "derivedec", "DERIVED_EC", [](const Row&, const Ctx&) -> std::string { return "0"; }},
    {'\0', "eligibletime", "ELIGIBLE_TIME",
     [](const Row& r, const Ctx& c) {
       return absl::StartsWith(r.job->reason(), "JobHeld") ? "N/A"
                                                           : Time(r.job->eligible_time(), c, "N/A");
     }},
    // The wait status as Slurm keeps it: exit code in the high byte, signal in the low.
    {'\0', "exit_code", "EXIT_CODE",
     [](const Row& r, const Ctx&) {
       return absl::StrCat((r.job->exit_code() << 8) | r.job->exit_signal());
     }},
    {'\0', "hetjobid,packjobid", "HET_JOB_ID",
     [](const Row&, const Ctx&) -> std::string { return "N/A"; }},
    {'\0', "hetjobidset,packjobidset", "HET_JOB_ID_SET",
     [](const Row&, const Ctx&) -> std::string { return "N/A"; }},
    {'\0', "hetjoboffset,packjoboffset", "HET_JOB_OFFSET",
     [](const Row&, const Ctx&) -> std::string { return "N/A"; }},
    {'\0', "lastschedeval", "LAST_SCHED_EVAL",
     [](const Row&, const Ctx&) -> std::string { return "N/A"; }},
    {'\0', "maxcpus", "MAX_CPUS",
     [](const Row& r, const Ctx&) { return absl::StrCat(output::JobCpuCount(*r.job)); }},
    {'\0', "maxnodes", "MAX_NODES",
     [](const Row& r, const Ctx&) {
       return absl::StrCat(std::max(r.job->spec().max_nodes(), output::JobNodeCount(*r.job)));
     }},
    {'\0', "mcslabel", "MCSLABEL", [](const Row&, const Ctx&) -> std::string { return "(null)"; }},
    {'\0', "mem-per-tres", "MEM_PER_TRES",
     [](const Row& r, const Ctx&) {
       return GresOr(static_cast<int>(r.job->spec().mem_per_gpu_mib()), "N/A");
     }},
    {'\0', "mintime", "TIME_MIN", [](const Row&, const Ctx&) -> std::string { return "0:00"; }},
    {'\0', "network", "NETWORK", [](const Row&, const Ctx&) -> std::string { return "(null)"; }},
    {'\0', "ntperboard", "NTASKS_PER_BOARD",
     [](const Row&, const Ctx&) -> std::string { return "0"; }},
    {'\0', "ntpercore", "NTASKS_PER_CORE",
     [](const Row&, const Ctx&) -> std::string { return "N/A"; }},
    {'\0', "ntpernode", "NTASKS_PER_NODE",
     [](const Row& r, const Ctx&) { return absl::StrCat(r.job->spec().ntasks_per_node()); }},
    {'\0', "ntpersocket", "NTASKS_PER_SOCKET",
     [](const Row&, const Ctx&) -> std::string { return "N/A"; }},
    {'\0', "numtasks", "TASKS",
     [](const Row& r, const Ctx&) {
       const int tasks = r.job->spec().ntasks();
       return absl::StrCat(tasks > 0 ? tasks : output::JobNodeCount(*r.job));
     }},
    {'\0', "origin", "ORIGIN", [](const Row&, const Ctx&) -> std::string { return "NA"; }},
    {'\0', "originraw", "ORIGIN_RAW", [](const Row&, const Ctx&) -> std::string { return "NA"; }},
    {'\0', "pendingtime", "PENDING_TIME", PendingTime},
    {'\0', "preempttime", "PREEMPT_TIME",
     [](const Row&, const Ctx&) -> std::string { return "N/A"; }},
    {'\0', "prefer", "PREFER", [](const Row&, const Ctx&) -> std::string { return "(null)"; }},
    {'\0', "profile", "PROFILE", [](const Row&, const Ctx&) -> std::string { return "NotSet"; }},
    {'\0', "reboot", "REBOOT", [](const Row&, const Ctx&) -> std::string { return "0"; }},
    {'\0', "reqswitch", "REQ_SWITCH",
     [](const Row& r, const Ctx&) { return absl::StrCat(r.job->spec().max_switches()); }},
    {'\0', "requeue", "REQUEUE",
     [](const Row& r, const Ctx&) -> std::string { return r.job->spec().requeue() ? "1" : "0"; }},
    {'\0', "resizetime", "RESIZE_TIME", [](const Row&, const Ctx&) -> std::string { return "N/A"; }},
    {'\0', "restartcnt", "RESTART_COUNT",
     [](const Row& r, const Ctx&) { return absl::StrCat(r.job->restart_count()); }},
    {'\0', "siblingsactive", "ACTIVE_SIBLINGS",
     [](const Row&, const Ctx&) -> std::string { return "NA"; }},
    {'\0', "siblingsactiveraw", "ACTIVE_SIBLINGS_RAW",
     [](const Row&, const Ctx&) -> std::string { return "NA"; }},
    {'\0', "siblingsviable", "VIABLE_SIBLINGS",
     [](const Row&, const Ctx&) -> std::string { return "NA"; }},
    // Slurm's own spelling of the header.
    {'\0', "siblingsviableraw", "VIALBLE_SIBLINGS_RAW",
     [](const Row&, const Ctx&) -> std::string { return "NA"; }},
    {'\0', "sperboard", "SOCKETS_PER_BOARD",
     [](const Row&, const Ctx&) -> std::string { return "0"; }},
    {'\0', "stderr", "STDERR",
     [](const Row& r, const Ctx& c) {
       return r.job->spec().stderr_path().empty() ? StdOut(r, c) : r.job->spec().stderr_path();
     }},
    {'\0', "stdin", "STDIN",
     [](const Row& r, const Ctx&) -> std::string {
       return r.job->spec().stdin_path().empty() ? "/dev/null" : r.job->spec().stdin_path();
     }},
    {'\0', "stdout", "STDOUT", StdOut},
    {'\0', "system_comment", "SYSTEM_COMMENT",
     [](const Row&, const Ctx&) -> std::string { return "(null)"; }},
    {'\0', "tres-alloc", "TRES_ALLOC", TresAlloc},
    {'\0', "tres-bind", "TRES_BIND",
     [](const Row& r, const Ctx&) -> std::string {
       return r.job->spec().gpu_bind().empty() ? "N/A"
                                               : absl::StrCat("gpu:", r.job->spec().gpu_bind());
     }},
    {'\0', "tres-freq", "TRES_FREQ", [](const Row&, const Ctx&) -> std::string { return "N/A"; }},
    {'\0', "tres-per-job", "TRES_PER_JOB",
     [](const Row& r, const Ctx&) { return output::TresPerJob(r.job->spec()); }},
    {'\0', "tres-per-socket", "TRES_PER_SOCKET",
     [](const Row&, const Ctx&) -> std::string { return "N/A"; }},
    {'\0', "tres-per-task", "TRES_PER_TASK",
     [](const Row& r, const Ctx&) { return output::TresPerTask(r.job->spec()); }},
    {'\0', "wait4switch", "WAIT4SWITCH",
     [](const Row& r, const Ctx&) {
       return slurm::FormatSlurmDuration(absl::Seconds(r.job->spec().switches_wait().seconds()));
     }},
};

bool NameMatches(absl::string_view names, absl::string_view name) {
  for (absl::string_view n : absl::StrSplit(names, ',', absl::SkipEmpty())) {
    if (absl::EqualsIgnoreCase(n, name)) {
      return true;
    }
  }
  return false;
}

}  // namespace

absl::Span<const JobField> JobFields() { return kJobFields; }

const JobField* JobFieldByLetter(char letter) {
  for (const JobField& f : kJobFields) {
    if (f.letter != '\0' && f.letter == letter) {
      return &f;
    }
  }
  return nullptr;
}

const JobField* JobFieldByName(absl::string_view name) {
  for (const JobField& f : kJobFields) {
    if (NameMatches(f.names, name)) {
      return &f;
    }
  }
  return nullptr;
}

const StepField* StepFieldByLetter(char letter) {
  for (const StepField& f : StepFields()) {
    if (f.letter != '\0' && f.letter == letter) {
      return &f;
    }
  }
  return nullptr;
}

const StepField* StepFieldByName(absl::string_view name) {
  for (const StepField& f : StepFields()) {
    if (NameMatches(f.names, name)) {
      return &f;
    }
  }
  return nullptr;
}

}  // namespace canopy::ctl::squeue
