// A job's end on this node (job_runtime.h): the batch script's exit, which begins the job's kill
// and clean-up on the batch host itself, KillJob, and CheckKill, which watches a kill until every
// process of the job is gone, runs the epilog and reports the end (EXITED, CLEANED_UP, or the
// one EXITED that says both).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "agent/runtime/job_runtime.h"
#include "common/log/absl_format.h"
#include "common/rpc/status_convert.h"
#include "spdlog/spdlog.h"

namespace canopy::agent::runtime {
namespace {

using canopy::v1::JobStatus;

// How often a kill looks for the job's last process.
constexpr absl::Duration kKillPoll = absl::Milliseconds(20);

}  // namespace

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

}  // namespace canopy::agent::runtime
