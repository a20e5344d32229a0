#include "ctl/squeue/job_values.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/slurm/dependency.h"
#include "common/slurm/hostlist.h"
#include "ctl/output/job_format.h"
#include "ctl/output/proto_time.h"

namespace canopy::ctl::squeue {

using canopy::v1::Job;
using canopy::v1::JobDependency;

std::string PartitionOf(const Job& job) {
  return job.partition().empty() ? job.spec().partition() : job.partition();
}

std::string UserNameOf(const Job& job) {
  return job.user_name().empty() ? absl::StrCat(job.user_id()) : job.user_name();
}

std::string NodeListOf(const Job& job) {
  return slurm::CompressHostlist(std::vector<std::string>(job.nodes().begin(), job.nodes().end()));
}

bool HasStarted(const Job& job) {
  return job.state() != canopy::v1::JOB_STATE_PENDING && output::IsSet(job.start_time());
}

bool IsBatchJob(const Job& job) { return !job.spec().script().empty(); }

int64_t TimeLimitMinutes(const Job& job) {
  return job.has_time_limit() ? job.time_limit().seconds() / 60 : -1;
}

int64_t ExpectedEndSeconds(const Job& job) {
  if (output::IsSet(job.end_time())) {
    return job.end_time().seconds();
  }
  if (!HasStarted(job) || !job.has_time_limit()) {
    return 0;
  }
  return job.start_time().seconds() + job.time_limit().seconds();
}

// convert_num_unit without CONVERT_NUM_UNIT_EXACT: divide by 1024 while the number is at least
// 1024, then print it whole when it is, else with two decimals.
std::string MemoryString(int64_t mib, bool noconvert) {
  if (noconvert || mib <= 0) {
    return mib <= 0 ? "0" : absl::StrCat(mib, "M");
  }
  constexpr char kUnits[] = "MGTPE";
  double value = static_cast<double>(mib);
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < sizeof(kUnits) - 1) {
    value /= 1024;
    ++unit;
  }
  if (value == static_cast<double>(static_cast<int64_t>(value))) {
    return absl::StrCat(static_cast<int64_t>(value), std::string(1, kUnits[unit]));
  }
  return absl::StrFormat("%.2f%c", value, kUnits[unit]);
}

std::string DependencyString(const canopy::v1::JobSpec& spec) {
  slurm::DependencyList list;
  list.any = spec.dependency_any();
  for (const JobDependency& d : spec.dependencies()) {
    slurm::DependencyItem item;
    switch (d.type()) {
      case JobDependency::TYPE_AFTER:
        item.type = slurm::DependencyType::kAfter;
        break;
      case JobDependency::TYPE_AFTER_OK:
        item.type = slurm::DependencyType::kAfterOk;
        break;
      case JobDependency::TYPE_AFTER_NOT_OK:
        item.type = slurm::DependencyType::kAfterNotOk;
        break;
      case JobDependency::TYPE_AFTER_CORR:
        item.type = slurm::DependencyType::kAfterCorr;
        break;
      case JobDependency::TYPE_SINGLETON:
        item.type = slurm::DependencyType::kSingleton;
        break;
      default:
        item.type = slurm::DependencyType::kAfterAny;
    }
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

std::string RequestedTres(const Job& job) {
  const canopy::v1::JobSpec& spec = job.spec();
  const int nodes = output::JobNodeCount(job);
  const int cpus = output::JobCpuCount(job);
  std::string s = absl::StrCat("cpu=", cpus);
  if (spec.mem_per_node_mib() > 0) {
    absl::StrAppend(&s, ",mem=", MemoryString(spec.mem_per_node_mib() * nodes, false));
  }
  absl::StrAppend(&s, ",node=", nodes, ",billing=", cpus);
  if (spec.gpus_per_node() > 0) {
    absl::StrAppend(&s, ",gres/gpu=", static_cast<int64_t>(spec.gpus_per_node()) * nodes);
  }
  return s;
}

std::string NormalizedPriority(uint32_t priority) {
  return absl::StrFormat("%.14f", static_cast<double>(priority) / 4294967295.0);
}

}  // namespace canopy::ctl::squeue
