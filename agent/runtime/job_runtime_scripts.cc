// JobRuntime's Prolog and Epilog (job_runtime.h, job_scripts.h), when slurmd runs them:
//   - the prolog before the job's first process on the node: at launch on every node with
//     PrologFlags=Alloc, else at launch on the batch host and at the first step elsewhere. The
//     launch is confirmed (LAUNCHED), the batch script started and waiting steps launched only
//     once it succeeds. A failure is the node's: LAUNCH_FAILED with Slurm's drain reason
//     "Prolog error", so the controller drains the node and requeues the job held;
//   - the epilog once every process of the job is gone on the node (after KillJob, or after a
//     failed prolog), before CLEANED_UP; a failure is reported with it ("Epilog error": the
//     node is drained).
#include <signal.h>
#include <sys/wait.h>

#include "absl/strings/str_cat.h"
#include "agent/runtime/job_runtime.h"
#include "common/log/absl_format.h"
#include "spdlog/spdlog.h"

namespace canopy::agent::runtime {

using canopy::v1::JobStatus;

bool JobRuntime::PrologDueAtLaunch(const canopy::v1::LaunchJob& launch) const {
  return options_.scripts.HasProlog() && (options_.scripts.prolog_alloc || RunsBatchScript(launch));
}

absl::StatusOr<pid_t> JobRuntime::SpawnJobScript(JobRecord& job, JobScript which) {
  const uint32_t job_id = job.launch.job().job_id();
  const uint32_t run_id = job.run_id();
  absl::StatusOr<pid_t> pid =
      StartJobScript(which, job.launch, options_.node_name, options_.scripts, options_.spank,
                     log_fd_.valid() ? log_fd_.get() : STDERR_FILENO, *reaper_,
                     [this, which, job_id, run_id](int status) {
                       which == JobScript::kProlog ? OnPrologExit(job_id, run_id, status)
                                                   : OnEpilogExit(job_id, run_id, status);
                     });
  if (pid.ok() && options_.scripts.timeout != absl::InfiniteDuration()) {
    const pid_t script = *pid;
    timer_.Schedule(absl::Now() + options_.scripts.timeout, [this, which, job_id, run_id, script] {
      TimeOutJobScript(job_id, run_id, which, script);
    });
  }
  return pid;
}

void JobRuntime::TimeOutJobScript(uint32_t job_id, uint32_t run_id, JobScript which, pid_t pid) {
  absl::MutexLock lock(&mu_);
  JobRecord* job = FindRun(job_id, run_id);
  if (job == nullptr || job->script_pid != pid) {
    return;  // it ended in time
  }
  // As slurmd: the script is killed and fails (its exit callback reports it).
  spdlog::error("{}: [job {}] {} still running after PrologEpilogTimeout ({}): killing it",
                options_.node_name, job_id, which == JobScript::kProlog ? "prolog" : "epilog",
                absl::FormatDuration(options_.scripts.timeout));
  killpg(pid, SIGKILL);
}

absl::Status JobRuntime::StartProlog(JobRecord& job) {
  const uint32_t job_id = job.launch.job().job_id();
  const uint32_t run_id = job.run_id();
  absl::StatusOr<pid_t> pid = SpawnJobScript(job, JobScript::kProlog);
  if (!pid.ok()) {
    return absl::UnavailableError(absl::StrCat("prolog failed to start: ", pid.status().message()));
  }
  spdlog::info("{}: job {} (run {}): prolog started (pid {})", options_.node_name, job_id, run_id,
               *pid);
  job.prolog = JobRecord::Script::kRunning;
  job.script_pid = *pid;
  return absl::OkStatus();
}

bool JobRuntime::DeferStepForProlog(JobRecord& job, const canopy::v1::LaunchStep& launch) {
  if (!options_.scripts.HasProlog() || job.prolog == JobRecord::Script::kDone) {
    return false;
  }
  job.steps_after_prolog.push_back(launch);
  if (job.prolog == JobRecord::Script::kNotRun) {
    if (absl::Status s = StartProlog(job); !s.ok()) {
      PrologFailed(launch.job_id(), std::string(s.message()));
    }
  }
  return true;
}

void JobRuntime::PrologFailed(uint32_t job_id, const std::string& why) {
  auto it = jobs_.find(job_id);
  if (it == jobs_.end()) {
    return;
  }
  JobRecord& job = *it->second;
  spdlog::error("{}: [job {}] {}", options_.node_name, job_id, why);
  for (const canopy::v1::LaunchStep& step : job.steps_after_prolog) {
    FailStepWithoutJob(step, absl::StrCat("the prolog failed on node ", options_.node_name));
  }
  JobStatus status;
  status.set_job_id(job_id);
  status.set_run_id(job.run_id());
  status.set_phase(JobStatus::PHASE_LAUNCH_FAILED);
  status.set_message(why);
  status.set_node_fault(true);
  status.set_drain_reason("Prolog error");
  ReportJob(std::move(status), false);
  if (!options_.scripts.HasEpilog()) {
    jobs_.erase(it);  // nothing of it started here: its cgroup and CPUs go with the record
    return;
  }
  // As slurmd: the epilog runs even after a failed prolog (CheckKill runs it, then reports the
  // run cleaned up, which the controller's KillJob waits for).
  job.killing = true;
  job.kill_deadline = absl::Now();
  timer_.Schedule(absl::Now(), [this, job_id] { CheckKill(job_id); });
}

void JobRuntime::OnPrologExit(uint32_t job_id, uint32_t run_id, int wait_status) {
  std::vector<canopy::v1::LaunchStep> steps;
  {
    absl::MutexLock lock(&mu_);
    JobRecord* found = FindRun(job_id, run_id);
    if (found == nullptr) {
      return;
    }
    JobRecord& job = *found;
    job.script_pid = 0;
    job.prolog = JobRecord::Script::kDone;
    const bool ok = WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0;
    if (job.killing) {
      // Cancelled meanwhile: CheckKill finishes it; the steps that waited never start.
      for (const canopy::v1::LaunchStep& step : job.steps_after_prolog) {
        FailStepWithoutJob(step, absl::StrCat("job ", job_id, " was killed during its prolog"));
      }
      job.steps_after_prolog.clear();
      return;
    }
    if (!ok) {
      PrologFailed(job_id, DescribeScriptFailure(JobScript::kProlog, wait_status));
      return;
    }
    spdlog::info("{}: job {} (run {}): prolog done", options_.node_name, job_id, run_id);
    steps.swap(job.steps_after_prolog);
    if (!job.launch_reported) {
      // Not on the reaper's thread, which every node's exits wait for: the script's spawn waits
      // for its exec (on a start lane).
      StartBatchLater(ContinueLaunch(job_id));
    }
  }
  // The steps' launches, quick now that each part starts its tasks on its own thread, go to
  // timer_, in the order they came.
  for (canopy::v1::LaunchStep& step : steps) {
    timer_.Schedule(absl::Now(), [this, step = std::move(step)] { LaunchStep(step); });
  }
}

bool JobRuntime::StartEpilog(JobRecord& job) {
  if (!options_.scripts.HasEpilog() || job.epilog != JobRecord::Script::kNotRun || shut_down_) {
    return false;
  }
  const uint32_t job_id = job.launch.job().job_id();
  job.epilog = JobRecord::Script::kRunning;
  absl::StatusOr<pid_t> pid = SpawnJobScript(job, JobScript::kEpilog);
  if (!pid.ok()) {
    spdlog::error("{}: [job {}] epilog failed to start: {}", options_.node_name, job_id,
                  pid.status().message());
    job.epilog = JobRecord::Script::kDone;
    job.epilog_failed = true;
    return false;
  }
  job.script_pid = *pid;
  return true;
}

void JobRuntime::OnEpilogExit(uint32_t job_id, uint32_t run_id, int wait_status) {
  {
    absl::MutexLock lock(&mu_);
    JobRecord* found = FindRun(job_id, run_id);
    if (found == nullptr) {
      return;
    }
    JobRecord& job = *found;
    job.script_pid = 0;
    job.epilog = JobRecord::Script::kDone;
    if (!WIFEXITED(wait_status) || WEXITSTATUS(wait_status) != 0) {
      job.epilog_failed = true;
      spdlog::error("{}: [job {}] {}", options_.node_name, job_id,
                    DescribeScriptFailure(JobScript::kEpilog, wait_status));
    }
  }
  timer_.Schedule(absl::Now(), [this, job_id] { CheckKill(job_id); });
}

}  // namespace canopy::agent::runtime
