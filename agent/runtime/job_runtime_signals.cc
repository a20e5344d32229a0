// How signals and kills reach a job's processes (job_runtime.h): the batch script's process
// group, each step's tasks, the groups finished tasks left behind and the job's cgroup; and the
// kill of every job when the agent stops (Shutdown).
//
// Under SPANK each task runs below the task helper (canopy-spank-task), which must outlive it
// to run task_exit and slurm_spank_exit, as slurmstepd outlives its tasks. The helper forwards
// the signals it can catch; SIGKILL and SIGSTOP go to the tasks' own groups, which the helper
// reports (helper_reports.h). The cgroup, which holds the helpers too, gets SIGKILL only once
// they are gone, or once they outlived their grace.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>

#include "agent/runtime/job_runtime.h"
#include "common/rpc/status_convert.h"
#include "spdlog/spdlog.h"

namespace canopy::agent::runtime {

void JobRuntime::SignalJob(const canopy::v1::SignalJob& signal) {
  absl::MutexLock lock(&mu_);
  auto it = jobs_.find(signal.job_id());
  if (it == jobs_.end()) {
    return;
  }
  JobRecord& job = *it->second;
  // A script still to come: starting, or behind this node's prolog.
  const bool script_to_come =
      job.batch_starting() || (job.prolog == JobRecord::Script::kRunning && !job.launch_reported &&
                               RunsBatchScript(job.launch));
  if (script_to_come && !job.killing) {
    // Sent once the script runs (BatchStarted), as Slurm's batch step gets it once started; a
    // few at most, the latest of a flood. Dropped with the record if the script never starts.
    constexpr size_t kPendingSignalsKept = 8;
    std::vector<int>& pending = job.batch_pending_signals;
    pending.push_back(signal.signal());
    if (pending.size() > kPendingSignalsKept) {
      pending.erase(pending.begin());
    }
  } else {
    SignalBatch(job, signal.signal());
  }
  if (!signal.batch_only()) {
    SignalSteps(job, signal.signal());
  }
}

void JobRuntime::SignalSteps(JobRecord& job, int signal) {
  for (auto& [id, step] : job.steps) {
    step->Signal(signal);
  }
  SignalStepGroups(job, signal);
}

void JobRuntime::ReadBatchReports(JobRecord& job) {
  while (job.batch_reports.valid()) {
    char buffer[512];
    const ssize_t n = read(job.batch_reports.get(), buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0 && errno == EAGAIN) {
      return;
    }
    if (n <= 0) {
      job.batch_reports.reset();  // the helper is gone and everything it wrote is read
      return;
    }
    for (const HelperReport& report : job.batch_reader.Feed({buffer, static_cast<size_t>(n)})) {
      if (report.kind == HelperReport::Kind::kPid) {
        job.batch_task_group = report.value;
      } else if (report.kind == HelperReport::Kind::kNodeFault) {
        job.batch_node_fault = true;
      }
    }
  }
}

void JobRuntime::SignalBatch(JobRecord& job, int signal) {
  if (job.batch_pid <= 0) {
    return;
  }
  if (!job.batch_supervised) {
    killpg(job.batch_pid, signal);
    return;
  }
  ReadBatchReports(job);
  const bool helper_running = job.batch_running;
  if (helper_running && !SignalReachesTasksDirectly(signal)) {
    killpg(job.batch_pid, signal);  // the helper forwards it to the script
    return;
  }
  if (job.batch_task_group > 0) {
    // Once the helper is gone, an empty group is not signalled again (its id may be reused).
    if (killpg(job.batch_task_group, signal) != 0 && errno == ESRCH && !helper_running) {
      job.batch_task_group = 0;
    }
  } else if (helper_running) {
    killpg(job.batch_pid, signal);  // no script yet, so no exit hooks to wait for
  }
}

void JobRuntime::SignalStepGroups(JobRecord& job, int signal) {
  for (auto g = job.step_groups.begin(); g != job.step_groups.end();) {
    if (killpg(*g, signal) != 0 && errno == ESRCH) {
      g = job.step_groups.erase(g);  // empty: its id may be reused, never signal it again
    } else {
      ++g;
    }
  }
}

bool JobRuntime::HelpersRunning(JobRecord& job) {
  if (job.batch_supervised && job.batch_running) {
    return true;
  }
  for (auto& [id, step] : job.steps) {
    if (step->SupervisorRunning()) {
      return true;
    }
  }
  return false;
}

void JobRuntime::SignalEverything(JobRecord& job, int signal) {
  SignalBatch(job, signal);
  SignalSteps(job, signal);
  // The cgroup holds the helpers too: it is signalled once they are gone.
  if (job.cgroup != nullptr && !HelpersRunning(job)) {
    job.cgroup->Signal(signal);
  }
}

void JobRuntime::SendSigkill(JobRecord& job, absl::Duration helper_grace) {
  job.sigkill_sent = true;
  SignalEverything(job, SIGKILL);
  if (HelpersRunning(job)) {
    job.sigkill_spared_helpers = true;
    job.helper_kill_at = absl::Now() + helper_grace;
  }
}

void JobRuntime::ContinueSigkill(JobRecord& job) {
  if (!job.sigkill_spared_helpers) {
    // Something outlived the SIGKILL in the job's cgroup: a process forked while it went out
    // (without cgroup.kill, before Linux 5.14, the cgroup is killed one pid at a time, which
    // races fork) or moved in since. Killed again at every poll until the job is gone; otherwise
    // the clean-up waited for it for good and the job never ended on this node. Without a cgroup
    // there is nothing to do again: a process group's kill reaches a child forked meanwhile (the
    // fork fails), and a group id killed again after its group emptied could be another's by now.
    if (job.cgroup != nullptr) {
      job.cgroup->Signal(SIGKILL);
    }
    return;
  }
  if (!HelpersRunning(job)) {
    job.sigkill_spared_helpers = false;
    SignalEverything(job, SIGKILL);  // what the helpers spared: the cgroup, late groups
    return;
  }
  if (absl::Now() < job.helper_kill_at) {
    return;
  }
  spdlog::warn(
      "{}: job {}: the SPANK task helper still runs its exit hooks {} after SIGKILL: "
      "killing it",
      options_.node_name, job.launch.job().job_id(),
      absl::FormatDuration(options_.helper_exit_grace));
  job.helper_kill_at = absl::InfiniteFuture();
  if (job.batch_supervised && job.batch_running) {
    killpg(job.batch_pid, SIGKILL);
  }
  for (auto& [id, step] : job.steps) {
    step->KillSupervisor();
  }
  if (job.cgroup != nullptr) {
    job.cgroup->Signal(SIGKILL);
  }
}

bool JobRuntime::Gone(JobRecord& job) {
  // A start still queued is dropped once the job is killed (FindStart no longer finds
  // it once the record goes); one spawning is waited for.
  if (job.batch_start == JobRecord::BatchStartPhase::kSpawning ||
      (job.batch_starting() && !job.killing)) {
    return false;
  }
  if (job.batch_running || !job.steps.empty() || job.script_pid > 0 || job.notices_starting > 0) {
    return false;
  }
  if (job.cgroup != nullptr) {
    // Every process of the job is in its cgroup, which its user cannot leave: none there means
    // none alive. What its process groups still hold is zombies, which the reaper's orphan sweep
    // reaps, and which a spawn hanging elsewhere in the agent holds off (the sweep waits for
    // spawns in progress): the clean-up does not wait for them.
    return !job.cgroup->Populated();
  }
  // What step tasks left behind in their process groups (a zombie counts until reaped).
  SignalStepGroups(job, 0);
  if (!job.step_groups.empty()) {
    return false;
  }
  // What the batch script left behind in its group (under SPANK, the script's own group).
  if (job.batch_supervised) {
    SignalBatch(job, 0);  // reads the helper's reports first
    if (job.batch_task_group > 0) {
      return false;
    }
  }
  // What the script left behind in its process group (a zombie counts until reaped: the
  // ChildReaper, as subreaper, reaps orphans within a fraction of a second).
  return job.batch_pid <= 0 || killpg(job.batch_pid, 0) != 0;
}

absl::Duration JobRuntime::LaunchKillWait(const JobRecord& job) const {
  return job.launch.has_kill_wait() ? rpc::FromProtoDuration(job.launch.kill_wait())
                                    : options_.default_kill_wait;
}

void JobRuntime::BeginKill(JobRecord& job, absl::Duration wait) {
  job.killing = true;
  job.kill_deadline = absl::Now() + wait;
  SignalEverything(job, SIGTERM);
  if (wait <= absl::ZeroDuration()) {
    SendSigkill(job, options_.helper_exit_grace);
  }
}

void JobRuntime::Shutdown(absl::Duration timeout) {
  {
    absl::MutexLock lock(&mu_);
    shut_down_ = true;
    for (auto& [id, job] : jobs_) {
      if (!job->killing) {
        spdlog::info("{}: agent stopping: killing job {}", options_.node_name, id);
        const uint32_t job_id = id;
        timer_.Schedule(absl::Now(), [this, job_id] { CheckKill(job_id); });
      }
      job->killing = true;
      job->kill_deadline = absl::Now();
      SendSigkill(*job, timeout / 2);  // helpers' exit hooks get half of the wait
      if (job->script_pid > 0) {
        killpg(job->script_pid, SIGKILL);  // a prolog or epilog still running
      }
    }
  }
  // CheckKill forgets each job once its processes are gone; finished steps are destroyed on
  // the timer thread.
  absl::MutexLock lock(&mu_);
  auto done = [this]()
                  ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return jobs_.empty() && live_steps_ == 0; };
  if (!mu_.AwaitWithTimeout(absl::Condition(&done), timeout)) {
    spdlog::error("{}: {} job(s) still have processes after {}", options_.node_name, jobs_.size(),
                  absl::FormatDuration(timeout));
  }
}

}  // namespace canopy::agent::runtime
