// scontrol show job's record (show_job.h).
#include "ctl/scontrol/show_job.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/slurm/dependency.h"
#include "common/slurm/hostlist.h"
#include "common/slurm/output_pattern.h"
#include "common/slurm/time_format.h"
#include "ctl/output/job_format.h"
#include "ctl/output/number_ranges.h"
#include "ctl/output/proto_time.h"
#include "ctl/scontrol/record_text.h"

namespace canopy::ctl::scontrol {
namespace {

using canopy::v1::JobDependency;

slurm::DependencyType SlurmType(JobDependency::Type type) {
  switch (type) {
    case JobDependency::TYPE_AFTER:
      return slurm::DependencyType::kAfter;
    case JobDependency::TYPE_AFTER_OK:
      return slurm::DependencyType::kAfterOk;
    case JobDependency::TYPE_AFTER_NOT_OK:
      return slurm::DependencyType::kAfterNotOk;
    case JobDependency::TYPE_AFTER_CORR:
      return slurm::DependencyType::kAfterCorr;
    case JobDependency::TYPE_SINGLETON:
      return slurm::DependencyType::kSingleton;
    default:
      return slurm::DependencyType::kAfterAny;
  }
}

bool Waits(const canopy::v1::Job& job) {
  const std::string& r = job.reason();
  return job.state() == canopy::v1::JOB_STATE_PENDING &&
         (r == "JobHeldUser" || r == "JobHeldAdmin" || r == "Dependency" ||
          r == "DependencyNeverSatisfied");
}

std::string Path(const std::string& pattern, const canopy::v1::Job& job) {
  slurm::OutputPatternContext c;
  c.job_id = job.job_id();
  if (job.array_job_id() != 0) {
    c.array_job_id = job.array_job_id();
    c.array_task_id = job.array_task_id();
  }
  c.job_name = job.spec().name();
  c.user_name = job.user_name();
  if (job.nodes_size() > 0) {
    c.node_name = job.nodes(0);
  }
  std::string path = slurm::ExpandOutputPattern(pattern, c);
  const std::string& dir = job.spec().work_dir();
  if (!path.empty() && path[0] != '/' && !dir.empty()) {
    path = absl::StrCat(dir, dir.back() == '/' ? "" : "/", path);
  }
  return path;
}

}  // namespace

std::string DependencyField(const canopy::v1::JobSpec& spec) {
  slurm::DependencyList list;
  list.any = spec.dependency_any();
  for (const JobDependency& d : spec.dependencies()) {
    slurm::DependencyItem item;
    item.type = SlurmType(d.type());
    item.job_id = d.job_id();
    if (d.has_array_task_id()) {
      item.task_id = d.array_task_id();
    }
    item.whole_array = d.whole_array();
    item.minutes = d.delay().seconds() / 60;
    item.state = d.state() == JobDependency::STATE_FULFILLED ? slurm::DependencyState::kFulfilled
                 : d.state() == JobDependency::STATE_FAILED  ? slurm::DependencyState::kFailed
                                                             : slurm::DependencyState::kUnfulfilled;
    list.items.push_back(item);
  }
  return slurm::FormatDependency(list);
}

namespace {

// scontrol -d's lines for a job holding nodes: JOB_GRES=, then one line per run of nodes given
// the same memory and GPU indexes (Slurm groups them so: "Nodes=gpu[001-012] ... (IDX:0-7)").
std::vector<std::string> AllocationDetails(const canopy::v1::Job& job, bool one_liner) {
  const std::string gpu = job.spec().gpu_type().empty()
                              ? std::string("gpu")
                              : absl::StrCat("gpu:", job.spec().gpu_type());
  int total_gpus = 0;
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;  // line tail, nodes
  for (int i = 0; i < job.nodes_size(); ++i) {
    const int gpus = i < job.gpus_per_node_allocated_size() ? job.gpus_per_node_allocated(i) : 0;
    total_gpus += gpus;
    const std::string gres =
        gpus > 0 ? absl::StrCat(gpu, ":", gpus, "(IDX:",
                                output::NumberRangesOfList(
                                    i < job.node_gpu_indexes_size() ? job.node_gpu_indexes(i) : ""),
                                ")")
                 : "";
    const std::string tail = absl::StrCat(
        " CPU_IDs=N/A Mem=", i < job.mem_allocated_mib_size() ? job.mem_allocated_mib(i) : 0,
        " GRES=", gres);
    if (groups.empty() || groups.back().first != tail) {
      groups.push_back({tail, {}});
    }
    groups.back().second.push_back(job.nodes(i));
  }
  std::vector<std::string> lines = {
      absl::StrCat("JOB_GRES=", total_gpus > 0 ? absl::StrCat(gpu, ":", total_gpus) : "(null)")};
  for (const auto& [tail, nodes] : groups) {
    lines.push_back(
        absl::StrCat(one_liner ? "" : "  ", "Nodes=", slurm::CompressHostlist(nodes), tail));
  }
  return lines;
}

}  // namespace

std::string RenderJob(const canopy::v1::Job& job, absl::Time now, absl::TimeZone tz,
                      const std::string& group_name, const ShowJobOptions& options) {
  const canopy::v1::JobSpec& spec = job.spec();
  const bool pending = job.state() == canopy::v1::JOB_STATE_PENDING;
  const bool active = output::IsJobActive(job.state());
  auto stamp = [&](const google::protobuf::Timestamp& t) {
    return output::FormatTimestampOr(t, tz, "Unknown");
  };
  const absl::Duration limit =
      job.has_time_limit() ? absl::Seconds(job.time_limit().seconds()) : absl::InfiniteDuration();

  // When the job could start: not while it waits for a hold or a dependency; not before its
  // begin time.
  std::string eligible = "Unknown";
  absl::Time eligible_at = absl::InfiniteFuture();
  if (!Waits(job)) {
    const google::protobuf::Timestamp& base =
        output::IsSet(job.eligible_time()) ? job.eligible_time() : job.submit_time();
    eligible_at = output::ToTime(base);
    if (output::IsSet(spec.begin_time())) {
      eligible_at = std::max(eligible_at, output::ToTime(spec.begin_time()));
    }
    eligible = slurm::FormatSlurmTimestamp(eligible_at, tz);
  }
  const std::string accrue = eligible_at <= now ? eligible : "Unknown";

  std::string start = "Unknown", end = "Unknown";
  if (!active && !output::IsSet(job.start_time()) && output::IsSet(job.end_time())) {
    // Ended before it started (cancelled while pending): slurmctld sets both to the end.
    start = end = stamp(job.end_time());
  } else if (!pending && output::IsSet(job.start_time())) {
    start = stamp(job.start_time());
    if (active && limit != absl::InfiniteDuration()) {
      end = slurm::FormatSlurmTimestamp(output::ToTime(job.start_time()) + limit, tz);
    } else if (!active) {
      end = stamp(job.end_time());
    }
  } else if (pending && output::IsSet(job.expected_start())) {
    start = stamp(job.expected_start());
  }
  const std::string last_eval = !pending && output::IsSet(job.start_time())
                                    ? stamp(job.start_time())
                                : eligible_at <= now ? eligible
                                                     : stamp(job.submit_time());

  const int nodes = output::JobNodeCount(job);
  int cpus = 0;
  for (int c : job.cpus_allocated()) {
    cpus += c;
  }
  if (job.cpus_allocated_size() == 0) {
    cpus = output::JobCpuCount(job);
  }
  int tasks = spec.ntasks();
  if (tasks <= 0) {
    tasks = spec.ntasks_per_node() > 0 ? spec.ntasks_per_node() * nodes : nodes;
  }
  std::string num_nodes = absl::StrCat(nodes);
  if (job.nodes_size() == 0) {
    const int max = spec.max_nodes() > 0 ? spec.max_nodes() : nodes;
    num_nodes = absl::StrCat(nodes, "-", max);
  }
  std::vector<std::string> tres = {absl::StrCat("cpu=", cpus)};
  if (spec.mem_per_node_mib() > 0) {
    tres.push_back(absl::StrCat("mem=", SlurmMem(spec.mem_per_node_mib() * nodes)));
  }
  tres.push_back(absl::StrCat("node=", nodes));
  tres.push_back(absl::StrCat("billing=", cpus));

  const std::string stdout_path = Path(spec.stdout_path(), job);
  const std::string stderr_path =
      spec.stderr_path().empty() ? stdout_path : Path(spec.stderr_path(), job);
  auto or_null = [](const std::string& s) { return s.empty() ? std::string("(null)") : s; };

  std::string first = absl::StrCat("JobId=", job.job_id());
  if (job.array_job_id() != 0) {
    absl::StrAppend(&first, " ArrayJobId=", job.array_job_id(),
                    " ArrayTaskId=", job.array_task_id());
  }
  absl::StrAppend(&first, " JobName=", spec.name());
  std::vector<std::string> lines = {
      first,
      absl::StrCat("UserId=", job.user_name(), "(", job.user_id(), ") GroupId=", group_name, "(",
                   job.group_id(), ") MCS_label=N/A"),
      absl::StrCat("Priority=", job.priority(), " Nice=", spec.nice(),
                   " Account=", or_null(spec.account()), " QOS=", output::JobQosName(job)),
      absl::StrCat("JobState=", output::JobStateName(job.state()),
                   " Reason=", job.reason().empty() ? "None" : job.reason(),
                   " Dependency=", DependencyField(spec)),
      absl::StrCat("Requeue=", spec.requeue() ? 1 : 0, " Restarts=", job.restart_count(),
                   " BatchFlag=", spec.script().empty() ? 0 : 1, " Reboot=0 ExitCode=",
                   output::ExitCodeString(job.exit_code(), job.exit_signal())),
      absl::StrCat("RunTime=", SlurmClock(output::JobRunTime(job, now)),
                   " TimeLimit=", SlurmClock(limit), " TimeMin=N/A"),
      absl::StrCat("SubmitTime=", stamp(job.submit_time()), " EligibleTime=", eligible),
      absl::StrCat("AccrueTime=", accrue),
      absl::StrCat("StartTime=", start, " EndTime=", end,
                   " Deadline=", spec.has_deadline() ? stamp(spec.deadline()) : "N/A"),
      absl::StrCat("SuspendTime=None SecsPreSuspend=0 LastSchedEval=", last_eval,
                   " Scheduler=Main"),
      absl::StrCat("Partition=", job.partition(), " AllocNode:Sid=", spec.submit_host(), ":0"),
      absl::StrCat("ReqNodeList=", or_null(spec.required_nodes()),
                   " ExcNodeList=", or_null(spec.excluded_nodes())),
      // A finished job keeps the nodes it ran on (and its batch host) until it leaves
      // slurmctld's memory, as scripts that parse BatchHost= from a finished job expect.
      absl::StrCat("NodeList=", !pending ? slurm::CompressHostlist(std::vector<std::string>(
                                               job.nodes().begin(), job.nodes().end()))
                                         : ""),
  };
  if (!pending && job.nodes_size() > 0) {
    lines.push_back(absl::StrCat("BatchHost=", job.nodes(0)));
  }
  lines.push_back(absl::StrCat("NumNodes=", num_nodes, " NumCPUs=", cpus, " NumTasks=", tasks,
                               " CPUs/Task=", std::max(1, spec.cpus_per_task()),
                               " ReqB:S:C:T=0:0:*:*"));
  lines.push_back(absl::StrCat("TRES=", absl::StrJoin(tres, ",")));
  lines.push_back(
      absl::StrCat("Socks/Node=* NtasksPerN:B:S:C=", spec.ntasks_per_node(), ":0:*:* CoreSpec=*"));
  if (options.details && !pending && output::IsJobActive(job.state()) && job.nodes_size() > 0) {
    for (std::string& line : AllocationDetails(job, options.one_liner)) {
      lines.push_back(std::move(line));
    }
  }
  lines.push_back(absl::StrCat(
      "MinCPUsNode=", std::max(1, spec.cpus_per_task()), " MinMemoryNode=",
      spec.mem_per_node_mib() > 0 ? SlurmMem(spec.mem_per_node_mib()) : "0", " MinTmpDiskNode=0"));
  lines.push_back(
      absl::StrCat("Features=(null) DelayBoot=",
                   SlurmClock(spec.has_delay_boot() ? absl::Seconds(spec.delay_boot().seconds())
                                                    : absl::ZeroDuration())));
  // --exclusive=user|mcs shows as USER|MCS, a bare --exclusive as NO (Slurm's OverSubscribe).
  const std::string oversubscribe = spec.exclusive_mode() == "user"  ? "USER"
                                    : spec.exclusive_mode() == "mcs" ? "MCS"
                                    : spec.exclusive()               ? "NO"
                                                                     : "OK";
  lines.push_back(absl::StrCat("OverSubscribe=", oversubscribe,
                               " Contiguous=0 Licenses=(null) Network=(null)"));
  lines.push_back("Command=(null)");
  lines.push_back(absl::StrCat("WorkDir=", spec.work_dir()));
  if (!spec.comment().empty()) {
    lines.push_back(absl::StrCat("Comment=", spec.comment(), " "));  // Slurm's trailing space
  }
  lines.push_back(absl::StrCat("StdErr=", stderr_path));
  lines.push_back(
      absl::StrCat("StdIn=", spec.stdin_path().empty() ? "/dev/null" : spec.stdin_path()));
  lines.push_back(absl::StrCat("StdOut=", stdout_path));
  lines.push_back("Power=");
  // Slurm's optional lines, in its order, each only when the job asked for it.
  if (spec.cpus_per_gpu() > 0) {
    lines.push_back(absl::StrCat("CpusPerTres=gres:gpu:", spec.cpus_per_gpu()));
  }
  if (spec.mem_per_gpu_mib() > 0) {
    lines.push_back(absl::StrCat("MemPerTres=gres:gpu:", spec.mem_per_gpu_mib()));
  }
  if (!spec.gpu_bind().empty()) {
    lines.push_back(absl::StrCat("TresBind=gpu:", spec.gpu_bind()));
  }
  for (const auto& [key, value] : {std::pair{"TresPerJob=", output::TresPerJob(spec)},
                                   std::pair{"TresPerNode=", output::TresPerNode(spec)},
                                   std::pair{"TresPerTask=", output::TresPerTask(spec)}}) {
    if (value != "N/A") {
      lines.push_back(absl::StrCat(key, value));
    }
  }
  // Slurm mails the submitter when --mail-user is not given.
  if (!spec.mail_type().empty() && spec.mail_type() != "NONE") {
    lines.push_back(
        absl::StrCat("MailUser=", spec.mail_user().empty() ? job.user_name() : spec.mail_user(),
                     " MailType=", spec.mail_type()));
  }
  if (options.one_liner) {
    return absl::StrCat(absl::StrJoin(lines, " "), " \n");
  }
  return absl::StrCat(absl::StrJoin(lines, "\n   "), "\n   \n\n");
}

}  // namespace canopy::ctl::scontrol
