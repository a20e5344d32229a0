#include "ctl/sacct/values.h"

#include <algorithm>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/slurm/hostlist.h"
#include "ctl/output/job_format.h"
#include "ctl/output/proto_time.h"

namespace canopy::ctl::sacct {
namespace {

using canopy::v1::AccountingStep;
using canopy::v1::Job;

int64_t Sum(const google::protobuf::RepeatedField<int32_t>& values) {
  int64_t total = 0;
  for (int32_t v : values) {
    total += v;
  }
  return total;
}

int64_t Sum(const google::protobuf::RepeatedField<int64_t>& values) {
  int64_t total = 0;
  for (int64_t v : values) {
    total += v;
  }
  return total;
}

int64_t RequestedNodes(const Job& job) { return std::max(1, job.spec().min_nodes()); }

// Seconds between two wire times, never negative.
int64_t Between(const google::protobuf::Timestamp& from, absl::Time to) {
  return std::max<int64_t>(0, absl::ToInt64Seconds(to - output::ToTime(from)));
}

}  // namespace

std::string MemString(int64_t mib, bool noconvert) {
  if (mib == 0) {
    return "0";
  }
  static constexpr char kUnits[] = {'M', 'G', 'T', 'P', 'E'};
  size_t unit = 0;
  while (!noconvert && mib % 1024 == 0 && unit + 1 < sizeof(kUnits)) {
    mib /= 1024;
    ++unit;
  }
  return absl::StrCat(mib, std::string(1, kUnits[unit]));
}

std::string TresString(const Tres& tres, bool noconvert) {
  std::vector<std::string> items;
  if (tres.billing > 0) {
    items.push_back(absl::StrCat("billing=", tres.billing));
  }
  items.push_back(absl::StrCat("cpu=", tres.cpu));
  if (tres.gpus > 0) {
    items.push_back(absl::StrCat("gres/gpu=", tres.gpus));
  }
  if (tres.mem_listed) {
    items.push_back(absl::StrCat("mem=", MemString(tres.mem_mib, noconvert)));
  }
  items.push_back(absl::StrCat("node=", tres.nodes));
  return absl::StrJoin(items, ",");
}

Tres JobRequestedTres(const Job& job) {
  Tres t;
  t.nodes = RequestedNodes(job);
  t.cpu = output::JobCpuCount(job);
  t.billing = t.cpu;
  t.gpus = static_cast<int64_t>(job.spec().gpus_per_node()) * t.nodes;
  if (job.spec().mem_per_node_mib() > 0) {
    t.mem_mib = job.spec().mem_per_node_mib() * t.nodes;
  } else {
    t.mem_mib = Sum(job.mem_allocated_mib());
  }
  t.mem_listed = t.mem_mib > 0;
  return t;
}

Tres JobAllocatedTres(const Job& job) {
  if (job.nodes().empty()) {
    Tres t = JobRequestedTres(job);
    t.mem_mib = 0;
    t.mem_listed = false;
    return t;
  }
  Tres t;
  t.nodes = job.nodes_size();
  t.cpu = job.cpus_allocated().empty() ? output::JobCpuCount(job) : Sum(job.cpus_allocated());
  t.billing = t.cpu;
  t.gpus = Sum(job.gpus_per_node_allocated());
  t.mem_mib = Sum(job.mem_allocated_mib());
  t.mem_listed = t.mem_mib > 0;
  return t;
}

Tres StepTres(const AccountingStep& step) {
  Tres t;
  t.cpu = step.ncpus();
  t.gpus = step.gpus();
  t.mem_mib = step.mem_mib();
  t.mem_listed = true;
  t.nodes = step.nodes_size();
  return t;
}

std::string ElapsedString(int64_t seconds) {
  seconds = std::max<int64_t>(0, seconds);
  const int64_t days = seconds / 86400;
  const int64_t hours = seconds / 3600 % 24;
  const int64_t minutes = seconds / 60 % 60;
  const int64_t secs = seconds % 60;
  if (days > 0) {
    return absl::StrFormat("%d-%02d:%02d:%02d", days, hours, minutes, secs);
  }
  return absl::StrFormat("%02d:%02d:%02d", hours, minutes, secs);
}

int64_t JobElapsedSeconds(const Job& job, absl::Time now) {
  if (!output::IsSet(job.start_time()) || job.state() == canopy::v1::JOB_STATE_PENDING) {
    return 0;
  }
  // A COMPLETING job has ended: its time stops at the end, as slurmdbd records it.
  const bool running = job.state() == canopy::v1::JOB_STATE_RUNNING ||
                       job.state() == canopy::v1::JOB_STATE_CONFIGURING;
  if (!running && output::IsSet(job.end_time())) {
    return Between(job.start_time(), output::ToTime(job.end_time()));
  }
  return Between(job.start_time(), now);
}

int64_t StepElapsedSeconds(const AccountingStep& step, absl::Time now) {
  if (!output::IsSet(step.start_time())) {
    return 0;
  }
  return output::IsSet(step.end_time())
             ? Between(step.start_time(), output::ToTime(step.end_time()))
             : Between(step.start_time(), now);
}

int64_t TimelimitMinutes(const Job& job) {
  if (!job.has_time_limit()) {
    return -1;
  }
  return (job.time_limit().seconds() + 59) / 60;
}

std::string TimelimitString(const Job& job) {
  const int64_t minutes = TimelimitMinutes(job);
  return minutes < 0 ? "UNLIMITED" : ElapsedString(minutes * 60);
}

std::string TimelimitRawString(const Job& job) {
  const int64_t minutes = TimelimitMinutes(job);
  return minutes < 0 ? "UNLIMITED" : absl::StrCat(minutes);
}

std::string JobIdText(const Job& job, const std::string& pending_tasks) {
  if (!pending_tasks.empty()) {
    return absl::StrCat(job.array_job_id(), "_[", pending_tasks, "]");
  }
  return output::JobIdString(job);
}

std::string JobIdRawText(const Job& job, const std::string& pending_tasks) {
  return absl::StrCat(pending_tasks.empty() ? job.job_id() : job.array_job_id());
}

int ArrayThrottle(const Job& job) {
  const std::string& spec = job.spec().array_spec();
  const size_t percent = spec.find('%');
  int throttle = 0;
  if (job.array_job_id() == 0 || percent == std::string::npos ||
      !absl::SimpleAtoi(spec.substr(percent + 1), &throttle)) {
    return 0;
  }
  return std::max(0, throttle);
}

int64_t JobNodeCount(const Job& job) {
  return job.nodes().empty() ? RequestedNodes(job) : job.nodes_size();
}

std::string JobNodeList(const Job& job) {
  if (job.nodes().empty()) {
    return "None assigned";
  }
  const std::vector<std::string> nodes(job.nodes().begin(), job.nodes().end());
  return slurm::CompressHostlist(slurm::SortHostlist(nodes));
}

std::string JobStateText(const canopy::v1::AccountingRecord& record, bool plain) {
  const canopy::v1::JobState state = record.job().state();
  if (!plain && state == canopy::v1::JOB_STATE_CANCELLED && record.has_cancelled_by_uid()) {
    return absl::StrCat(output::JobStateName(state), " by ", record.cancelled_by_uid());
  }
  return output::JobStateName(state);
}

ExitStatus DerivedExit(const canopy::v1::AccountingRecord& record) {
  ExitStatus highest;
  for (const AccountingStep& step : record.steps()) {
    if (step.step_id() == "batch" || step.step_id() == "extern") {
      continue;
    }
    if ((step.exit_code() << 8 | step.exit_signal()) > (highest.code << 8 | highest.signal)) {
      highest = {step.exit_code(), step.exit_signal()};
    }
  }
  return highest;
}

std::string SignalName(int signal) {
  // Linux's numbering (signal(7)), as Slurm's sig_num2name prints them.
  static constexpr const char* kNames[] = {
      "",     "HUP",  "INT",  "QUIT", "ILL",    "TRAP",   "ABRT",  "BUS",  "FPE",  "KILL", "USR1",
      "SEGV", "USR2", "PIPE", "ALRM", "TERM",   "STKFLT", "CHLD",  "CONT", "STOP", "TSTP", "TTIN",
      "TTOU", "URG",  "XCPU", "XFSZ", "VTALRM", "PROF",   "WINCH", "POLL", "PWR",  "SYS"};
  if (signal > 0 && signal < static_cast<int>(sizeof(kNames) / sizeof(kNames[0]))) {
    return kNames[signal];
  }
  return absl::StrCat(signal);
}

}  // namespace canopy::ctl::sacct
