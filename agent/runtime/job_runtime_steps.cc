// JobRuntime's steps (job_runtime.h): srun's tasks on this node, as parts of a job it runs.
#include <fcntl.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "agent/runtime/job_runtime.h"
#include "common/log/absl_format.h"
#include "common/rpc/status_convert.h"
#include "spdlog/spdlog.h"

namespace canopy::agent::runtime {
namespace {

// How long the child appending a notify message may take.
constexpr absl::Duration kNotifyTimeout = absl::Seconds(10);
// How many ended step parts a job keeps for RunningJob.ended_steps.
constexpr size_t kEndedStepsKept = 1024;

}  // namespace

void JobRuntime::LaunchStep(const canopy::v1::LaunchStep& launch) {
  StepPart* part = nullptr;
  {
    absl::MutexLock lock(&mu_);
    if (shut_down_) {
      return;
    }
    auto it = jobs_.find(launch.job_id());
    if (it != jobs_.end() && !it->second->killing &&
        !it->second->steps.contains(launch.step_id())) {
      JobRecord& job = *it->second;
      if (DeferStepForProlog(job, launch)) {
        return;  // started once this node's prolog is done (job_runtime_scripts.cc)
      }
      StepJobContext ctx;
      ctx.node = job.Identity(node_);
      ctx.job_launch = job.launch;
      ctx.credentials = CredentialsFor(job.launch.job());
      ctx.cgroup_procs_paths = job.CgroupProcsFiles();
      ctx.spank_args = job.SpankArgs(options_.spank);
      const uint32_t job_id = launch.job_id();
      const uint32_t step_id = launch.step_id();
      auto owned =
          std::make_unique<StepPart>(launch, std::move(ctx), reaper_,
                                     [this, job_id, step_id](const canopy::v1::StepStatus& status) {
                                       OnStepDone(job_id, step_id, status);
                                     });
      part = owned.get();
      job.steps[step_id] = std::move(owned);
      ++live_steps_;
    }
  }
  if (part == nullptr) {
    FailStepWithoutJob(
        launch, absl::StrCat("job ", launch.job_id(), " is not running on node ",
                             options_.node_name, " (or step ", launch.step_id(), " already is)"));
    return;
  }
  // Outside the lock (Run() starts the part's thread, which attaches to srun and starts the
  // tasks). The part stays in the map (and signalable) until its on_done, which Run() makes
  // possible only now.
  part->Run();
}

void JobRuntime::DestroyStepsLeft() {
  // Parts Shutdown() did not see finish (one still reaching srun): destroyed while what their
  // on_done uses (mu_, jobs_, timer_) still exists; each finds itself gone from its job.
  std::vector<std::unique_ptr<StepPart>> parts;
  {
    absl::MutexLock lock(&mu_);
    for (auto& [id, job] : jobs_) {
      for (auto& [step_id, part] : job->steps) {
        parts.push_back(std::move(part));
      }
      job->steps.clear();
    }
  }
  parts.clear();  // joins their threads
}

void JobRuntime::ReportStepEnd(JobRecord* job, const canopy::v1::StepStatus& status) {
  if (job != nullptr) {
    // Kept for a controller that restarts before it has this report (RunningJob).
    std::deque<canopy::v1::StepStatus>& ended = job->ended_steps;
    ended.push_back(status);
    if (ended.size() > kEndedStepsKept) {
      ended.pop_front();
    }
  }
  canopy::v1::AgentMessage msg;
  *msg.mutable_step_status() = status;
  Send(msg);
}

void JobRuntime::OnStepDone(uint32_t job_id, uint32_t step_id,
                            const canopy::v1::StepStatus& status) {
  std::unique_ptr<StepPart> part;
  {
    absl::MutexLock lock(&mu_);
    if (auto it = jobs_.find(job_id); it != jobs_.end()) {
      if (auto s = it->second->steps.find(step_id); s != it->second->steps.end()) {
        part = std::move(s->second);
        it->second->steps.erase(s);
        // What the tasks left running stays the job's: kills and Gone() keep covering it.
        for (pid_t group : part->TaskGroups()) {
          it->second->step_groups.insert(group);
        }
        SignalStepGroups(*it->second, 0);  // forget the empty ones
      }
      ReportStepEnd(it->second.get(), status);
    } else {
      ReportStepEnd(nullptr, status);
    }
  }
  // This runs on the part's own I/O thread, which its destructor joins: destroy it elsewhere.
  timer_.Schedule(absl::Now(), [this, p = std::move(part)]() mutable {
    p.reset();
    absl::MutexLock lock(&mu_);
    --live_steps_;
  });
}

void JobRuntime::FailStepWithoutJob(const canopy::v1::LaunchStep& launch,
                                    const std::string& message) {
  spdlog::warn("{}: step {}.{} not launched: {}", options_.node_name, launch.job_id(),
               launch.step_id(), message);
  canopy::v1::AgentMessage msg;
  canopy::v1::StepStatus* s = msg.mutable_step_status();
  s->set_job_id(launch.job_id());
  s->set_step_id(launch.step_id());
  s->set_node_index(launch.node_index());
  s->set_exited(true);
  s->set_exit_code(1);
  s->set_message(message);
  Send(msg);
  if (launch.io_address().empty()) {
    return;
  }
  // Tell srun too, so it does not wait for this node; on the timer thread, since connecting may
  // take a moment.
  timer_.Schedule(absl::Now(), [this, launch, message] {
    canopy::v1::StepIoHello hello;
    hello.set_job_id(launch.job_id());
    hello.set_step_id(launch.step_id());
    hello.set_io_token(launch.io_token());
    hello.set_node_index(launch.node_index());
    hello.set_node_name(options_.node_name);
    *hello.mutable_task_ranks() = launch.task_ranks();
    absl::StatusOr<std::unique_ptr<StepIoStream>> io = StepIoStream::Open(
        launch.io_address(), hello, [](int) {}, [] {});
    if (io.ok()) {
      canopy::v1::StepIoMessage failed;
      failed.mutable_launch_failed()->set_message(message);
      (*io)->Send(failed);
      (*io)->Close(absl::Seconds(1));
    }
  });
}

void JobRuntime::KillStep(const canopy::v1::KillStep& kill) {
  const uint32_t job_id = kill.job_id();
  const uint32_t step_id = kill.step_id();
  absl::Duration wait = rpc::FromProtoDuration(kill.kill_wait());
  {
    absl::MutexLock lock(&mu_);
    auto it = jobs_.find(job_id);
    if (it == jobs_.end()) {
      return;
    }
    auto s = it->second->steps.find(step_id);
    if (s == it->second->steps.end()) {
      // Still waiting for this node's prolog: a kill (scancel of the step) means it never
      // starts. It used to start once the prolog was done, though the step was cancelled.
      std::vector<canopy::v1::LaunchStep>& waiting = it->second->steps_after_prolog;
      auto w = std::find_if(waiting.begin(), waiting.end(), [&](const canopy::v1::LaunchStep& l) {
        return l.step_id() == step_id;
      });
      if (w != waiting.end() && kill.signal() == 0) {
        // Reported as a part killed by the kill's signal, so that the controller records the
        // step CANCELLED (as it does for parts that ran), and kept for a controller that
        // restarts before it has the report (RunningJob.ended_steps).
        canopy::v1::StepStatus status;
        status.set_job_id(job_id);
        status.set_step_id(step_id);
        status.set_node_index(w->node_index());
        status.set_exited(true);
        status.set_exit_signal(SIGKILL);
        status.set_message("the step was cancelled before this node's prolog ended");
        waiting.erase(w);
        ReportStepEnd(it->second.get(), status);
      }
      return;
    }
    s->second->Signal(kill.signal() != 0 ? kill.signal() : SIGTERM);
    if (kill.signal() != 0) {
      return;
    }
    if (!kill.has_kill_wait()) {
      wait = it->second->launch.has_kill_wait()
                 ? rpc::FromProtoDuration(it->second->launch.kill_wait())
                 : options_.default_kill_wait;
    }
  }
  timer_.Schedule(absl::Now() + wait, [this, job_id, step_id] {
    absl::MutexLock lock(&mu_);
    if (auto it = jobs_.find(job_id); it != jobs_.end()) {
      if (auto s = it->second->steps.find(step_id); s != it->second->steps.end()) {
        s->second->Signal(SIGKILL);
      }
    }
  });
}

void JobRuntime::NotifyJob(const canopy::v1::NotifyJob& notify) {
  absl::MutexLock lock(&mu_);
  auto it = jobs_.find(notify.job_id());
  if (it == jobs_.end()) {
    return;
  }
  JobRecord& job = *it->second;
  if (notify.step_ids_size() > 0) {
    for (uint32_t step_id : notify.step_ids()) {
      if (auto s = job.steps.find(step_id); s != job.steps.end()) {
        s->second->Notify(notify.message());
      }
    }
    return;
  }
  if (!(job.batch_running || job.batch_starting()) || job.killing) {
    spdlog::info("job {}: notify with no batch script running here: {}", notify.job_id(),
                 notify.message());
    return;
  }
  // A few at most, the latest of a flood.
  constexpr size_t kNoticesKept = 16;
  job.notices_waiting.push_back(notify.message());
  if (job.notices_waiting.size() > kNoticesKept) {
    spdlog::warn("job {}: too many notify messages waiting: dropping \"{}\"", notify.job_id(),
                 job.notices_waiting.front());
    job.notices_waiting.pop_front();
  }
  NextNotice(job);
}

void JobRuntime::NextNotice(JobRecord& job) {
  // A script still starting gets its notices once it runs (BatchStarted calls this again).
  if (job.notice_running || job.notices_waiting.empty() || !job.batch_running || job.killing) {
    return;
  }
  job.notice_running = true;
  // Appended by a child running as the job's user, which opens the file itself (SpawnRequest):
  // the agent never writes into a path the user chose with its own rights. Spawned on a start
  // lane, without mu_: the child enters the user's work directory and opens the user's file
  // before its exec, where a hung mount would hold up the node's later messages too.
  QueueStart([this, job_id = job.launch.job().job_id(), run_id = job.run_id(),
              start_id = job.batch_start_id, message = std::move(job.notices_waiting.front())] {
    StartNotice(job_id, run_id, start_id, message);
  });
  job.notices_waiting.pop_front();
}

JobRuntime::JobRecord* JobRuntime::FindScript(uint32_t job_id, uint32_t run_id, uint64_t start_id) {
  JobRecord* job = FindRun(job_id, run_id);
  return job != nullptr && job->batch_start_id == start_id ? job : nullptr;
}

void JobRuntime::StartNotice(uint32_t job_id, uint32_t run_id, uint64_t start_id,
                             const std::string& message) {
  SpawnRequest req;
  std::vector<os::UniqueFd> procs;
  {
    absl::MutexLock lock(&mu_);
    JobRecord* job = FindScript(job_id, run_id, start_id);
    if (job == nullptr) {
      return;  // its waiting notices went with it
    }
    // Not into a job being killed: the child could join its cgroup just before the cgroup is
    // removed, and outlive the job's clean-up.
    if (!job->batch_running || job->batch_stderr_path.empty() || job->killing || shut_down_) {
      spdlog::info("job {}: notify with no batch script running here: {}", job_id, message);
      job->notice_running = false;
      job->notices_waiting.clear();  // the script will not run again in this run
      return;
    }
    req.argv = {"/bin/sh", "-c", "printf '%s\\n' \"$1\"", "canopy-notify",
                absl::StrCat("slurmstepd-", options_.node_name, ": error: ", message)};
    req.work_dir = job->batch_work_dir;
    req.stdin_path = "/dev/null";
    req.stdout_path = job->batch_stderr_path;
    req.stdout_flags = O_APPEND;
    req.stderr_path = "/dev/null";
    req.stderr_flags = O_APPEND;
    req.credentials = CredentialsFor(job->launch.job());
    // In the job's cgroup, so it goes with the job; and killed if the file blocks it (a FIFO, a
    // hung mount) for longer than a notice is worth.
    procs = job->OpenCgroupProcs();
    req.cgroup_procs_fds = Borrow(procs);
    // Counted: the job's clean-up waits until the child is in its cgroup, where a kill reaches
    // it (without a cgroup nothing would: the clean-up does not wait for a child it cannot kill).
    if (job->cgroup != nullptr) {
      ++job->notices_starting;
    }
  }
  auto exited = std::make_shared<std::atomic<bool>>(false);
  absl::StatusOr<pid_t> pid = Spawn(req, *reaper_, [exited](int) { exited->store(true); });
  {
    absl::MutexLock lock(&mu_);
    if (JobRecord* job = FindScript(job_id, run_id, start_id); job != nullptr) {  // Gone() waited
      if (job->cgroup != nullptr) {
        --job->notices_starting;
      }
      if (pid.ok() && job->killing && !exited->load()) {
        killpg(*pid, SIGKILL);  // the kill's signals may have gone out before it joined
      }
      // The next one once this child has started. Its line is not written yet: two notices'
      // lines can still land in either order, as they could when one thread started them.
      job->notice_running = false;
      NextNotice(*job);
    }
  }
  if (!pid.ok()) {
    spdlog::warn("job {}: cannot append the notify message to {}: {}", job_id, req.stdout_path,
                 pid.status().message());
    return;
  }
  timer_.Schedule(absl::Now() + kNotifyTimeout, [exited, child = *pid] {
    if (!exited->load()) {
      killpg(child, SIGKILL);  // its own session: Spawn made it the group's leader
    }
  });
}

void JobRuntime::AttachStep(const canopy::v1::AttachStep& attach) {
  absl::MutexLock lock(&mu_);
  auto it = jobs_.find(attach.job_id());
  if (it == jobs_.end()) {
    return;
  }
  auto s = it->second->steps.find(attach.step_id());
  if (s == it->second->steps.end()) {
    return;
  }
  // Connecting and sending happen on the attached stream's own thread: nothing here waits for
  // the address the user gave.
  if (absl::Status added = s->second->AddAttached(attach.io_address(), attach.io_token());
      !added.ok()) {
    spdlog::warn("step {}.{}: sattach at {}: {}", attach.job_id(), attach.step_id(),
                 attach.io_address(), added.message());
  }
}

}  // namespace canopy::agent::runtime
