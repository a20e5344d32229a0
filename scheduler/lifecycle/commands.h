// The requests the job lifecycle takes and the answers it gives, in the core's own types.
//
// The controller's gRPC services convert the wire messages (proto/canopy/v1) into these and the
// answers back (scheduler/server/proto_convert.h); the simulator builds them directly. Plain
// value types.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "scheduler/core/ids.h"
#include "scheduler/core/job_spec.h"

namespace canopy::lifecycle {

// ---- From clients

struct SubmitRequest {
  core::SharedSpec spec;
  // A retried submit with the same key returns the first job id instead of a second job.
  std::string idempotency_key;
};

struct SubmitAnswer {
  core::JobId job_id;  // the job, or for an array the array's job id (= its first task's)
  std::vector<core::JobId> array_task_job_ids;  // arrays only, in task order
};

// Cancel jobs, or send them a signal (scancel --signal).
struct CancelRequest {
  std::vector<uint32_t> job_ids;  // raw ids: an unknown one is an answer, not an error
  int32_t signal = 0;             // 0 = cancel
  bool batch_only = false;        // with a signal: only the batch shell
};

struct CancelAnswer {
  uint32_t job_id = 0;
  bool ok = false;
  std::string error;  // Slurm's words: "Invalid job id specified", ...
};

// scontrol hold, uhold, release, requeue and requeuehold, for a list of jobs.
enum class JobAction {
  kHold,         // an operator's hold is an admin hold (JobHeldAdmin), anyone else's a user hold
  kUserHold,     // a user hold (JobHeldUser) whoever asks
  kRelease,      // ends a hold; only an operator may end an admin hold
  kRequeue,      // a running job is killed and queued again (restart count + 1)
  kRequeueHold,  // the same, and held (JobHeldUser)
};

struct JobActionRequest {
  std::vector<uint32_t> job_ids;  // raw ids; an array's id names all its tasks
  JobAction action = JobAction::kHold;
};

// One per requested id, like CancelAnswer: ok unless every job it names failed.
struct JobActionAnswer {
  uint32_t job_id = 0;
  bool ok = false;
  std::string error;  // Slurm's words: "Invalid job id specified", "Job is pending execution", ...
};

// scontrol update job ID TimeLimit=...: a new limit (InfiniteDuration = UNLIMITED), or a change
// of the current one (TimeLimit+=/-=).
struct TimeLimitChange {
  std::optional<absl::Duration> set;
  absl::Duration add = absl::ZeroDuration();
};

// scontrol update job ID Name= Comment= Partition= NumNodes= ExcNodeList= ReqNodeList=
// Dependency=: the fields given change (job_edit.h).
struct JobEdit {
  std::optional<std::string> name;
  std::optional<std::string> comment;
  std::optional<std::string> partition;
  std::optional<int32_t> min_nodes;
  std::optional<int32_t> max_nodes;           // 0 = same as min_nodes
  std::optional<std::string> excluded_nodes;  // hostlist; "" clears
  std::optional<std::string> required_nodes;  // hostlist; "" clears
  // Replaces the dependency list (empty clears it), ANDed or, with dependency_any, ORed.
  std::optional<std::vector<core::Dependency>> dependencies;
  bool dependency_any = false;

  // Fields only a pending job may change.
  bool ChangesPendingOnly() const {
    return partition || min_nodes || max_nodes || excluded_nodes || required_nodes || dependencies;
  }
  bool empty() const { return !name && !comment && !ChangesPendingOnly(); }
};

// srun inside an allocation: a step of `job`.
struct StepRequest {
  core::JobId job;
  int32_t nodes = 0;            // -N; 0 = every node (or as ntasks needs)
  int32_t ntasks = 0;           // -n; 0 = one per node (or ntasks_per_node x nodes)
  int32_t ntasks_per_node = 0;  // 0 = unset
  std::vector<std::string> argv;
  std::map<std::string, std::string> environment;
  std::string work_dir;
  std::string io_address;  // srun's StepIo server the agents stream to
  std::string io_token;
  std::string stdout_path;  // output to files instead of srun (patterns; %t = rank)
  std::string stderr_path;
};

struct StepAnswer {
  uint32_t step_id = 0;
  int32_t ntasks = 0;
  std::vector<std::string> nodes;       // node-index order
  std::vector<int32_t> tasks_per_node;  // on each of those nodes
};

// scontrol notify JOBID MESSAGE.
struct NotifyRequest {
  core::JobId job;
  std::string message;
};

// sattach JOBID.STEPID: where the caller's StepIo server listens, and its token.
struct AttachRequest {
  core::JobId job;
  uint32_t step_id = 0;
  std::string io_address;
  std::string io_token;
};

struct CancelStepRequest {
  core::JobId job;
  uint32_t step_id = 0;
  int32_t signal = 0;  // 0 = kill (SIGTERM, SIGKILL after KillWait)
};

// The client of an allocation-only job (srun or salloc outside a batch job) is done with it.
struct CompleteRequest {
  core::JobId job;
  int32_t exit_code = 0;
  int32_t exit_signal = 0;
};

// ---- From agents

enum class JobPhase {
  kLaunched,      // this node's part is set up (and, on the batch host, the script started)
  kLaunchFailed,  // could not start; `message` says why
  kExited,        // the batch script ended (batch host only)
  kCleanedUp,     // every process of the job on this node is gone
};

struct StepReport {
  core::JobId job;
  uint32_t step_id = 0;
  int32_t node_index = 0;
  bool exited = false;
  int32_t exit_code = 0;    // highest task exit code on that node
  int32_t exit_signal = 0;  // a signal that ended a task there, 0 = none
};

// A job an agent still has on its node when it registers (agent.proto Register.running_jobs),
// with what it was given there.
struct RunningJob {
  core::JobId job;
  uint32_t run_id = 0;  // 0: the agent did not say
  std::vector<int> gpu_indexes;
  int32_t cpus = 0;
  std::vector<StepReport> ended_steps;  // parts of its steps that ended on the node
};

struct JobReport {
  core::JobId job;
  JobPhase phase = JobPhase::kLaunched;
  int32_t exit_code = 0;       // kExited
  int32_t exit_signal = 0;     // kExited
  bool out_of_memory = false;  // kExited
  std::string message;
  uint32_t run_id = 0;  // the run it is about; 0 = an agent that never had the job
  // kLaunchFailed, kExited: the node is at fault, not the job: drain the node, run the job
  // elsewhere.
  bool node_fault = false;
  // kExited / kCleanedUp: the agent killed the run itself, having lost the controller.
  bool fenced = false;
  // kLaunchFailed / kExited with node_fault: Slurm's drain reason when not the default
  // ("Prolog error");
  // kCleanedUp: the node's epilog failed ("Epilog error"): drain the node with it.
  std::string drain_reason;
  // kExited: the batch host cleaned its part up too (JobStatus.cleaned_up): the same as this
  // report followed by kCleanedUp, and no KillJob goes to the node.
  bool cleaned_up = false;
};

// sbatch --test-only's answer.
struct WillRunAnswer {
  core::JobId job;  // the id the job would get
  absl::Time start;
  std::vector<core::NodeId> nodes;
  int64_t cpus = 0;
  std::string partition;
};

}  // namespace canopy::lifecycle
