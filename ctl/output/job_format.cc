#include "ctl/output/job_format.h"

#include <algorithm>
#include <limits>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/slurm/time_format.h"
#include "ctl/output/proto_time.h"

namespace canopy::ctl::output {
namespace {

struct StateNames {
  canopy::v1::JobState state;
  const char* name;
  const char* compact;
};

// squeue's names (slurm job_state_string / job_state_string_compact).
constexpr StateNames kStates[] = {
    {canopy::v1::JOB_STATE_PENDING, "PENDING", "PD"},
    {canopy::v1::JOB_STATE_CONFIGURING, "CONFIGURING", "CF"},
    {canopy::v1::JOB_STATE_RUNNING, "RUNNING", "R"},
    {canopy::v1::JOB_STATE_COMPLETING, "COMPLETING", "CG"},
    {canopy::v1::JOB_STATE_COMPLETED, "COMPLETED", "CD"},
    {canopy::v1::JOB_STATE_FAILED, "FAILED", "F"},
    {canopy::v1::JOB_STATE_CANCELLED, "CANCELLED", "CA"},
    {canopy::v1::JOB_STATE_TIMEOUT, "TIMEOUT", "TO"},
    {canopy::v1::JOB_STATE_NODE_FAIL, "NODE_FAIL", "NF"},
    {canopy::v1::JOB_STATE_OUT_OF_MEMORY, "OUT_OF_MEMORY", "OOM"},
    {canopy::v1::JOB_STATE_REQUEUED, "REQUEUED", "RQ"},
    {canopy::v1::JOB_STATE_PREEMPTED, "PREEMPTED", "PR"},
};

}  // namespace

std::string JobIdString(const canopy::v1::Job& job) {
  if (job.array_job_id() != 0) {
    return absl::StrCat(job.array_job_id(), "_", job.array_task_id());
  }
  return absl::StrCat(job.job_id());
}

std::string JobStateName(canopy::v1::JobState state) {
  for (const StateNames& s : kStates) {
    if (s.state == state) {
      return s.name;
    }
  }
  return "UNKNOWN";
}

std::string JobStateCompact(canopy::v1::JobState state) {
  for (const StateNames& s : kStates) {
    if (s.state == state) {
      return s.compact;
    }
  }
  return "?";
}

std::optional<canopy::v1::JobState> ParseJobState(absl::string_view name) {
  for (const StateNames& s : kStates) {
    if (absl::EqualsIgnoreCase(name, s.name) || absl::EqualsIgnoreCase(name, s.compact)) {
      return s.state;
    }
  }
  return std::nullopt;
}

bool IsJobActive(canopy::v1::JobState state) {
  return state == canopy::v1::JOB_STATE_PENDING || state == canopy::v1::JOB_STATE_CONFIGURING ||
         state == canopy::v1::JOB_STATE_RUNNING || state == canopy::v1::JOB_STATE_COMPLETING;
}

bool AllocationIsQueued(const canopy::v1::Job& job, absl::Duration waited) {
  return job.state() == canopy::v1::JOB_STATE_PENDING &&
         (job.reason() != "None" || waited >= absl::Milliseconds(500));
}

std::string ExitCodeString(int exit_code, int exit_signal) {
  return absl::StrCat(exit_code, ":", exit_signal);
}

std::string JobQosName(const canopy::v1::Job& job) {
  if (!job.qos().empty()) {
    return job.qos();
  }
  return job.spec().account().empty() ? "(null)" : "normal";
}

std::string GpuTres(const canopy::v1::JobSpec& spec, int64_t count) {
  if (count <= 0) {
    return "N/A";
  }
  if (spec.gpu_type().empty()) {
    return absl::StrCat("gres:gpu:", count);
  }
  return absl::StrCat("gres:gpu:", spec.gpu_type(), ":", count);
}

std::string TresPerNode(const canopy::v1::JobSpec& spec) {
  // Worked out from --gpus or --gpus-per-task, it is not one: Slurm shows those alone.
  const bool asked_per_node =
      spec.gpus_per_node_requested() || (spec.gpus_per_job() <= 0 && spec.gpus_per_task() <= 0);
  return GpuTres(spec, asked_per_node ? spec.gpus_per_node() : 0);
}

std::string TresPerJob(const canopy::v1::JobSpec& spec) {
  return GpuTres(spec, spec.gpus_per_job());
}

std::string TresPerTask(const canopy::v1::JobSpec& spec) {
  return GpuTres(spec, spec.gpus_per_task());
}

int JobNodeCount(const canopy::v1::Job& job) {
  if (job.nodes_size() > 0) {
    return job.nodes_size();
  }
  return std::max(1, job.spec().min_nodes());
}

int JobCpuCount(const canopy::v1::Job& job) {
  const canopy::v1::JobSpec& spec = job.spec();
  int tasks = spec.ntasks();
  if (tasks <= 0 && spec.ntasks_per_node() > 0) {
    tasks = spec.ntasks_per_node() * JobNodeCount(job);
  }
  const int nodes = JobNodeCount(job);
  tasks = std::max(tasks, nodes);
  // As canopyd's admission counts them: -O gives each node one task's CPUs, --cpus-per-gpu at
  // least that many per GPU.
  int64_t cpus = int64_t{spec.overcommit() ? nodes : tasks} * std::max(1, spec.cpus_per_task());
  if (spec.cpus_per_gpu() > 0 && spec.gpus_per_node() > 0) {
    cpus = std::max(cpus, int64_t{spec.cpus_per_gpu()} * spec.gpus_per_node() * nodes);
  }
  return static_cast<int>(std::min<int64_t>(cpus, std::numeric_limits<int>::max()));
}

absl::Duration JobRunTime(const canopy::v1::Job& job, absl::Time now) {
  if (!job.has_start_time() || job.start_time().seconds() == 0 ||
      job.state() == canopy::v1::JOB_STATE_PENDING) {
    return absl::ZeroDuration();
  }
  absl::Time end = now;
  if (job.has_end_time() && job.end_time().seconds() != 0 && !IsJobActive(job.state())) {
    end = ToTime(job.end_time());
  }
  return std::max(absl::ZeroDuration(), end - ToTime(job.start_time()));
}

std::string JobTimeLimitString(const canopy::v1::Job& job) {
  return job.has_time_limit()
             ? slurm::FormatSlurmDuration(absl::Seconds(job.time_limit().seconds()))
             : "UNLIMITED";
}

}  // namespace canopy::ctl::output
