// Job states, reasons and the transition table (docs/design/job_states.md).
#include "scheduler/core/job.h"

#include <array>

#include "absl/strings/str_cat.h"

namespace canopy::core {

absl::string_view JobStateName(JobState state) {
  static constexpr std::array<absl::string_view, kJobStateCount> kNames = {
      "PENDING",   "CONFIGURING", "RUNNING",   "COMPLETING",    "COMPLETED", "FAILED",
      "CANCELLED", "TIMEOUT",     "NODE_FAIL", "OUT_OF_MEMORY", "REQUEUED",  "PREEMPTED"};
  return kNames[static_cast<int>(state)];
}

absl::string_view JobStateShortName(JobState state) {
  static constexpr std::array<absl::string_view, kJobStateCount> kNames = {
      "PD", "CF", "R", "CG", "CD", "F", "CA", "TO", "NF", "OOM", "RQ", "PR"};
  return kNames[static_cast<int>(state)];
}

absl::string_view JobReasonName(JobReason reason) {
  switch (reason) {
    case JobReason::kNone:
      return "None";
    case JobReason::kPriority:
      return "Priority";
    case JobReason::kResources:
      return "Resources";
    case JobReason::kDependency:
      return "Dependency";
    case JobReason::kDependencyNeverSatisfied:
      return "DependencyNeverSatisfied";
    case JobReason::kJobHeldUser:
      return "JobHeldUser";
    case JobReason::kJobHeldAdmin:
      return "JobHeldAdmin";
    case JobReason::kBeginTime:
      return "BeginTime";
    case JobReason::kReqNodeNotAvail:
      return "ReqNodeNotAvail";
    case JobReason::kPartitionTimeLimit:
      return "PartitionTimeLimit";
    case JobReason::kPartitionNodeLimit:
      return "PartitionNodeLimit";
    case JobReason::kPartitionDown:
      return "PartitionDown";
    case JobReason::kInvalidAccount:
      return "InvalidAccount";
    case JobReason::kBadConstraints:
      return "BadConstraints";
    case JobReason::kNodeDown:
      return "NodeDown";
    case JobReason::kQOSMaxGRESPerUser:
      return "QOSMaxGRESPerUser";
    case JobReason::kQOSMaxCpuPerUserLimit:
      return "QOSMaxCpuPerUserLimit";
    case JobReason::kQOSMaxNodePerUserLimit:
      return "QOSMaxNodePerUserLimit";
    case JobReason::kQOSMaxMemoryPerUser:
      return "QOSMaxMemoryPerUser";
    case JobReason::kQOSMaxJobsPerUserLimit:
      return "QOSMaxJobsPerUserLimit";
    case JobReason::kQOSGrpGRES:
      return "QOSGrpGRES";
    case JobReason::kQOSGrpCpuLimit:
      return "QOSGrpCpuLimit";
    case JobReason::kQOSGrpNodeLimit:
      return "QOSGrpNodeLimit";
    case JobReason::kQOSGrpMemLimit:
      return "QOSGrpMemLimit";
    case JobReason::kQOSGrpJobsLimit:
      return "QOSGrpJobsLimit";
    case JobReason::kQOSMaxGRESPerJob:
      return "QOSMaxGRESPerJob";
    case JobReason::kQOSMaxCpuPerJobLimit:
      return "QOSMaxCpuPerJobLimit";
    case JobReason::kQOSMaxNodePerJobLimit:
      return "QOSMaxNodePerJobLimit";
    case JobReason::kQOSMaxMemoryPerJob:
      return "QOSMaxMemoryPerJob";
    case JobReason::kQOSMaxWallDurationPerJobLimit:
      return "QOSMaxWallDurationPerJobLimit";
    case JobReason::kAssocGrpGRES:
      return "AssocGrpGRES";
    case JobReason::kAssocGrpCpuLimit:
      return "AssocGrpCpuLimit";
    case JobReason::kAssocGrpNodeLimit:
      return "AssocGrpNodeLimit";
    case JobReason::kAssocGrpMemLimit:
      return "AssocGrpMemLimit";
    case JobReason::kAssocGrpJobsLimit:
      return "AssocGrpJobsLimit";
    case JobReason::kAssocMaxJobsLimit:
      return "AssocMaxJobsLimit";
    case JobReason::kAssocMaxGRESPerJob:
      return "AssocMaxGRESPerJob";
    case JobReason::kAssocMaxCpuPerJobLimit:
      return "AssocMaxCpuPerJobLimit";
    case JobReason::kAssocMaxNodePerJobLimit:
      return "AssocMaxNodePerJobLimit";
    case JobReason::kAssocMaxMemoryPerJob:
      return "AssocMaxMemoryPerJob";
    case JobReason::kAssocMaxWallDurationPerJobLimit:
      return "AssocMaxWallDurationPerJobLimit";
    case JobReason::kInvalidQOS:
      return "InvalidQOS";
    case JobReason::kJobArrayTaskLimit:
      return "JobArrayTaskLimit";
    case JobReason::kNonZeroExitCode:
      return "NonZeroExitCode";
    case JobReason::kTimeLimit:
      return "TimeLimit";
  }
  return "None";
}

std::optional<JobState> JobStateFromName(absl::string_view name) {
  for (int i = 0; i < kJobStateCount; ++i) {
    if (JobStateName(static_cast<JobState>(i)) == name) {
      return static_cast<JobState>(i);
    }
  }
  return std::nullopt;
}

std::optional<JobReason> JobReasonFromName(absl::string_view name) {
  for (int i = 0; i < kJobReasonCount; ++i) {
    if (JobReasonName(static_cast<JobReason>(i)) == name) {
      return static_cast<JobReason>(i);
    }
  }
  return std::nullopt;
}

namespace {
constexpr std::array<absl::string_view, 6> kDependencyTypeNames = {
    "after", "afterany", "afterok", "afternotok", "aftercorr", "singleton"};
constexpr std::array<absl::string_view, 3> kDependencyStateNames = {"unfulfilled", "fulfilled",
                                                                    "failed"};
}  // namespace

absl::string_view DependencyTypeName(DependencyType type) {
  return kDependencyTypeNames[static_cast<int>(type)];
}

std::optional<DependencyType> DependencyTypeFromName(absl::string_view name) {
  for (size_t i = 0; i < kDependencyTypeNames.size(); ++i) {
    if (kDependencyTypeNames[i] == name) {
      return static_cast<DependencyType>(i);
    }
  }
  return std::nullopt;
}

absl::string_view DependencyStateName(DependencyState state) {
  return kDependencyStateNames[static_cast<int>(state)];
}

std::optional<DependencyState> DependencyStateFromName(absl::string_view name) {
  for (size_t i = 0; i < kDependencyStateNames.size(); ++i) {
    if (kDependencyStateNames[i] == name) {
      return static_cast<DependencyState>(i);
    }
  }
  return std::nullopt;
}

bool IsTerminal(JobState state) {
  switch (state) {
    case JobState::kCompleted:
    case JobState::kFailed:
    case JobState::kCancelled:
    case JobState::kTimeout:
    case JobState::kNodeFail:
    case JobState::kOutOfMemory:
    case JobState::kPreempted:
      return true;
    default:
      return false;
  }
}

bool IsLegalTransition(JobState from, JobState to) {
  using S = JobState;
  switch (from) {
    case S::kPending:
      return to == S::kConfiguring || to == S::kRunning || to == S::kCancelled || to == S::kFailed;
    case S::kConfiguring:
      return to == S::kRunning || to == S::kCancelled || to == S::kNodeFail || to == S::kFailed ||
             to == S::kRequeued || to == S::kPending || to == S::kPreempted;
    case S::kRunning:
      return to == S::kCompleting || to == S::kCompleted || to == S::kFailed ||
             to == S::kCancelled || to == S::kTimeout || to == S::kNodeFail ||
             to == S::kOutOfMemory || to == S::kRequeued || to == S::kPreempted;
    case S::kCompleting:
      return to == S::kCompleted || to == S::kFailed || to == S::kCancelled || to == S::kTimeout ||
             to == S::kNodeFail || to == S::kOutOfMemory || to == S::kPreempted;
    case S::kRequeued:
      return to == S::kPending;
    default:
      return false;  // terminal
  }
}

int64_t Allocation::total_gpus() const {
  int64_t total = 0;
  for (const NodeShare& s : nodes) {
    total += s.gpus;
  }
  return total;
}

absl::Status TransitionTo(Job& job, JobState to, absl::Time now) {
  if (!IsLegalTransition(job.state, to)) {
    return absl::FailedPreconditionError(
        absl::StrCat("job ", job.id.value(), ": illegal transition ", JobStateName(job.state),
                     " -> ", JobStateName(to)));
  }
  const JobState from = job.state;
  job.state = to;
  if (to == JobState::kRunning && (from == JobState::kPending || from == JobState::kConfiguring)) {
    job.start_time = now;
  }
  if (to == JobState::kConfiguring) {
    job.start_time = now;
  }
  if (from == JobState::kPending) {
    job.reason = JobReason::kNone;
  }
  if (IsTerminal(to)) {
    job.end_time = now;
  }
  if (to == JobState::kRequeued) {
    job.end_time = now;
    job.reason = JobReason::kNodeDown;
  }
  if (to == JobState::kPending) {
    // Back in the queue after a requeue (or a failed launch): a new run, counted like Slurm's
    // SLURM_RESTART_COUNT, eligible again from now.
    if (from == JobState::kRequeued) {
      ++job.restart_count;
    }
    job.eligible_time = now;
    job.reason = JobReason::kNone;
  }
  return absl::OkStatus();
}

}  // namespace canopy::core
