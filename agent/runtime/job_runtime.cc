#include "agent/runtime/job_runtime.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "agent/runtime/job_user.h"
#include "agent/runtime/login_environment.h"
#include "agent/runtime/spawn.h"
#include "agent/runtime/step_io_stream.h"
#include "common/log/absl_format.h"
#include "common/rpc/status_convert.h"
#include "spdlog/spdlog.h"

namespace canopy::agent::runtime {
namespace {

using canopy::v1::JobStatus;

// How often a kill looks for the job's last process.
constexpr absl::Duration kKillPoll = absl::Milliseconds(20);

}  // namespace

JobStatus JobRuntime::StatusOf(uint32_t job_id, uint32_t run_id, JobStatus::Phase phase) {
  JobStatus s;
  s.set_job_id(job_id);
  s.set_run_id(run_id);
  s.set_phase(phase);
  return s;
}

JobRuntime::JobRuntime(RuntimeOptions options, ChildReaper* reaper, Reporter report)
    : options_(std::move(options)),
      node_{options_.node_name, options_.amd_gpus},
      reaper_(reaper),
      report_(std::move(report)),
      log_fd_(fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3)) {
  if (!options_.cgroup_parent.empty()) {
    absl::StatusOr<std::unique_ptr<Cgroup>> cg =
        Cgroup::Create(options_.cgroup_parent, options_.node_name);
    if (cg.ok()) {
      node_cgroup_ = *std::move(cg);
    } else {
      spdlog::warn("{}: {}; jobs get process groups only", options_.node_name,
                   cg.status().message());
    }
  }
  // In the v1 hierarchies the node's directory has the same place below the agent's own.
  const std::string parent_name =
      options_.cgroup_parent.substr(options_.cgroup_parent.rfind('/') + 1);
  limits_ = std::make_unique<NodeLimits>(
      options_.node_name, node_cgroup_ != nullptr ? node_cgroup_->path() : "",
      absl::StrCat(parent_name, "/", options_.node_name), options_.pin_cpus);
  ClearStaleSpool();
}

std::vector<std::string> JobRuntime::JobRecord::CgroupProcsFiles() const {
  std::vector<std::string> files;
  if (cgroup != nullptr) {
    files.push_back(absl::StrCat(cgroup->path(), "/cgroup.procs"));
  }
  if (confinement != nullptr) {
    for (std::string& file : confinement->ProcsFiles()) {
      files.push_back(std::move(file));
    }
  }
  return files;
}

std::vector<os::UniqueFd> JobRuntime::JobRecord::OpenCgroupProcs() const {
  std::vector<os::UniqueFd> fds;
  if (cgroup != nullptr) {
    if (absl::StatusOr<os::UniqueFd> procs = cgroup->OpenProcs(); procs.ok()) {
      fds.push_back(*std::move(procs));
    }
  }
  if (confinement != nullptr) {
    for (os::UniqueFd& fd : OpenForWriting(confinement->ProcsFiles())) {
      fds.push_back(std::move(fd));
    }
  }
  return fds;
}

bool JobRuntime::JobRecord::OutOfMemory() const {
  return (cgroup != nullptr && cgroup->OomKills() > oom_kills_at_start) ||
         (confinement != nullptr && confinement->OomKills() > 0);
}

void JobRuntime::SetGpuDevices(std::vector<GpuDeviceFile> gpus) {
  limits_->SetGpuDevices(std::move(gpus));
}

void JobRuntime::ClearStaleSpool() {
  // The agent does not adopt jobs of an earlier run of itself, so whatever an earlier run left
  // in the spool (after kill -9 or a crash) belongs to no job here.
  // Incremented with an error code: a range-for's increment throws if the directory goes.
  std::error_code ec;
  for (std::filesystem::directory_iterator it(options_.spool_dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::filesystem::directory_entry& entry = *it;
    const std::string name = entry.path().filename().string();
    if (absl::StartsWith(name, "job")) {
      std::error_code ignored;
      std::filesystem::remove_all(entry.path(), ignored);
      spdlog::info("{}: removed stale spool {}", options_.node_name, entry.path().string());
    }
  }
}

JobRuntime::~JobRuntime() {
  Shutdown();
  // Before timer_ goes: a start's tasks may schedule there (a notice's timeout, a failed
  // launch's clean-up). Starts that timer_'s tasks queue from here on never run.
  for (TimerThread& lane : start_lanes_) {
    lane.Stop();
  }
  DestroyStepsLeft();
  // Jobs' leaves are gone with the jobs; node_cgroup_ is removed when members are destroyed
  // (after timer_, whose pending tasks may still hold finished steps).
}

std::optional<Credentials> JobRuntime::CredentialsFor(const canopy::v1::Job& job) const {
  if (geteuid() != 0) {
    return std::nullopt;  // jobs run as the agent's own user
  }
  Credentials c;
  c.uid = job.user_id();
  c.gid = job.group_id();
  c.supplementary_gids.assign(job.supplementary_gids().begin(), job.supplementary_gids().end());
  return c;
}

void JobRuntime::ReportJob(JobStatus status, bool keep_until_ack) {
  if (keep_until_ack) {
    unacked_[{status.job_id(), status.run_id(), static_cast<int>(status.phase())}] = {status,
                                                                                      absl::Now()};
  }
  canopy::v1::AgentMessage msg;
  *msg.mutable_job_status() = std::move(status);
  Send(msg);
}

void JobRuntime::LaunchJob(const canopy::v1::LaunchJob& launch, uint64_t fences_seen) {
  const uint32_t job_id = launch.job().job_id();
  const uint32_t run_id = launch.job().run_id();
  // Before the lock: the user's login shell may take up to kLoginEnvironmentTimeout (once a
  // minute per user: login_envs_). Only for a user this node runs jobs for (StartJob refuses the
  // others), by the node's name for the uid. A job that cannot have it runs with what it
  // brought, as the warning says (Slurm's slurmd too: "running only with passed environment").
  std::optional<Environment> login_env;
  if (launch.is_batch_host() && WantsLoginEnvironment(launch) &&
      MayRunJobAs(launch.job(), options_).ok()) {
    absl::StatusOr<Environment> loaded =
        login_envs_.Get(launch.job().user_id(), *reaper_, kLoginEnvironmentTimeout);
    if (loaded.ok()) {
      login_env = *std::move(loaded);
    } else {
      spdlog::warn("{}: job {}: without the user's login environment: {}", options_.node_name,
                   job_id, loaded.status().message());
    }
  }
  bool check_kill = false;
  {
    absl::MutexLock lock(&mu_);
    if (shut_down_) {
      return;
    }
    // Under mu_, as Fence() is: a launch applied before a fence is one of the jobs it kills.
    if (fences_seen != fences_.load()) {
      spdlog::warn(
          "{}: job {} (run {}): not started: its launch arrived before this node fenced its jobs",
          options_.node_name, job_id, run_id);
      // As for the jobs the fence killed: a controller that still counts the run as here (it
      // came back before declaring the node down) requeues it; one that requeued it ignores this.
      JobStatus cleaned = StatusOf(job_id, run_id, JobStatus::PHASE_CLEANED_UP);
      cleaned.set_fenced(true);
      cleaned.set_message("not started: the launch arrived before the node fenced its jobs");
      ReportJob(std::move(cleaned), true);
      return;
    }
    auto it = jobs_.find(job_id);
    if (it == jobs_.end()) {
      // (Run 0 comes from a controller that does not number runs: it cannot tell them apart.)
      if (std::vector<JobStatus> ended = UnacknowledgedOfRun(job_id, run_id);
          run_id != 0 && !ended.empty()) {
        spdlog::info(
            "{}: job {} (run {}) already ran here and ended: not starting it again, "
            "reporting its end again",
            options_.node_name, job_id, run_id);
        for (JobStatus& status : ended) {
          ReportJob(std::move(status), false);  // still kept until acknowledged
        }
        return;
      }
      // On a start lane, not this thread (the node's inbox): a start that hangs on a mount would
      // hold up the node's later messages, a KillJob for this very job among them.
      StartBatchLater(StartJob(launch, std::move(login_env)));
    } else {
      check_kill = LaunchAgain(*it->second, launch, std::move(login_env));
    }
  }
  if (check_kill) {
    timer_.Schedule(absl::Now(), [this, job_id] { CheckKill(job_id); });
  }
}

bool JobRuntime::LaunchAgain(JobRecord& job, const canopy::v1::LaunchJob& launch,
                             std::optional<Environment> login_env) {
  const uint32_t job_id = launch.job().job_id();
  const uint32_t run_id = launch.job().run_id();
  if (run_id == job.run_id() && !job.launch_reported) {
    // LAUNCHED goes once its prolog is done and its script started, or never: the run was
    // killed before it started, or failed to launch while it was being killed.
    return false;
  }
  if (run_id == job.run_id()) {
    // A resent LaunchJob (after a reconnect): this run is already here.
    spdlog::info("{}: job {} (run {}) is already launched here", options_.node_name, job_id,
                 run_id);
    ReportJob(StatusOf(job_id, run_id, JobStatus::PHASE_LAUNCHED), false);
    return false;
  }
  if (run_id < job.run_id() ||
      (job.next_launch.has_value() && run_id <= job.next_launch->job().run_id())) {
    spdlog::info("{}: job {}: ignoring a launch of run {} (run {} is here{})", options_.node_name,
                 job_id, run_id, job.run_id(),
                 job.next_launch.has_value()
                     ? absl::StrCat(", run ", job.next_launch->job().run_id(), " waiting")
                     : "");
    return false;
  }
  // A newer run: the old one goes first; its record (and cgroup, spool file) must be gone
  // before the new run starts under the same job id.
  spdlog::info("{}: job {}: run {} waits for run {} to be cleaned up", options_.node_name, job_id,
               run_id, job.run_id());
  job.next_launch = launch;
  job.next_login_env = std::move(login_env);
  job.cancelled_run = 0;
  if (job.killing) {
    return false;  // its CheckKill chain starts the newer run
  }
  BeginKill(job, LaunchKillWait(job));
  return true;
}

std::optional<JobRuntime::BatchStart> JobRuntime::StartJob(const canopy::v1::LaunchJob& launch,
                                                           std::optional<Environment> login_env) {
  const uint32_t job_id = launch.job().job_id();
  if (absl::Status allowed = MayRunJobAs(launch.job(), options_); !allowed.ok()) {
    spdlog::warn("{}: job {} refused: {}", options_.node_name, job_id, allowed.message());
    JobStatus status = StatusOf(job_id, launch.job().run_id(), JobStatus::PHASE_LAUNCH_FAILED);
    status.set_message(std::string(allowed.message()));
    ReportJob(std::move(status), false);
    return std::nullopt;
  }
  auto job = std::make_unique<JobRecord>();
  job->launch = launch;
  job->login_env = std::move(login_env);
  if (node_cgroup_ != nullptr) {
    absl::StatusOr<std::unique_ptr<Cgroup>> cg =
        Cgroup::Create(*node_cgroup_, absl::StrCat("job", job_id));
    if (cg.ok()) {
      job->cgroup = *std::move(cg);
      job->oom_kills_at_start = job->cgroup->OomKills();
    } else {
      spdlog::warn("{}: job {}: {} (process groups only)", options_.node_name, job_id,
                   cg.status().message());
    }
  }
  JobShare share;
  share.cpus = launch.cpus();
  share.gpu_indexes.assign(launch.gpu_indexes().begin(), launch.gpu_indexes().end());
  const int node_index = launch.node_index();
  if (node_index >= 0 && node_index < launch.job().mem_allocated_mib_size()) {
    share.memory_bytes = launch.job().mem_allocated_mib(node_index) * 1024 * 1024;
  }
  job->confinement =
      limits_->Confine(job_id, job->cgroup != nullptr ? job->cgroup->path() : "", share);
  JobRecord& record = *job;
  jobs_[job_id] = std::move(job);
  if (PrologDueAtLaunch(launch)) {
    // LAUNCHED (and the batch script) wait for the prolog: OnPrologExit goes on.
    if (absl::Status s = StartProlog(record); !s.ok()) {
      PrologFailed(job_id, std::string(s.message()));
    }
    return std::nullopt;
  }
  return ContinueLaunch(job_id);
}

std::optional<JobRuntime::BatchStart> JobRuntime::ContinueLaunch(uint32_t job_id) {
  JobRecord& job = *jobs_.at(job_id);
  const canopy::v1::LaunchJob& launch = job.launch;
  if (RunsBatchScript(launch)) {
    absl::StatusOr<BatchStart> batch = PrepareBatch(job);
    if (!batch.ok()) {
      LaunchFailed(job_id, batch.status());
      return std::nullopt;
    }
    return *std::move(batch);  // LAUNCHED once it has started (BatchStarted)
  }
  spdlog::info("{}: job {} (run {}) launched", options_.node_name, job_id, launch.job().run_id());
  job.launch_reported = true;
  ReportJob(StatusOf(job_id, launch.job().run_id(), JobStatus::PHASE_LAUNCHED), false);
  return std::nullopt;
}

void JobRuntime::LaunchFailed(uint32_t job_id, const absl::Status& why) {
  auto it = jobs_.find(job_id);
  JobRecord& job = *it->second;
  spdlog::warn("{}: job {} failed to launch: {}", options_.node_name, job_id, why.message());
  JobStatus status = StatusOf(job_id, job.run_id(), JobStatus::PHASE_LAUNCH_FAILED);
  status.set_message(std::string(why.message()));
  // Internal: the spool, a pipe, fork; Unavailable: what the child met that is the node's
  // (spawn.h). The controller drains the node and runs the job elsewhere.
  status.set_node_fault(absl::IsInternal(why) || absl::IsUnavailable(why));
  ReportJob(std::move(status), false);
  if (job.killing) {
    return;  // CheckKill removes the spool file and the record, and reports CLEANED_UP
  }
  if (!job.steps.empty()) {
    // Steps (srun --jobid) started here while the script was starting: they go with the job,
    // and CheckKill removes the record once they are gone. Erasing it under them destroyed
    // parts whose threads were still running.
    BeginKill(job, absl::ZeroDuration());
    timer_.Schedule(absl::Now(), [this, job_id] { CheckKill(job_id); });
    return;
  }
  if (!job.spool_script.empty()) {
    unlink(job.spool_script.c_str());
  }
  jobs_.erase(it);  // nothing of it runs: its cgroup and CPUs go with the record
}

JobRuntime::JobRecord* JobRuntime::FindRun(uint32_t job_id, uint32_t run_id) {
  auto it = jobs_.find(job_id);
  return it == jobs_.end() || it->second->run_id() != run_id ? nullptr : it->second.get();
}

void JobRuntime::OnBatchExit(uint32_t job_id, uint32_t run_id, int wait_status) {
  {
    absl::MutexLock lock(&mu_);
    JobRecord* found = FindRun(job_id, run_id);
    if (found == nullptr) {
      return;
    }
    if (found->batch_starting()) {
      found->batch_early_exit = wait_status;  // BatchStarted reports it, after LAUNCHED
      return;
    }
    if (!BatchExited(*found, wait_status)) {
      return;
    }
  }
  if (options_.scripts.HasEpilog() || options_.scripts.HasProlog()) {
    // The epilog's spawn (or a newer run's prolog, which the clean-up's end starts) waits for
    // its exec: not on the reaper's thread, which every node's exits wait for.
    timer_.Schedule(absl::Now(), [this, job_id] { CheckKill(job_id); });
  } else {
    // As KillJob's first check: at most an unlink and an rmdir when nothing is left (a hop to
    // the timer thread would be a wake-up per job); what is left is polled from the timer.
    CheckKill(job_id);
  }
}

bool JobRuntime::BatchExited(JobRecord& job, int wait_status) {
  const uint32_t job_id = job.launch.job().job_id();
  const uint32_t run_id = job.run_id();
  JobStatus status = StatusOf(job_id, run_id, JobStatus::PHASE_EXITED);
  job.batch_running = false;
  if (WIFEXITED(wait_status)) {
    status.set_exit_code(WEXITSTATUS(wait_status));
  } else if (WIFSIGNALED(wait_status)) {
    status.set_exit_signal(WTERMSIG(wait_status));
  }
  status.set_out_of_memory(job.OutOfMemory());
  status.set_fenced(job.fenced);
  ReadBatchReports(job);
  if (job.batch_node_fault) {
    // The node's plugins failed the script's set-up: slurmctld drains the node for it.
    status.set_node_fault(true);
    status.set_drain_reason("batch job complete failure");
  }
  spdlog::info("{}: job {} (run {}) batch script exited (code {}, signal {}){}", options_.node_name,
               job_id, run_id, status.exit_code(), status.exit_signal(),
               job.batch_node_fault ? ": the node's SPANK plugins failed its set-up" : "");
  // Killed already (a KillJob, a fence, the agent stopping): that kill's chain reports the
  // clean-up. A fault of the node's plugins goes to the controller as it is (drain, requeue).
  if (job.killing || job.batch_node_fault || shut_down_) {
    ReportJob(std::move(status), true);
    return false;
  }
  BeginKill(job, LaunchKillWait(job));
  if (options_.scripts.HasEpilog()) {
    // The epilog runs before the clean-up ends: the controller learns of the end now (the job is
    // COMPLETING while the epilog runs, as in Slurm), and CLEANED_UP follows it.
    ReportJob(std::move(status), true);
  } else {
    job.held_exit = std::move(status);
  }
  return true;
}

void JobRuntime::SendHeldExit(JobRecord& job) {
  // `fenced` as it was at the script's end: a fence since then ends a job that ended already.
  if (std::optional<JobStatus> exit = std::exchange(job.held_exit, std::nullopt)) {
    ReportJob(*std::move(exit), true);
  }
}

void JobRuntime::KillJob(const canopy::v1::KillJob& kill) {
  const uint32_t job_id = kill.job_id();
  {
    absl::MutexLock lock(&mu_);
    auto it = jobs_.find(job_id);
    if (it == jobs_.end()) {
      // Unknown here (never launched, or already cleaned up): nothing to kill. KillJob names
      // no run; the run whose end said it was cleaned up, when that report waits for its ack
      // (the KillJob crossed it, or came with its answer), else 0, which matches whichever run
      // the controller has.
      ReportJob(StatusOf(job_id, CleanedUpRunAwaitingAck(job_id), JobStatus::PHASE_CLEANED_UP),
                true);
      return;
    }
    JobRecord& job = *it->second;
    if (job.next_launch.has_value()) {
      // The kill is meant for the newest run the controller launched, which has not started:
      // it never will, and is reported cleaned up with the run before it.
      spdlog::info("{}: job {}: run {} is killed before it started", options_.node_name, job_id,
                   job.next_launch->job().run_id());
      job.cancelled_run = job.next_launch->job().run_id();
      job.next_launch.reset();
    }
    if (job.killing) {
      // Already being killed; its CheckKill chain reports the end. A shorter KillWait than the
      // one it began with (its own clean-up uses the launch's) applies from now.
      if (kill.has_kill_wait() && !job.sigkill_sent) {
        job.kill_deadline =
            std::min(job.kill_deadline, absl::Now() + rpc::FromProtoDuration(kill.kill_wait()));
      }
      job.kill_asked = true;
      return;
    }
    absl::Duration wait = rpc::FromProtoDuration(kill.kill_wait());
    if (!kill.has_kill_wait()) {
      wait = LaunchKillWait(job);
    }
    spdlog::info("{}: killing job {} (run {}, {}), SIGKILL after {}", options_.node_name, job_id,
                 job.run_id(), kill.reason(), absl::FormatDuration(wait));
    BeginKill(job, wait);
  }
  if (options_.scripts.HasEpilog()) {
    // The epilog's spawn waits for its exec: not on the caller's thread (the stream's reader).
    timer_.Schedule(absl::Now(), [this, job_id] { CheckKill(job_id); });
  } else {
    // Without an epilog the first check costs at most an unlink and an rmdir (the job's
    // processes mostly ended before the kill came), and a hop to the timer thread would be a
    // wake-up per job; a job still running is polled from the timer thread, as before.
    CheckKill(job_id);
  }
}

void JobRuntime::CheckKill(uint32_t job_id) {
  std::unique_ptr<Cgroup> cgroup;
  std::unique_ptr<JobConfinement> confinement;
  std::string spool_script;
  {
    absl::MutexLock lock(&mu_);
    auto it = jobs_.find(job_id);
    if (it == jobs_.end() || !it->second->killing) {
      return;  // not ours (each record being killed has exactly one CheckKill chain)
    }
    JobRecord& job = *it->second;
    if (!Gone(job)) {
      SendHeldExit(job);  // the controller learns of the end now, whatever is left to kill
      if (!job.sigkill_sent && absl::Now() >= job.kill_deadline) {
        spdlog::info("{}: job {} outlived its kill wait: SIGKILL", options_.node_name, job_id);
        SendSigkill(job, options_.helper_exit_grace);
      } else if (job.sigkill_sent) {
        ContinueSigkill(job);
      }
      timer_.Schedule(absl::Now() + kKillPoll, [this, job_id] { CheckKill(job_id); });
      return;
    }
    // Gone: the epilog now, where one runs (OnEpilogExit calls CheckKill again).
    if (StartEpilog(job)) {
      return;
    }
    // Nothing can start in the record any more (it is being killed). It stays in jobs_
    // while its cgroup and spool file are removed, so that a launch of a newer run keeps waiting.
    cgroup = std::move(job.cgroup);
    confinement = std::move(job.confinement);
    spool_script = job.spool_script;
  }
  if (!spool_script.empty()) {
    unlink(spool_script.c_str());
  }
  cgroup.reset();       // removes the job's cgroup
  confinement.reset();  // its CPUs are free again, its v1 directories removed
  absl::MutexLock lock(&mu_);
  auto it = jobs_.find(job_id);
  std::unique_ptr<JobRecord> finished = std::move(it->second);
  jobs_.erase(it);
  spdlog::info("{}: job {} (run {}) cleaned up", options_.node_name, job_id, finished->run_id());
  const bool exit_held = finished->held_exit.has_value();
  if (exit_held) {
    // Everything was gone at the first check after the script's end: one report says both
    // (`fenced` as at the script's end).
    JobStatus exited = *std::exchange(finished->held_exit, std::nullopt);
    exited.set_cleaned_up(true);
    ReportJob(std::move(exited), true);
  }
  if (!exit_held || finished->kill_asked) {
    // A KillJob that came during the clean-up asks for CLEANED_UP: a controller that does not
    // read cleaned_up waits for it.
    JobStatus cleaned = StatusOf(job_id, finished->run_id(), JobStatus::PHASE_CLEANED_UP);
    cleaned.set_fenced(finished->fenced);
    if (finished->epilog_failed) {
      cleaned.set_drain_reason("Epilog error");  // slurmctld drains the node for it
    }
    ReportJob(std::move(cleaned), true);
  }
  if (finished->cancelled_run != 0) {
    JobStatus cancelled = StatusOf(job_id, finished->cancelled_run, JobStatus::PHASE_CLEANED_UP);
    cancelled.set_fenced(finished->fenced);
    ReportJob(std::move(cancelled), true);
  }
  if (finished->next_launch.has_value() && !shut_down_) {
    spdlog::info("{}: job {}: starting run {}", options_.node_name, job_id,
                 finished->next_launch->job().run_id());
    // Its script's spawn waits for the child's exec: not on this thread (the stream's reader,
    // or the timer thread that polls kills).
    StartBatchLater(StartJob(*finished->next_launch, std::move(finished->next_login_env)));
  }
}

uint32_t JobRuntime::CleanedUpRunAwaitingAck(uint32_t job_id) const {
  uint32_t run = 0;
  for (auto it = unacked_.lower_bound({job_id, 0, 0});
       it != unacked_.end() && std::get<0>(it->first) == job_id; ++it) {
    const JobStatus& status = it->second.status;
    if (status.phase() == JobStatus::PHASE_EXITED && status.cleaned_up()) {
      run = std::max(run, status.run_id());
    }
  }
  return run;
}

void JobRuntime::AckStatus(const canopy::v1::JobStatusAck& ack) {
  absl::MutexLock lock(&mu_);
  if (ack.run_id() != 0) {
    unacked_.erase({ack.job_id(), ack.run_id(), static_cast<int>(ack.phase())});
    return;
  }
  // From a controller that does not know runs: the phase of any run.
  for (auto it = unacked_.lower_bound({ack.job_id(), 0, 0});
       it != unacked_.end() && std::get<0>(it->first) == ack.job_id();) {
    if (std::get<2>(it->first) == static_cast<int>(ack.phase())) {
      it = unacked_.erase(it);
    } else {
      ++it;
    }
  }
}

std::vector<canopy::v1::RunningJob> JobRuntime::RunningJobs() const {
  absl::MutexLock lock(&mu_);
  std::vector<canopy::v1::RunningJob> out;
  for (const auto& [id, job] : jobs_) {
    // An old run being killed to make way for a newer one is not "the job" the controller
    // asks about: the newer run has not started (it answers LAUNCHED when it does).
    if (!job->next_launch.has_value()) {
      canopy::v1::RunningJob& r = out.emplace_back();
      r.set_job_id(id);
      r.set_run_id(job->run_id());
      *r.mutable_gpu_indexes() = job->launch.gpu_indexes();
      r.set_cpus(job->launch.cpus());
      r.mutable_ended_steps()->Add(job->ended_steps.begin(), job->ended_steps.end());
    }
  }
  return out;
}

std::vector<uint32_t> JobRuntime::RunningJobIds() const {
  std::vector<uint32_t> ids;
  for (const canopy::v1::RunningJob& r : RunningJobs()) {
    ids.push_back(r.job_id());
  }
  return ids;
}

std::vector<JobStatus> JobRuntime::UnacknowledgedOfRun(uint32_t job_id, uint32_t run_id) const {
  std::vector<JobStatus> out;
  for (auto it = unacked_.lower_bound({job_id, run_id, 0});
       it != unacked_.end() && std::get<0>(it->first) == job_id && std::get<1>(it->first) == run_id;
       ++it) {
    out.push_back(it->second.status);
  }
  return out;
}

std::vector<JobStatus> JobRuntime::UnacknowledgedStatuses() const {
  absl::MutexLock lock(&mu_);
  std::vector<JobStatus> out;
  for (const auto& [key, kept] : unacked_) {
    out.push_back(kept.status);
  }
  return out;
}

std::vector<JobStatus> JobRuntime::StatusesToResend(absl::Duration unanswered_for) {
  const absl::Time now = absl::Now();
  absl::MutexLock lock(&mu_);
  std::vector<JobStatus> out;
  for (auto& [key, kept] : unacked_) {
    // Not a run-0 report (a KillJob for a job the node did not have): the controller cannot
    // tell which run it is about, and late it could pass for a newer run's. It goes again at
    // the next registration, as it always did.
    if (unanswered_for > absl::ZeroDuration() && std::get<1>(key) == 0) {
      continue;
    }
    if (now - kept.sent >= unanswered_for) {
      kept.sent = now;
      out.push_back(kept.status);
    }
  }
  return out;
}

}  // namespace canopy::agent::runtime
