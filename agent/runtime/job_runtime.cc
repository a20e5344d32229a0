#include "agent/runtime/job_runtime.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

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
#include "spdlog/spdlog.h"

namespace canopy::agent::runtime {
namespace {

using canopy::v1::JobStatus;

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
  // Named for `top -H` and perf ("start gpu001" for each of the node's lanes); Linux keeps 15
  // characters.
  timer_.SetThreadName(absl::StrCat("timer ", options_.node_name));
  for (TimerThread& lane : start_lanes_) {
    lane.SetThreadName(absl::StrCat("start ", options_.node_name));
  }
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
  return (cgroup != nullptr && oom_kills_at_start.has_value() &&
          cgroup->OomKills() > *oom_kills_at_start) ||
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
      // As the node's cgroup was set up at the agent's start: memory turned on there by hand
      // later would reach new leaves, whose OOM kills then go unreported until a restart.
      if (limits_->MemoryInJobCgroups()) {
        job->oom_kills_at_start = job->cgroup->OomKills();
      }
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
