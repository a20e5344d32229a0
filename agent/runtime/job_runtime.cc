#include "agent/runtime/job_runtime.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "agent/runtime/spawn.h"
#include "agent/runtime/step_io_stream.h"
#include "common/log/absl_format.h"
#include "common/os/unique_fd.h"
#include "common/rpc/status_convert.h"
#include "common/slurm/output_pattern.h"
#include "spdlog/spdlog.h"

namespace canopy::agent::runtime {
namespace {

using canopy::v1::JobStatus;

// How often a kill looks for the job's last process.
constexpr absl::Duration kKillPoll = absl::Milliseconds(20);

std::string Errno(absl::string_view what, const std::string& path) {
  return absl::StrCat(what, " ", path, ": ", std::strerror(errno));
}

// Relative paths are relative to the work dir.
std::string InDir(const std::string& dir, const std::string& path) {
  return path.empty() || path.front() == '/' ? path : absl::StrCat(dir, "/", path);
}

JobStatus Status(uint32_t job_id, JobStatus::Phase phase) {
  JobStatus s;
  s.set_job_id(job_id);
  s.set_phase(phase);
  return s;
}

}  // namespace

JobRuntime::JobRuntime(RuntimeOptions options, ChildReaper* reaper, Reporter report)
    : options_(std::move(options)),
      node_{options_.node_name, options_.amd_gpus},
      reaper_(reaper),
      report_(std::move(report)) {
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
}

JobRuntime::~JobRuntime() {
  Shutdown();
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
    absl::MutexLock lock(&mu_);
    unacked_[{status.job_id(), static_cast<int>(status.phase())}] = status;
  }
  canopy::v1::AgentMessage msg;
  *msg.mutable_job_status() = std::move(status);
  report_(msg);
}

void JobRuntime::LaunchJob(const canopy::v1::LaunchJob& launch) {
  const uint32_t job_id = launch.job().job_id();
  absl::MutexLock report_lock(&report_mu_);
  JobStatus status = Status(job_id, JobStatus::PHASE_LAUNCHED);
  {
    absl::MutexLock lock(&mu_);
    if (shut_down_) {
      return;
    }
    if (jobs_.contains(job_id)) {
      // A resent LaunchJob (after a reconnect): the job is already here.
      spdlog::info("{}: job {} is already launched here", options_.node_name, job_id);
    } else {
      auto job = std::make_unique<JobRecord>();
      job->launch = launch;
      if (node_cgroup_ != nullptr) {
        absl::StatusOr<std::unique_ptr<Cgroup>> cg =
            Cgroup::Create(node_cgroup_->path(), absl::StrCat("job", job_id));
        if (cg.ok()) {
          job->cgroup = *std::move(cg);
          job->oom_kills_at_start = job->cgroup->OomKills();
        } else {
          spdlog::warn("{}: job {}: {} (process groups only)", options_.node_name, job_id,
                       cg.status().message());
        }
      }
      absl::Status started = absl::OkStatus();
      if (launch.is_batch_host() && !launch.job().spec().script().empty()) {
        started = StartBatch(*job);
      }
      if (started.ok()) {
        spdlog::info("{}: job {} launched{}", options_.node_name, job_id,
                     job->batch_pid > 0 ? absl::StrCat(" (batch pid ", job->batch_pid, ")") : "");
        jobs_[job_id] = std::move(job);
      } else {
        spdlog::warn("{}: job {} failed to launch: {}", options_.node_name, job_id,
                     started.message());
        if (!job->spool_dir.empty()) {
          std::error_code ignored;
          std::filesystem::remove_all(job->spool_dir, ignored);
        }
        status.set_phase(JobStatus::PHASE_LAUNCH_FAILED);
        status.set_message(std::string(started.message()));
      }
    }
  }
  ReportJob(std::move(status), false);
}

absl::Status JobRuntime::StartBatch(JobRecord& job) {
  const canopy::v1::Job& j = job.launch.job();
  const canopy::v1::JobSpec& spec = j.spec();
  const std::optional<Credentials> creds = CredentialsFor(j);

  std::string work_dir = spec.work_dir();
  if (work_dir.empty()) {
    work_dir = spec.submit_dir().empty() ? "/" : spec.submit_dir();
  }
  struct stat st;
  if (stat(work_dir.c_str(), &st) != 0) {
    return absl::FailedPreconditionError(Errno("chdir to", work_dir));
  }
  if (!S_ISDIR(st.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat("chdir to ", work_dir, ": ", std::strerror(ENOTDIR)));
  }

  // The script, private to the job's user.
  job.spool_dir = absl::StrCat(options_.spool_dir, "/job", j.job_id());
  std::error_code ec;
  std::filesystem::create_directories(options_.spool_dir, ec);
  if (mkdir(job.spool_dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return absl::InternalError(Errno("mkdir", job.spool_dir));
  }
  const std::string script = absl::StrCat(job.spool_dir, "/script");
  {
    os::UniqueFd fd(open(script.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0700));
    if (!fd.valid()) {
      return absl::InternalError(Errno("open", script));
    }
    const std::string& text = spec.script();
    for (size_t done = 0; done < text.size();) {
      const ssize_t n = write(fd.get(), text.data() + done, text.size() - done);
      if (n < 0) {
        return absl::InternalError(Errno("write", script));
      }
      done += static_cast<size_t>(n);
    }
    if (creds.has_value()) {
      (void)!chown(job.spool_dir.c_str(), creds->uid, creds->gid);
      (void)!fchown(fd.get(), creds->uid, creds->gid);
    }
  }

  // stdio, opened here (as the agent) relative to the work dir.
  const std::string in_path = InDir(work_dir, spec.stdin_path().empty() ? "/dev/null"
                                                                         : spec.stdin_path());
  os::UniqueFd in(open(in_path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!in.valid()) {
    return absl::FailedPreconditionError(Errno("open input", in_path));
  }
  slurm::OutputPatternContext ctx;
  ctx.job_id = j.job_id();
  if (j.array_job_id() != 0) {
    ctx.array_job_id = j.array_job_id();
    ctx.array_task_id = j.array_task_id();
  }
  ctx.job_name = spec.name();
  ctx.user_name = j.user_name();
  ctx.node_name = options_.node_name;
  ctx.node_index = static_cast<uint32_t>(job.launch.node_index());
  const int mode = O_WRONLY | O_CREAT | O_CLOEXEC | (spec.open_append() ? O_APPEND : O_TRUNC);
  auto open_output = [&](const std::string& pattern) -> absl::StatusOr<os::UniqueFd> {
    const std::string path = InDir(work_dir, slurm::ExpandOutputPattern(pattern, ctx));
    os::UniqueFd fd(open(path.c_str(), mode, 0644));
    if (!fd.valid()) {
      return absl::FailedPreconditionError(Errno("open output", path));
    }
    if (creds.has_value()) {
      (void)!fchown(fd.get(), creds->uid, creds->gid);
    }
    return fd;
  };
  absl::StatusOr<os::UniqueFd> out = open_output(spec.stdout_path());  // "" = slurm-%j.out
  if (!out.ok()) {
    return out.status();
  }
  os::UniqueFd err;
  if (!spec.stderr_path().empty()) {
    absl::StatusOr<os::UniqueFd> opened = open_output(spec.stderr_path());
    if (!opened.ok()) {
      return opened.status();
    }
    err = *std::move(opened);
  }

  SpawnRequest req;
  // No "#!" line: run it with /bin/sh, as slurmd would have the shell do.
  if (!absl::StartsWith(spec.script(), "#!")) {
    req.argv.push_back("/bin/sh");
  }
  req.argv.push_back(script);
  req.argv.insert(req.argv.end(), spec.argv().begin(), spec.argv().end());
  req.env = EnvironmentStrings(BuildJobEnvironment(job.launch, node_));
  req.work_dir = work_dir;
  req.stdin_fd = in.get();
  req.stdout_fd = out->get();
  req.stderr_fd = err.valid() ? err.get() : out->get();
  req.credentials = creds;
  os::UniqueFd procs;
  if (job.cgroup != nullptr) {
    absl::StatusOr<os::UniqueFd> opened = job.cgroup->OpenProcs();
    if (opened.ok()) {
      procs = *std::move(opened);
    }
  }
  req.cgroup_procs_fd = procs.get();
  const uint32_t job_id = j.job_id();
  absl::StatusOr<pid_t> pid =
      Spawn(req, *reaper_, [this, job_id](int status) { OnBatchExit(job_id, status); });
  if (!pid.ok()) {
    return pid.status();
  }
  job.batch_pid = *pid;
  job.batch_running = true;
  return absl::OkStatus();
}

void JobRuntime::OnBatchExit(uint32_t job_id, int wait_status) {
  absl::MutexLock report_lock(&report_mu_);
  JobStatus status = Status(job_id, JobStatus::PHASE_EXITED);
  {
    absl::MutexLock lock(&mu_);
    auto it = jobs_.find(job_id);
    if (it == jobs_.end()) {
      return;
    }
    JobRecord& job = *it->second;
    job.batch_running = false;
    if (WIFEXITED(wait_status)) {
      status.set_exit_code(WEXITSTATUS(wait_status));
    } else if (WIFSIGNALED(wait_status)) {
      status.set_exit_signal(WTERMSIG(wait_status));
    }
    status.set_out_of_memory(job.cgroup != nullptr &&
                             job.cgroup->OomKills() > job.oom_kills_at_start);
  }
  spdlog::info("{}: job {} batch script exited (code {}, signal {})", options_.node_name, job_id,
               status.exit_code(), status.exit_signal());
  ReportJob(std::move(status), true);
}

void JobRuntime::SignalJob(const canopy::v1::SignalJob& signal) {
  absl::MutexLock lock(&mu_);
  auto it = jobs_.find(signal.job_id());
  if (it == jobs_.end()) {
    return;
  }
  JobRecord& job = *it->second;
  if (job.batch_pid > 0) {
    killpg(job.batch_pid, signal.signal());
  }
  if (!signal.batch_only()) {
    for (auto& [id, step] : job.steps) {
      step->Signal(signal.signal());
    }
  }
}

void JobRuntime::SignalEverything(JobRecord& job, int signal) {
  if (job.batch_pid > 0) {
    killpg(job.batch_pid, signal);
  }
  for (auto& [id, step] : job.steps) {
    step->Signal(signal);
  }
  if (job.cgroup != nullptr) {
    job.cgroup->Signal(signal);
  }
}

bool JobRuntime::Gone(const JobRecord& job) const {
  if (job.batch_running || !job.steps.empty()) {
    return false;
  }
  if (job.cgroup != nullptr && job.cgroup->Populated()) {
    return false;
  }
  // What the script left behind in its process group (a zombie counts until reaped: the
  // ChildReaper, as subreaper, reaps orphans within a fraction of a second).
  return job.batch_pid <= 0 || killpg(job.batch_pid, 0) != 0;
}

void JobRuntime::KillJob(const canopy::v1::KillJob& kill) {
  const uint32_t job_id = kill.job_id();
  {
    absl::MutexLock lock(&mu_);
    // A job unknown here (never launched, or already cleaned up) has nothing to kill:
    // CheckKill reports CLEANED_UP at once.
    if (auto it = jobs_.find(job_id); it != jobs_.end()) {
      JobRecord& job = *it->second;
      if (job.killing) {
        return;  // already being killed; its CheckKill chain reports the end
      }
      absl::Duration wait = rpc::FromProtoDuration(kill.kill_wait());
      if (!kill.has_kill_wait()) {
        wait = job.launch.has_kill_wait() ? rpc::FromProtoDuration(job.launch.kill_wait())
                                          : options_.default_kill_wait;
      }
      spdlog::info("{}: killing job {} ({}), SIGKILL after {}", options_.node_name, job_id,
                   kill.reason(), absl::FormatDuration(wait));
      job.killing = true;
      job.kill_deadline = absl::Now() + wait;
      SignalEverything(job, SIGTERM);
      if (wait <= absl::ZeroDuration()) {
        job.sigkill_sent = true;
        SignalEverything(job, SIGKILL);
      }
    }
  }
  timer_.Schedule(absl::Now(), [this, job_id] { CheckKill(job_id); });
}

void JobRuntime::CheckKill(uint32_t job_id) {
  absl::MutexLock report_lock(&report_mu_);
  std::unique_ptr<JobRecord> finished;
  {
    absl::MutexLock lock(&mu_);
    if (auto it = jobs_.find(job_id); it != jobs_.end()) {
      JobRecord& job = *it->second;
      if (!Gone(job)) {
        if (!job.sigkill_sent && absl::Now() >= job.kill_deadline) {
          spdlog::info("{}: job {} outlived its kill wait: SIGKILL", options_.node_name, job_id);
          job.sigkill_sent = true;
          SignalEverything(job, SIGKILL);
        }
        timer_.Schedule(absl::Now() + kKillPoll, [this, job_id] { CheckKill(job_id); });
        return;
      }
      finished = std::move(it->second);
      jobs_.erase(it);
    }
  }
  if (finished != nullptr && !finished->spool_dir.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(finished->spool_dir, ignored);
  }
  finished.reset();  // removes the job's cgroup
  spdlog::info("{}: job {} cleaned up", options_.node_name, job_id);
  ReportJob(Status(job_id, JobStatus::PHASE_CLEANED_UP), true);
}

void JobRuntime::LaunchStep(const canopy::v1::LaunchStep& launch) {
  StepPart* part = nullptr;
  {
    absl::MutexLock lock(&mu_);
    if (shut_down_) {
      return;
    }
    auto it = jobs_.find(launch.job_id());
    if (it != jobs_.end() && !it->second->killing && !it->second->steps.contains(launch.step_id())) {
      JobRecord& job = *it->second;
      StepJobContext ctx;
      ctx.node = node_;
      ctx.job_launch = job.launch;
      ctx.credentials = CredentialsFor(job.launch.job());
      if (job.cgroup != nullptr) {
        ctx.cgroup_procs_path = absl::StrCat(job.cgroup->path(), "/cgroup.procs");
      }
      const uint32_t job_id = launch.job_id();
      const uint32_t step_id = launch.step_id();
      auto owned = std::make_unique<StepPart>(
          launch, std::move(ctx), reaper_,
          [this, job_id, step_id](const canopy::v1::StepStatus& status) {
            OnStepDone(job_id, step_id, status);
          });
      part = owned.get();
      job.steps[step_id] = std::move(owned);
      ++live_steps_;
    }
  }
  if (part == nullptr) {
    FailStepWithoutJob(launch, absl::StrCat("job ", launch.job_id(), " is not running on node ",
                                            options_.node_name, " (or step ", launch.step_id(),
                                            " already is)"));
    return;
  }
  // Outside the lock: attaching to srun may take a while. The part stays in the map (and
  // signalable) until its on_done, which Run() makes possible only now.
  part->Run();
}

void JobRuntime::OnStepDone(uint32_t job_id, uint32_t step_id,
                            const canopy::v1::StepStatus& status) {
  std::unique_ptr<StepPart> part;
  {
    absl::MutexLock report_lock(&report_mu_);
    {
      absl::MutexLock lock(&mu_);
      if (auto it = jobs_.find(job_id); it != jobs_.end()) {
        if (auto s = it->second->steps.find(step_id); s != it->second->steps.end()) {
          part = std::move(s->second);
          it->second->steps.erase(s);
        }
      }
    }
    canopy::v1::AgentMessage msg;
    *msg.mutable_step_status() = status;
    report_(msg);
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
  {
    absl::MutexLock report_lock(&report_mu_);
    report_(msg);
  }
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
    absl::StatusOr<std::unique_ptr<StepIoStream>> io =
        StepIoStream::Open(launch.io_address(), hello, [](int) {}, [] {});
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

void JobRuntime::AckStatus(const canopy::v1::JobStatusAck& ack) {
  absl::MutexLock lock(&mu_);
  unacked_.erase({ack.job_id(), static_cast<int>(ack.phase())});
}

std::vector<uint32_t> JobRuntime::RunningJobIds() const {
  absl::MutexLock lock(&mu_);
  std::vector<uint32_t> ids;
  for (const auto& [id, job] : jobs_) {
    ids.push_back(id);
  }
  return ids;
}

std::vector<JobStatus> JobRuntime::UnacknowledgedStatuses() const {
  absl::MutexLock lock(&mu_);
  std::vector<JobStatus> out;
  for (const auto& [key, status] : unacked_) {
    out.push_back(status);
  }
  return out;
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
      job->sigkill_sent = true;
      job->kill_deadline = absl::Now();
      SignalEverything(*job, SIGKILL);
    }
  }
  // CheckKill forgets each job once its processes are gone; finished steps are destroyed on
  // the timer thread.
  absl::MutexLock lock(&mu_);
  auto done = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return jobs_.empty() && live_steps_ == 0;
  };
  if (!mu_.AwaitWithTimeout(absl::Condition(&done), timeout)) {
    spdlog::error("{}: {} job(s) still have processes after {}", options_.node_name,
                  jobs_.size(), absl::FormatDuration(timeout));
  }
}

}  // namespace canopy::agent::runtime
