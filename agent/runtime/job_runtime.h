// JobRuntime: runs one node's part of jobs and steps for the controller (agent.proto): the
// batch script on the batch host, step tasks (StepPart) everywhere, signals, kills with
// SIGTERM -> SIGKILL escalation, and the JobStatus/StepStatus reports that go back up.
//
// Processes run in their own sessions (process groups) and, when cgroup v2 is delegated to the
// agent, in one leaf cgroup per job, through which a kill reaches everything the job forked.
// EXITED and CLEANED_UP statuses are kept until the controller acknowledges them
// (JobStatusAck, per job, run and phase); the session sends UnacknowledgedStatuses() again after
// every registration, and StatusesToResend() while one goes unanswered. The job ends with its
// batch script: the batch host kills what the script left without waiting for a KillJob, and
// when nothing was left and no epilog runs, its EXITED says cleaned_up (job_runtime_end.cc).
//
// Runs: a job may be launched again under the same job id (requeue, a launch that timed out);
// each launch carries Job.run_id and every JobStatus names the run it is about. A LaunchJob for
// the run this node has is answered LAUNCHED again; one for a newer run kills the old run (if
// not already being killed) and is performed once the old run is cleaned up.
//
// Thread-safe. LaunchJob makes the job's cgroup and spool file, and may load the user's login
// environment, and LaunchJob and LaunchStep may start the node's prolog (an admin's script):
// callers keep them off threads others wait on (NodeSession's RuntimeInbox). No handler waits for a
// child that enters the user's files: before its exec such a child enters the user's work directory
// and opens the user's files as the user, and a hung mount there (NFS, Lustre, a FUSE mount the
// user stalls) holds it for as long as the mount hangs. So batch scripts and notices' children are
// spawned on the node's start lanes (start_lanes_), and a step's tasks on the step's own thread
// (StepPart); none of them holds mu_, which the node's exit reports (and through the shared
// reaper every node's), kills, heartbeats and fencing need, and the node's later messages (a
// KillJob for the job that hangs among them) go on. A batch script being started is marked
// (JobRecord::batch_start) while it is: a kill drops a start still queued, and
// during a spawn signals the job's cgroup at once, and the script once it runs; SignalJob's
// signals wait for the script. The other handlers return promptly (KillJob removes the
// spool file and cgroup of a job already gone, without an epilog, itself; escalation and clean-up
// polling run on the runtime's timer thread; exits arrive from the shared ChildReaper). `report`
// is called on the thread that made the report, often with mu_ held (which keeps a job's reports
// in order): it must return at once and must not call the runtime. NodeSession's queues the
// message on the controller stream, whose gRPC write never blocks. (A thread of its own per node
// used to call it: a wake-up per report, three a job, for nothing once the stream stopped
// blocking; docs/performance.md.) Lock order: mu_, then a StepPart's own lock, then whatever
// `report` takes.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "agent/runtime/cgroup.h"
#include "agent/runtime/child_reaper.h"
#include "agent/runtime/helper_reports.h"
#include "agent/runtime/job_environment.h"
#include "agent/runtime/job_limits.h"
#include "agent/runtime/job_scripts.h"
#include "agent/runtime/login_environment.h"
#include "agent/runtime/spank_wrapper.h"
#include "agent/runtime/spawn.h"
#include "agent/runtime/step_part.h"
#include "agent/runtime/timer_thread.h"
#include "canopy/v1/agent.pb.h"
#include "common/os/unique_fd.h"

namespace canopy::agent::runtime {

struct RuntimeOptions {
  std::string node_name;
  // Batch scripts are written to <spool_dir>/job<id>.XXXXXX, a file made fresh for each run (the
  // directory is created if missing); job* entries left by an earlier agent are removed at start.
  std::string spool_dir;
  // A cgroup v2 directory the runtime may use: it creates <cgroup_parent>/<node_name> (removed
  // again when the runtime is destroyed) and one job<id> leaf per job in that. Empty, or not
  // creatable: no cgroups (process groups only).
  std::string cgroup_parent;
  bool amd_gpus = false;  // ROCR_VISIBLE_DEVICES instead of CUDA_VISIBLE_DEVICES
  // KillWait when neither KillJob nor LaunchJob gives one (Slurm's default).
  absl::Duration default_kill_wait = absl::Seconds(30);
  // How long a SPANK task helper may run its tasks' exit hooks once the tasks were SIGKILLed
  // before it is SIGKILLed too (Slurm's UnkillableStepTimeout default).
  absl::Duration helper_exit_grace = absl::Seconds(60);
  // Whose jobs a root agent runs: users of this node (getpwuid knows them) from min_job_uid up,
  // with groups the node gives them, and root only when allowed. A LaunchJob for anyone else fails,
  // whoever sent it. A non-root agent runs only its own user's jobs (it could not run anyone else's
  // as them).
  uint32_t min_job_uid = 1000;
  bool allow_root_jobs = false;
  // Confine each job to CPUs of its own (cpuset), chosen among the agent's (job_limits.h). Off
  // where several nodes share the host's CPUs (virtual nodes).
  bool pin_cpus = true;
  // The site's SPANK plugins (and TaskProlog/TaskEpilog): when enabled, every task starts
  // through the SPANK task helper.
  SpankSettings spank;
  // Prolog and Epilog (job_scripts.h).
  JobScriptSettings scripts;
};

class JobRuntime {
 public:
  using Reporter = std::function<void(const canopy::v1::AgentMessage& message)>;
  // Starter threads per node (start_lanes_): as many starts hung at once before the node's next
  // start waits.
  static constexpr int kStartLanes = 8;

  // `reaper` must outlive the runtime.
  JobRuntime(RuntimeOptions options, ChildReaper* reaper, Reporter report);
  // Shutdown(), then stops the runtime's threads.
  ~JobRuntime();
  JobRuntime(const JobRuntime&) = delete;
  JobRuntime& operator=(const JobRuntime&) = delete;

  // Controller messages. Each answers through `report` (LaunchJob with LAUNCHED or
  // LAUNCH_FAILED, KillJob eventually with CLEANED_UP, a step with StepStatus). A LaunchJob for
  // a run that already ended here, whose end the controller has not acknowledged (a controller
  // restarted before it heard LAUNCHED sends the launch again), does not start the run twice:
  // the run's end is reported again instead.
  void LaunchJob(const canopy::v1::LaunchJob& launch) { LaunchJob(launch, Fences()); }
  // The same for a launch that arrived when Fences() was `fences_seen`: one that arrived before
  // the node last fenced its jobs is dropped. It can wait that long behind a launch that is slow
  // in the node's inbox (a login environment, a prolog's start), and by the time it would start,
  // the controller that sent it has declared the node down and requeued the job elsewhere: it
  // would run twice.
  void LaunchJob(const canopy::v1::LaunchJob& launch, uint64_t fences_seen);
  void SignalJob(const canopy::v1::SignalJob& signal);
  void KillJob(const canopy::v1::KillJob& kill);
  // Must not race with Shutdown(): call it from the thread that reads the controller stream.
  void LaunchStep(const canopy::v1::LaunchStep& launch);
  void KillStep(const canopy::v1::KillStep& kill);
  // scontrol notify: to the listed steps' sruns, or appended to the batch script's stderr as
  // Slurm's slurmstepd writes it ("slurmstepd-NODE: error: MESSAGE"), as the job's user.
  void NotifyJob(const canopy::v1::NotifyJob& notify);
  // sattach: copies this node's part of the step's output to another StepIo server.
  void AttachStep(const canopy::v1::AttachStep& attach);
  void AckStatus(const canopy::v1::JobStatusAck& ack);
  // The node's GPUs and their device files, after each discovery: a job's processes may open
  // only its own GPUs' (job_limits.h).
  void SetGpuDevices(std::vector<GpuDeviceFile> gpus);
  // Which limits this node enforces, and how (NodeLimits::Describe).
  std::string LimitsDescription() const { return limits_->Describe(); }

  // Jobs this node still has (launched and not yet cleaned up), ascending; not a job whose
  // old run is only being cleaned up for a newer run that waits to start.
  std::vector<uint32_t> RunningJobIds() const;
  // The same jobs, with the run and what each was given on this node (Register.running_jobs).
  std::vector<canopy::v1::RunningJob> RunningJobs() const;
  // EXITED / CLEANED_UP statuses the controller has not acknowledged, by job, run, then phase.
  std::vector<canopy::v1::JobStatus> UnacknowledgedStatuses() const;
  // Those of them sent at least `unanswered_for` ago, counted as sent again now (with a positive
  // `unanswered_for`, not those of run 0, which could pass for a newer run's). A report lost on
  // the way (a stream that broke under it) is sent again without waiting for the next
  // registration; the controller treats a repeated report as it treated the first.
  std::vector<canopy::v1::JobStatus> StatusesToResend(absl::Duration unanswered_for);

  // Fencing: the node has lost the controller for so long that the controller has (or is about
  // to have) declared it down and requeued its jobs elsewhere. SIGKILLs every job's processes at
  // once (there is no time for KillWait: the requeued copy may start any moment), drops launches
  // of newer runs that wait, and marks the EXITED and CLEANED_UP reports `fenced`, so the
  // controller requeues a run it still thought running. Returns the number of jobs fenced; a job
  // already fenced is not counted again. Later launches run normally; launches that arrived
  // before it and wait to be applied do not run (LaunchJob with fences_seen).
  int Fence(absl::string_view why);
  // How many times Fence() was called. Never waits for a launch in progress.
  uint64_t Fences() const { return fences_.load(); }

  // SIGKILLs every job's processes and waits (up to `timeout`) until they are gone. Used when
  // the agent stops: the agent does not re-adopt jobs after a restart, so leaving them running
  // would only leak processes. Idempotent; the runtime accepts no launches afterwards (queued
  // launches of newer runs are dropped). Reports already queued are still sent.
  void Shutdown(absl::Duration timeout = absl::Seconds(10));

 private:
  struct JobRecord {
    canopy::v1::LaunchJob launch;
    uint32_t run_id() const { return launch.job().run_id(); }
    pid_t batch_pid = 0;  // process group of the batch script (or its SPANK helper); 0 = none
    bool batch_running = false;
    // Its start waits on a start lane (StartBatchLater), then spawns without mu_ (StartBatch):
    // LAUNCHED waits, and an exit the reaper reports before the spawn returns waits in
    // batch_early_exit. A start that waits is dropped when the job is killed (the record goes,
    // or its batch_start is kNone again); one that spawns keeps the record (Gone() is false).
    enum class BatchStartPhase { kNone, kQueued, kSpawning };
    BatchStartPhase batch_start = BatchStartPhase::kNone;
    bool batch_starting() const { return batch_start != BatchStartPhase::kNone; }
    uint64_t batch_start_id = 0;  // BatchStart::start_id of this run's start
    std::optional<int> batch_early_exit;
    // SignalJob's signals while the script starts or this node's prolog runs, sent to the
    // script once it runs (BatchStarted).
    std::vector<int> batch_pending_signals;
    // scontrol notify's children being spawned into the job's cgroup: Gone() waits for them.
    int notices_starting = 0;
    // scontrol notify's messages for the script, one child at a time (notice_running): those
    // that came while the script started, or while another notice ran, wait here.
    std::deque<std::string> notices_waiting;
    bool notice_running = false;
    // With SPANK the batch script runs under the task helper (batch_pid), which reports the
    // script's own process group on this pipe (helper_reports.h), read without blocking.
    os::UniqueFd batch_reports;
    HelperReportReader batch_reader;
    pid_t batch_task_group = 0;  // 0: no helper, not reported yet, or found empty
    bool batch_supervised = false;
    bool batch_node_fault = false;  // the helper reported a fault of the node's plugins
    std::unique_ptr<Cgroup> cgroup;
    // The leaf's memory.events "oom_kill" when the job started; none where the node's jobs have
    // no memory controller (no such file: two failed opens a job saved).
    std::optional<int64_t> oom_kills_at_start;
    std::unique_ptr<JobConfinement> confinement;  // its memory, CPU and GPU limits
    // The cgroup.procs files its processes join: the v2 leaf, then its limits' v1 directories.
    std::vector<std::string> CgroupProcsFiles() const;
    // The same files opened for writing (the v2 leaf's relative to the node's cgroup); one that
    // cannot be opened is left out, as OpenForWriting does.
    std::vector<os::UniqueFd> OpenCgroupProcs() const;
    bool OutOfMemory() const;
    // The node's identity as this job's environment sees it (its GPUs confined or not).
    // The SPANK task helper's job-level arguments (spank_wrapper.h), empty without SPANK.
    std::vector<std::string> SpankArgs(const SpankSettings& spank) const {
      return SpankJobArgs(spank, launch,
                          confinement != nullptr ? confinement->cpus() : std::vector<int>{});
    }
    NodeIdentity Identity(const NodeIdentity& node) const {
      NodeIdentity id = node;
      id.gpus_confined = confinement != nullptr && confinement->gpus_confined();
      return id;
    }
    std::map<uint32_t, std::unique_ptr<StepPart>> steps;
    // The latest parts of steps that ended here (RunningJob.ended_steps).
    std::deque<canopy::v1::StepStatus> ended_steps;
    // Process groups of step tasks whose StepPart is gone, kept while they have members (what a
    // task left running in the background): kills and Gone() cover them.
    std::set<pid_t> step_groups;
    std::string spool_script;  // the batch script's file, removed with the job
    // The batch script's stderr file and working directory, as it was started (notify).
    std::string batch_stderr_path;
    std::string batch_work_dir;
    bool killing = false;
    // The batch script's EXITED, held back while the node cleans the job up itself after the
    // script's end (BatchExited; never where an epilog runs): sent with cleaned_up if the first
    // CheckKill finds everything gone, or on its own as soon as a check has to wait.
    std::optional<canopy::v1::JobStatus> held_exit;
    bool kill_asked = false;  // a KillJob came while it was being killed
    bool sigkill_sent = false;
    absl::Time kill_deadline = absl::InfiniteFuture();
    // SIGKILL reached the tasks but spared SPANK helpers still running their exit hooks: once
    // they are gone, SIGKILL goes out once more (the cgroup); if they outlive helper_kill_at,
    // they are killed.
    bool sigkill_spared_helpers = false;
    absl::Time helper_kill_at = absl::InfiniteFuture();
    // A launch of a newer run, performed once this run is cleaned up.
    std::optional<canopy::v1::LaunchJob> next_launch;
    std::optional<Environment> next_login_env;  // loaded for next_launch (LaunchJob)
    // The user's login environment, loaded before the record was made, for jobs that ask for it.
    std::optional<Environment> login_env;
    // A newer run that was waiting here and was killed (KillJob) before it started: it is
    // reported CLEANED_UP along with this run.
    uint32_t cancelled_run = 0;
    bool fenced = false;  // killed by Fence(): its reports say so
    // Prolog and Epilog on this node (job_runtime_scripts.cc).
    enum class Script { kNotRun, kRunning, kDone };
    Script prolog = Script::kNotRun;
    Script epilog = Script::kNotRun;
    bool epilog_failed = false;
    pid_t script_pid = 0;          // the prolog or epilog running now (its own process group)
    bool launch_reported = false;  // LAUNCHED sent (at once, or once the prolog is done)
    std::vector<canopy::v1::LaunchStep> steps_after_prolog;  // steps waiting for the prolog
  };

  // The record of `run_id` of job `job_id`, or nullptr when this node has another run or none
  // (an exit callback about a run that is gone).
  JobRecord* FindRun(uint32_t job_id, uint32_t run_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Removes job directories an earlier agent left in the spool (constructor).
  void ClearStaleSpool();
  // scontrol notify's child for a batch script, on a start lane (job_runtime_steps.cc); the
  // job's next waiting notice after it.
  void StartNotice(uint32_t job_id, uint32_t run_id, uint64_t start_id, const std::string& message)
      ABSL_LOCKS_EXCLUDED(mu_);
  // The record of the run whose script start `start_id` was (a run 0 launched again after a kill
  // has the same run id), or nullptr.
  JobRecord* FindScript(uint32_t job_id, uint32_t run_id, uint64_t start_id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Destroys the step parts still running after Shutdown() (destructor).
  void DestroyStepsLeft() ABSL_LOCKS_EXCLUDED(mu_);
  // A batch script's start, prepared under mu_ (PrepareBatch) and spawned without it
  // (StartBatch), with the descriptors its request borrows.
  struct BatchStart {
    uint32_t job_id = 0;
    uint32_t run_id = 0;
    uint64_t start_id = 0;  // unique in the runtime: a run 0 launched again has another
    SpawnRequest request;
    std::vector<os::UniqueFd> cgroup_procs;
    os::UniqueFd reports_read;  // the SPANK helper's reports (JobRecord::batch_reports)
    os::UniqueFd reports_write;
  };
  // Launches a job that has no record here: records it and queues LAUNCHED or LAUNCH_FAILED,
  // or, where a batch script is due, returns its start, which the caller hands to
  // StartBatchLater (LAUNCHED then follows the spawn).
  // `login_env`: the user's login environment, loaded beforehand (without mu_: a login shell
  // may take seconds) when the job asks for it.
  std::optional<BatchStart> StartJob(const canopy::v1::LaunchJob& launch,
                                     std::optional<Environment> login_env)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A LaunchJob for a job that has a record here: answered LAUNCHED again (the same run), ignored
  // (an older run), or kept until the run here is cleaned up (a newer run). True when that kill
  // just began and its CheckKill is due.
  bool LaunchAgain(JobRecord& job, const canopy::v1::LaunchJob& launch,
                   std::optional<Environment> login_env) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The statuses of this run of the job not acknowledged yet.
  std::vector<canopy::v1::JobStatus> UnacknowledgedOfRun(uint32_t job_id, uint32_t run_id) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The batch script's spool file and spawn request (job_runtime_batch.cc).
  absl::StatusOr<BatchStart> PrepareBatch(JobRecord& job) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Spawns the script, then records it and reports LAUNCHED, or LAUNCH_FAILED. Runs on a lane,
  // without mu_ (a kill that arrives meanwhile reaches the script once it runs: BatchStarted).
  void StartBatch(BatchStart start) ABSL_LOCKS_EXCLUDED(mu_);
  void BatchStarted(BatchStart& start, const absl::StatusOr<pid_t>& pid)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The record whose start `start` is, or nullptr when it was dropped (the job killed while its
  // start waited) or the record is gone.
  JobRecord* FindStart(const BatchStart& start) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // StartBatch on a start lane, unless the job is killed before its turn comes. Every start goes
  // there, whichever thread made it due (the node's inbox at a launch, the reaper's after a
  // prolog, the stream reader's or the timer's after an older run's clean-up), queued under mu_
  // with the record's batch_start; notices for the script wait for it (NextNotice).
  void StartBatchLater(std::optional<BatchStart> start) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Queues `task` for the start lanes, waking an idle lane if there is one.
  void QueueStart(absl::AnyInvocable<void()> task) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Start lane `lane`'s loop: runs the queue's tasks, one at a time, until it is empty.
  void DrainStarts(int lane) ABSL_LOCKS_EXCLUDED(mu_);
  // The job's next waiting notice, on the start lanes, unless one is running (a job's notices
  // start one at a time, in turn, and only once its script runs).
  void NextNotice(JobRecord& job) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The rest of a launch once the node is ready (the prolog done where one runs first): LAUNCHED,
  // or the batch script's start to hand to StartBatchLater, or LAUNCH_FAILED and the record
  // dropped.
  std::optional<BatchStart> ContinueLaunch(uint32_t job_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // LAUNCH_FAILED for `why`; the record is dropped unless it is being killed (CheckKill, which
  // reports it cleaned up, then owns it).
  void LaunchFailed(uint32_t job_id, const absl::Status& why) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Whether this node runs the job's batch script (its batch host, and the job has one; an
  // allocation has none).
  static bool RunsBatchScript(const canopy::v1::LaunchJob& launch) {
    return launch.is_batch_host() && !launch.job().spec().script().empty();
  }
  // Prolog and Epilog (job_runtime_scripts.cc).
  bool PrologDueAtLaunch(const canopy::v1::LaunchJob& launch) const;
  // Starts the prolog or epilog of `job`; its exit comes to OnPrologExit / OnEpilogExit.
  absl::StatusOr<pid_t> SpawnJobScript(JobRecord& job, JobScript which)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status StartProlog(JobRecord& job) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void OnPrologExit(uint32_t job_id, uint32_t run_id, int wait_status);
  // PrologEpilogTimeout: kills the prolog or epilog `pid` of the run if it still runs.
  void TimeOutJobScript(uint32_t job_id, uint32_t run_id, JobScript which, pid_t pid);
  // Reports the launch failed for the node's prolog (drain "Prolog error") and drops the job.
  void PrologFailed(uint32_t job_id, const std::string& why) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // True when an epilog was started (CheckKill then waits for it).
  bool StartEpilog(JobRecord& job) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void OnEpilogExit(uint32_t job_id, uint32_t run_id, int wait_status);
  // A step that arrived before this node's prolog finished (or started it).
  bool DeferStepForProlog(JobRecord& job, const canopy::v1::LaunchStep& launch)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // SIGTERM now, SIGKILL after `wait`; the caller schedules CheckKill.
  void BeginKill(JobRecord& job, absl::Duration wait) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The KillWait the job's launch gave (the node's default without one).
  absl::Duration LaunchKillWait(const JobRecord& job) const;
  void OnBatchExit(uint32_t job_id, uint32_t run_id, int wait_status);
  // Reports the script's end. The job ends with its script (as in Slurm), so unless it is already
  // being killed, the node kills what the script left and cleans up without waiting for the
  // controller's KillJob. Without an epilog it holds the EXITED back (held_exit) to send it with
  // CLEANED_UP at once when nothing is left. True when that clean-up began: the caller runs
  // CheckKill(job id) once it has released mu_.
  bool BatchExited(JobRecord& job, int wait_status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Sends the job's held-back EXITED on its own (a check that has to wait).
  void SendHeldExit(JobRecord& job) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The newest run of the job whose EXITED with cleaned_up waits for its ack; 0 if none.
  uint32_t CleanedUpRunAwaitingAck(uint32_t job_id) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void OnStepDone(uint32_t job_id, uint32_t step_id, const canopy::v1::StepStatus& status);
  // Sends a step part's end, keeping it in `job`'s ended_steps (when the job is still here).
  void ReportStepEnd(JobRecord* job, const canopy::v1::StepStatus& status)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void CheckKill(uint32_t job_id);
  // How signals reach a job's processes (job_runtime_signals.cc). With SPANK helpers running,
  // they get what they can forward and the tasks the rest; SIGKILL spares them (the caller
  // then watches helper_kill_at).
  void SignalEverything(JobRecord& job, int signal) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void SignalBatch(JobRecord& job, int signal) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The steps' tasks, and the groups finished tasks left behind.
  void SignalSteps(JobRecord& job, int signal) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void SignalStepGroups(JobRecord& job, int signal) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ReadBatchReports(JobRecord& job) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool HelpersRunning(JobRecord& job) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // SIGKILL for the job's processes once KillWait is over (or at once): the tasks first.
  void SendSigkill(JobRecord& job, absl::Duration helper_grace) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // A kill that goes on (CheckKill): helpers that outlived their grace are killed; once they
  // are gone, SIGKILL once more for what they spared.
  void ContinueSigkill(JobRecord& job) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // True when none of the job's processes is left; forgets step groups found empty.
  bool Gone(JobRecord& job) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void ReportJob(canopy::v1::JobStatus status, bool keep_until_ack)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  static canopy::v1::JobStatus StatusOf(uint32_t job_id, uint32_t run_id,
                                        canopy::v1::JobStatus::Phase phase);
  // Hands a report to `report`. Callers hold mu_ where the order matters.
  void Send(const canopy::v1::AgentMessage& message) { report_(message); }
  void FailStepWithoutJob(const canopy::v1::LaunchStep& launch, const std::string& message);
  std::optional<Credentials> CredentialsFor(const canopy::v1::Job& job) const;

  const RuntimeOptions options_;
  const NodeIdentity node_;
  ChildReaper* const reaper_;
  LoginEnvironmentCache login_envs_;  // for jobs that ask for the user's login environment
  const Reporter report_;

  // Before jobs_: their confinements give CPUs back to it when destroyed.
  std::unique_ptr<NodeLimits> limits_;

  mutable absl::Mutex mu_;
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
  // Fence() calls: raised under mu_ (LaunchJob compares under it), read without it by
  // Fences(), which the stream's reader calls for every launch: it must not wait for mu_, which
  // the node's inbox thread may hold while it prepares a job (cgroup, spool file).
  std::atomic<uint64_t> fences_{0};
  std::map<uint32_t, std::unique_ptr<JobRecord>> jobs_ ABSL_GUARDED_BY(mu_);
  // (job id, run id, phase)
  struct Unacknowledged {
    canopy::v1::JobStatus status;
    absl::Time sent;  // last handed to `report`
  };
  std::map<std::tuple<uint32_t, uint32_t, int>, Unacknowledged> unacked_ ABSL_GUARDED_BY(mu_);
  int live_steps_ ABSL_GUARDED_BY(mu_) = 0;          // StepParts not yet destroyed
  uint64_t last_start_id_ ABSL_GUARDED_BY(mu_) = 0;  // BatchStart::start_id

  std::unique_ptr<Cgroup> node_cgroup_;  // parent of the job leaves; null without cgroups
  os::UniqueFd log_fd_;  // the agent's stderr (its log), for the prolog's and epilog's output
  // The node's starter threads ("start lanes") and the queue they take batch starts
  // (StartBatchLater) and notices' children from, in order. A start hung on a mount holds up its
  // own lane alone: not the node's messages, kills and escalations (timer_), and not the node's
  // other starts, which the other lanes take (as slurmd's jobs start in a slurmstepd each). Only
  // a node with more than one start due at once, or one hung, uses more than one lane, and a
  // lane's thread ends when idle (TimerThread). Stopped first (~JobRuntime), so their tasks may
  // use timer_, whose tasks use them.
  std::array<TimerThread, kStartLanes> start_lanes_;
  std::array<bool, kStartLanes> start_lane_taking_ ABSL_GUARDED_BY(mu_) = {};  // DrainStarts due
  std::deque<absl::AnyInvocable<void()>> start_queue_ ABSL_GUARDED_BY(mu_);
  TimerThread timer_;
};

}  // namespace canopy::agent::runtime
