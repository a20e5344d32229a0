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
#include "scheduler/core/job_spec.h"

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
  kDependencyNeverSatisfied,
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
  // Limits (scheduler/limits): a QOS's or an association's, per user, per group, per job.
  kQOSMaxGRESPerUser,
  kQOSMaxCpuPerUserLimit,
  kQOSMaxNodePerUserLimit,
  kQOSMaxMemoryPerUser,
  kQOSMaxJobsPerUserLimit,
  kQOSGrpGRES,
  kQOSGrpCpuLimit,
  kQOSGrpNodeLimit,
  kQOSGrpMemLimit,
  kQOSGrpJobsLimit,
  kQOSMaxGRESPerJob,
  kQOSMaxCpuPerJobLimit,
  kQOSMaxNodePerJobLimit,
  kQOSMaxMemoryPerJob,
  kQOSMaxWallDurationPerJobLimit,
  kAssocGrpGRES,
  kAssocGrpCpuLimit,
  kAssocGrpNodeLimit,
  kAssocGrpMemLimit,
  kAssocGrpJobsLimit,
  kAssocMaxJobsLimit,
  kAssocMaxGRESPerJob,
  kAssocMaxCpuPerJobLimit,
  kAssocMaxNodePerJobLimit,
  kAssocMaxMemoryPerJob,
  kAssocMaxWallDurationPerJobLimit,
  kInvalidQOS,
  kJobArrayTaskLimit,  // an array's "%N" throttle: N of its tasks already run
  // Why a finished job ended as it did, as Slurm keeps it (squeue -t all): FAILED with a
  // non-zero exit code or a signal, TIMEOUT.
  kNonZeroExitCode,
  kTimeLimit,
};
inline constexpr int kJobReasonCount = 45;

// "PENDING", "RUNNING", "NODE_FAIL", ... as squeue -l / sacct print them.
absl::string_view JobStateName(JobState state);
// The state with that long name; nullopt for an unknown name.
std::optional<JobState> JobStateFromName(absl::string_view name);
// "PD", "R", "NF", ... (squeue's compact %t).
absl::string_view JobStateShortName(JobState state);
// "Priority", "Resources", "ReqNodeNotAvail", ...
absl::string_view JobReasonName(JobReason reason);
// The reason with that name; nullopt for an unknown name.
std::optional<JobReason> JobReasonFromName(absl::string_view name);

// Slurm's names of dependency types ("after", "afterany", "afterok", "afternotok", "aftercorr",
// "singleton") and of an item's state ("unfulfilled", "fulfilled", "failed"), and back (nullopt
// for an unknown name).
absl::string_view DependencyTypeName(DependencyType type);
std::optional<DependencyType> DependencyTypeFromName(absl::string_view name);
absl::string_view DependencyStateName(DependencyState state);
std::optional<DependencyState> DependencyStateFromName(absl::string_view name);

// True for states a job leaves only through a requeue (or never).
bool IsTerminal(JobState state);
// True if `from` -> `to` is allowed. The table:
//   PENDING     -> CONFIGURING, RUNNING, CANCELLED, FAILED (e.g. never runnable)
//   CONFIGURING -> RUNNING, CANCELLED, NODE_FAIL, FAILED, REQUEUED, PENDING (launch failed),
//                  PREEMPTED
//   RUNNING     -> COMPLETING, COMPLETED, FAILED, CANCELLED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY,
//                  REQUEUED, PREEMPTED
//   COMPLETING  -> COMPLETED, FAILED, CANCELLED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, PREEMPTED
//   REQUEUED    -> PENDING
// PREEMPTED is a preempted job cancelled (PreemptMode=CANCEL); a requeued one goes to REQUEUED.
// Terminal states go nowhere. A state never transitions to itself.
bool IsLegalTransition(JobState from, JobState to);

// A job's share of one node. `gpu_indexes` are the node's GPU device numbers given to the job
// (CUDA_VISIBLE_DEVICES); empty until the controller launches the job.
struct NodeShare {
  NodeId node;
  int32_t gpus = 0;
  int32_t cpus = 0;
  int64_t mem_mib = 0;
  std::vector<int> gpu_indexes;
  friend bool operator==(const NodeShare&, const NodeShare&) = default;
};

// The nodes of a job, in allocation order (the first is the batch host). While the job is
// CONFIGURING, RUNNING or COMPLETING it holds them; once it has ended they say where it ran
// (squeue, sacct); a pending job has none.
struct Allocation {
  std::vector<NodeShare> nodes;
  bool exclusive = false;
  bool empty() const { return nodes.empty(); }
  int64_t total_gpus() const;
  friend bool operator==(const Allocation&, const Allocation&) = default;
};

// The controller's one record of a job: what was asked (spec), who asked, and everything the
// controller decided and learned since. The controller keeps it, stores it and publishes copies
// of it; the wire (canopy.v1.Job) and database rows are converted from it at the edges.
struct Job {
  JobId id;
  SharedSpec spec;            // as submitted (shared by the copies of this job)
  ResourceRequest resources;  // spec resolved against the cluster (derived, never stored)

  // Who submitted it (from the unix socket's peer credentials).
  uint32_t user_id = 0;
  uint32_t group_id = 0;
  std::string user_name;
  std::vector<uint32_t> supplementary_gids;

  // Resolved at submission.
  std::string partition;  // the effective partition
  std::string qos;  // the effective QOS: --qos, else the association's DefaultQOS, else "normal"
  absl::Duration time_limit = absl::InfiniteDuration();  // effective; infinite = UNLIMITED
  uint32_t array_job_id = 0;                             // 0 = not part of an array
  uint32_t array_task_id = 0;
  std::string idempotency_key;  // the submit's key, if it had one
  uint32_t priority = 0;
  // Set by an operator (scontrol update Priority=): kept as is instead of recomputed.
  bool priority_fixed = false;

  // Where it is in its life.
  JobState state = JobState::kPending;
  JobReason reason = JobReason::kNone;
  // While COMPLETING: the state it ends in once every node has cleaned up.
  std::optional<JobState> completing_to;
  // Why it last changed state when that is not obvious ("launch failed on gpu3: ...").
  std::string state_message;
  // Why these nodes (switch level, leaves), or why still pending.
  std::string placement_explanation;
  absl::Time submit_time = absl::InfinitePast();
  absl::Time eligible_time = absl::InfinitePast();  // when it last became PENDING
  absl::Time start_time = absl::InfinitePast();     // last start; InfinitePast = never
  absl::Time end_time = absl::InfinitePast();
  Allocation allocation;
  // While PENDING with a backfill reservation: when and on which nodes it is expected to start
  // (squeue --start, %S). Derived by every pass, never stored; InfinitePast / empty otherwise.
  absl::Time expected_start = absl::InfinitePast();
  std::vector<NodeId> expected_nodes;
  int32_t restart_count = 0;  // SLURM_RESTART_COUNT
  int32_t exit_code = 0;      // of the batch script
  int32_t exit_signal = 0;
  uint32_t run_id = 0;  // + 1 at every launch; agents echo it in their reports
  // Who cancelled it (sacct's "CANCELLED by UID"); unset unless a user or operator did.
  std::optional<uint32_t> cancelled_by;
  uint32_t next_step_id = 0;  // srun steps get 0, 1, 2, ...
  // This run's --signal warning has been sent. Stored, so a restart neither sends it twice nor
  // (worse) forgets it; cleared at every launch.
  bool warn_sent = false;

  // An allocation-only job (srun or salloc outside a batch job) ends when its client says so.
  bool allocation_only() const { return spec->script.empty(); }

  friend bool operator==(const Job&, const Job&) = default;
};

// Moves `job` to `to` at `now`, keeping the bookkeeping consistent: start_time on RUNNING (from
// PENDING/CONFIGURING), end_time on a terminal state, restart_count + 1 and eligible_time on
// REQUEUED -> PENDING, reason cleared on leaving PENDING. The allocation is the caller's (the
// plan applier frees capacity before ending a job). FailedPrecondition naming the job and both
// states if the transition is illegal; the job is then unchanged.
absl::Status TransitionTo(Job& job, JobState to, absl::Time now);

}  // namespace canopy::core
