// The job model of the scheduler core: what a job asks for (JobSpec), what the controller knows
// about it (Job), and Slurm's job states and pending reasons with the legal transitions between
// states.
//
// Plain value types with no I/O and no clock: every time comes in as an argument. A Job is owned
// by whoever holds the job table (the controller's owner thread, the simulator); not thread-safe.
// State changes go through TransitionTo, which enforces the table in docs/design/job_states.md
// (an illegal transition is FailedPrecondition and leaves the job unchanged).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "scheduler/core/ids.h"

namespace canopy::core {

// Slurm's job states (squeue's long names). Terminal states never change again, except that a
// requeue-able job's REQUEUED goes back to PENDING.
enum class JobState {
  kPending,
  kConfiguring,
  kRunning,
  kCompleting,
  kCompleted,
  kFailed,
  kCancelled,
  kTimeout,
  kNodeFail,
  kOutOfMemory,
  kRequeued,
  kPreempted,
};
inline constexpr int kJobStateCount = 12;

// Why a job is pending (squeue's REASON column), Slurm's names. kNone = "None".
enum class JobReason {
  kNone,
  kPriority,
  kResources,
  kDependency,
  kJobHeldUser,
  kJobHeldAdmin,
  kBeginTime,
  kReqNodeNotAvail,
  kPartitionTimeLimit,
  kPartitionNodeLimit,
  kPartitionDown,
  kInvalidAccount,
  kBadConstraints,
  kNodeDown,  // a REQUEUED/NODE_FAIL job's reason
};

// "PENDING", "RUNNING", "NODE_FAIL", ... as squeue -l / sacct print them.
absl::string_view JobStateName(JobState state);
// "PD", "R", "NF", ... (squeue's compact %t).
absl::string_view JobStateShortName(JobState state);
// "Priority", "Resources", "ReqNodeNotAvail", ...
absl::string_view JobReasonName(JobReason reason);

// True for states a job leaves only through a requeue (or never).
bool IsTerminal(JobState state);
// True if `from` -> `to` is allowed. The table:
//   PENDING     -> CONFIGURING, RUNNING, CANCELLED, FAILED (e.g. never runnable)
//   CONFIGURING -> RUNNING, CANCELLED, NODE_FAIL, FAILED, REQUEUED, PENDING (launch failed)
//   RUNNING     -> COMPLETING, COMPLETED, FAILED, CANCELLED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY,
//                  REQUEUED, PREEMPTED
//   COMPLETING  -> COMPLETED, FAILED, CANCELLED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY
//   REQUEUED    -> PENDING
//   PREEMPTED   -> REQUEUED
// Terminal states go nowhere. A state never transitions to itself.
bool IsLegalTransition(JobState from, JobState to);

// What a job asks for (sbatch options in brackets). Plain value.
struct JobSpec {
  std::string name;
  int32_t min_nodes = 1;      // -N min[-max]
  int32_t max_nodes = 0;      // 0 = same as min
  int32_t gpus_per_node = 0;  // --gpus-per-node=[type:]n
  std::string gpu_type;       // "" = any
  int32_t cpus_per_node = 1;
  int64_t mem_per_node_mib = 0;
  bool exclusive = false;  // --exclusive
  std::string partition;   // -p; "" = the default partition
  std::string account;     // -A
  std::string user;
  // -t; InfiniteDuration = none given (the partition's DefaultTime, else its MaxTime applies).
  absl::Duration time_limit = absl::InfiniteDuration();
  int32_t max_switches = 0;  // --switches=K[@wait]; 0 = no limit
  absl::Duration max_switch_wait = absl::Seconds(300);
  std::vector<NodeId> required_nodes;  // -w
  std::vector<NodeId> excluded_nodes;  // -x
  bool requeue = true;                 // --requeue (default) / --no-requeue

  int32_t max_nodes_or_min() const { return max_nodes > 0 ? max_nodes : min_nodes; }
};

// A job's share of one node.
struct NodeShare {
  NodeId node;
  int32_t gpus = 0;
  int32_t cpus = 0;
  int64_t mem_mib = 0;
  friend bool operator==(const NodeShare&, const NodeShare&) = default;
};

// The nodes a running job holds, in NodeId order.
struct Allocation {
  std::vector<NodeShare> nodes;
  bool exclusive = false;
  bool empty() const { return nodes.empty(); }
  int64_t total_gpus() const;
};

// The controller's record of one job.
struct Job {
  JobId id;
  JobSpec spec;
  JobState state = JobState::kPending;
  JobReason reason = JobReason::kNone;
  absl::Time submit_time = absl::InfinitePast();
  absl::Time eligible_time = absl::InfinitePast();  // when it last became PENDING
  absl::Time start_time = absl::InfinitePast();     // last start; InfinitePast = never
  absl::Time end_time = absl::InfinitePast();
  Allocation allocation;      // while CONFIGURING/RUNNING/COMPLETING
  int32_t restart_count = 0;  // SLURM_RESTART_COUNT
  int32_t exit_code = 0;
  int32_t exit_signal = 0;
};

// Moves `job` to `to` at `now`, keeping the bookkeeping consistent: start_time on RUNNING (from
// PENDING/CONFIGURING), end_time on a terminal state, restart_count + 1 and eligible_time on
// REQUEUED -> PENDING, reason cleared on leaving PENDING. The allocation is the caller's (the
// plan applier frees capacity before ending a job). FailedPrecondition naming the job and both
// states if the transition is illegal; the job is then unchanged.
absl::Status TransitionTo(Job& job, JobState to, absl::Time now);

}  // namespace canopy::core
