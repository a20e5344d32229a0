// JobRuntime's batch scripts (job_runtime.h): written to a spool file made fresh for the run
// (PrepareBatch, under mu_) and started as the job's user, in the job's cgroups (StartBatch,
// without mu_: the child enters the user's work directory and opens the user's files before its
// exec, where a hung mount would hold it).
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "agent/runtime/job_runtime.h"
#include "agent/runtime/spawn.h"
#include "agent/runtime/spawn_report.h"
#include "common/os/unique_fd.h"
#include "common/slurm/output_pattern.h"
#include "spdlog/spdlog.h"

namespace canopy::agent::runtime {
namespace {

std::string Errno(absl::string_view what, const std::string& path) {
  return absl::StrCat(what, " ", path, ": ", std::strerror(errno));
}

// Relative paths are relative to the work dir.
std::string InDir(const std::string& dir, const std::string& path) {
  return path.empty() || path.front() == '/' ? path : absl::StrCat(dir, "/", path);
}

// Creates `dir` if missing, and checks that it is the agent's alone: a directory another user owns
// or may write in lets that user swap a script between its write and its exec, to run as the
// job's user (a non-root agent's default spool is in /tmp, where anyone can make it first).
// Internal otherwise, which drains the node, as a spool the agent cannot write does.
absl::Status SpoolIsTheAgents(const std::string& dir) {
  struct stat st;
  if (stat(dir.c_str(), &st) != 0) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (stat(dir.c_str(), &st) != 0) {
      return absl::InternalError(Errno("cannot create the spool directory", dir));
    }
  }
  if (!S_ISDIR(st.st_mode)) {
    return absl::InternalError(absl::StrCat("spool ", dir, " is not a directory"));
  }
  if (st.st_uid != geteuid()) {
    return absl::InternalError(absl::StrCat("spool ", dir, " is owned by uid ", st.st_uid,
                                            ", not by the agent's (uid ", geteuid(),
                                            "): refusing to write batch scripts there"));
  }
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
    return absl::InternalError(
        absl::StrFormat("spool %s may be written by its group or others (mode %04o): chmod go-w it",
                        dir, st.st_mode & 07777));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<JobRuntime::BatchStart> JobRuntime::PrepareBatch(JobRecord& job) {
  const canopy::v1::Job& j = job.launch.job();
  const canopy::v1::JobSpec& spec = j.spec();
  const std::optional<Credentials> creds = CredentialsFor(j);

  // The work dir is entered (and so checked) by the child, as the user.
  std::string work_dir = spec.work_dir();
  if (work_dir.empty()) {
    work_dir = spec.submit_dir().empty() ? "/" : spec.submit_dir();
  }

  // The script, private to the job's user, in a file made fresh for this run in the agent's own
  // spool directory, which the user cannot write: nothing the user's job did (a symlink planted
  // under a name the agent will use) can redirect the agent's write, since the name is new and
  // created exclusively (mkostemp: O_CREAT | O_EXCL), and the removal at the end unlinks only
  // that file. It is handed over by descriptor (fchown), never by path. One file, not a
  // directory with the script in it: a directory's mkdir and rmdir were a tenth of the agent's
  // CPU at a thousand trivial jobs a second (docs/performance.md).
  if (absl::Status spool = SpoolIsTheAgents(options_.spool_dir); !spool.ok()) {
    return spool;
  }
  std::string script = absl::StrCat(options_.spool_dir, "/job", j.job_id(), ".XXXXXX");
  {
    os::UniqueFd fd(mkostemp(script.data(), O_CLOEXEC));
    if (!fd.valid()) {
      return absl::InternalError(Errno("mkostemp", script));
    }
    job.spool_script = script;
    if (fchmod(fd.get(), 0700) != 0) {
      return absl::InternalError(Errno("fchmod", script));
    }
    const std::string& text = spec.script();
    for (size_t done = 0; done < text.size();) {
      const ssize_t n = write(fd.get(), text.data() + done, text.size() - done);
      if (n < 0) {
        return absl::InternalError(Errno("write", script));
      }
      done += static_cast<size_t>(n);
    }
    if (creds.has_value() && fchown(fd.get(), creds->uid, creds->gid) != 0) {
      return absl::InternalError(Errno("fchown", script));
    }
  }

  // stdio: paths relative to the work dir, opened by the child as the user (never by the
  // agent: an --output of /etc/shadow must not truncate it, a FIFO --input must not block us).
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
  const int output_flags = spec.open_append() ? O_APPEND : O_TRUNC;

  BatchStart start;
  start.job_id = j.job_id();
  start.run_id = j.run_id();
  start.start_id = ++last_start_id_;
  SpawnRequest& req = start.request;
  // No "#!" line: run it with /bin/sh, as slurmd would have the shell do.
  if (!absl::StartsWith(spec.script(), "#!")) {
    req.argv.push_back("/bin/sh");
  }
  req.argv.push_back(script);
  req.argv.insert(req.argv.end(), spec.argv().begin(), spec.argv().end());
  req.env = EnvironmentStrings(BuildJobEnvironment(
      job.launch, job.Identity(node_), job.login_env.has_value() ? &*job.login_env : nullptr));
  req.umask = TakeUmask(req.env);
  req.pid_variable = slurm::kTaskPidVariable;
  req.work_dir = work_dir;
  req.stdin_path = InDir(work_dir, spec.stdin_path().empty() ? "/dev/null" : spec.stdin_path());
  // "" = slurm-%j.out
  req.stdout_path = InDir(work_dir, slurm::ExpandOutputPattern(spec.stdout_path(), ctx));
  req.stdout_flags = output_flags;
  req.stderr_path = spec.stderr_path().empty()
                        ? req.stdout_path
                        : InDir(work_dir, slurm::ExpandOutputPattern(spec.stderr_path(), ctx));
  req.stderr_flags = output_flags;
  req.credentials = creds;
  start.cgroup_procs = job.OpenCgroupProcs();
  req.cgroup_procs_fds = Borrow(start.cgroup_procs);
  // Slurm's batch step: one task, on one node.
  req.wrapper =
      SpankTaskArgs(job.SpankArgs(options_.spank), j.job_id(), kBatchScriptStepId, 1, 0, 1, {0}, 0);
  // The helper reports the script's process group here (job_runtime_signals.cc).
  if (!req.wrapper.empty()) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
      return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
    }
    start.reports_read.reset(fds[0]);
    start.reports_write.reset(fds[1]);
    fcntl(fds[0], F_SETFL, O_NONBLOCK);  // read when signalling, never waited on
    req.wrapper.push_back(absl::StrCat("--exits-fd=", kWrapperFirstExtraFd));
    req.wrapper_fds = {fds[1]};
  }
  job.batch_start = JobRecord::BatchStartPhase::kQueued;
  job.batch_start_id = start.start_id;
  return start;
}

void JobRuntime::StartBatch(BatchStart start) {
  const uint32_t job_id = start.job_id;
  const uint32_t run_id = start.run_id;
  const absl::StatusOr<pid_t> pid =
      Spawn(start.request, *reaper_,
            [this, job_id, run_id](int status) { OnBatchExit(job_id, run_id, status); });
  absl::MutexLock lock(&mu_);
  BatchStarted(start, pid);
}

JobRuntime::JobRecord* JobRuntime::FindStart(const BatchStart& start) {
  JobRecord* job = FindRun(start.job_id, start.run_id);
  return job != nullptr && job->batch_starting() && job->batch_start_id == start.start_id ? job
                                                                                          : nullptr;
}

void JobRuntime::BatchStarted(BatchStart& start, const absl::StatusOr<pid_t>& pid) {
  JobRecord* found = FindStart(start);
  if (found == nullptr) {
    // Cannot happen while it spawns (Gone() waits for it); a script nobody would watch is not
    // left running.
    if (pid.ok()) {
      killpg(*pid, SIGKILL);
    }
    return;
  }
  JobRecord& job = *found;
  job.batch_start = JobRecord::BatchStartPhase::kNone;
  if (!pid.ok()) {
    LaunchFailed(start.job_id, pid.status());
    return;
  }
  const SpawnRequest& req = start.request;
  job.batch_pid = *pid;
  job.batch_running = true;
  job.batch_supervised = start.reports_read.valid();
  job.batch_reports = std::move(start.reports_read);
  job.batch_stderr_path = req.stderr_path;
  job.batch_work_dir = req.work_dir;
  job.launch_reported = true;
  spdlog::info("{}: job {} (run {}) launched (batch pid {})", options_.node_name, start.job_id,
               start.run_id, *pid);
  // Queued under mu_: LAUNCHED goes before the EXITED of a script that ends at once.
  ReportJob(StatusOf(start.job_id, start.run_id, canopy::v1::JobStatus::PHASE_LAUNCHED), false);
  bool cleaning_up = false;  // the script's end began the job's kill just now
  if (std::optional<int> exited = std::exchange(job.batch_early_exit, std::nullopt)) {
    // Before the signals below: its group is reaped. Its clean-up's first check runs on the
    // timer thread (mu_ is held here).
    cleaning_up = BatchExited(job, *exited);
    if (cleaning_up) {
      const uint32_t job_id = start.job_id;
      timer_.Schedule(absl::Now(), [this, job_id] { CheckKill(job_id); });
    }
  }
  // What SignalJob asked for while it started (a preemption's grace signal, `scancel -s`).
  for (int signal : std::exchange(job.batch_pending_signals, {})) {
    if (job.batch_running && !job.killing) {
      SignalBatch(job, signal);
    }
  }
  NextNotice(job);  // what scontrol notify sent while it started
  if (job.killing && !cleaning_up) {
    // Killed while it started: what the kill sent so far now reaches the script too (a kill
    // the script's end began has just signalled everything).
    if (job.sigkill_sent) {
      SendSigkill(job, options_.helper_exit_grace);
    } else {
      SignalEverything(job, SIGTERM);
    }
  }
}

void JobRuntime::StartBatchLater(std::optional<BatchStart> start) {
  if (!start.has_value()) {
    return;
  }
  QueueStart([this, start = *std::move(start)]() mutable {
    {
      absl::MutexLock lock(&mu_);
      JobRecord* job = FindStart(start);
      if (job == nullptr) {
        return;  // killed while it waited, and cleaned up (Gone() does not wait for it)
      }
      if (job->killing || shut_down_) {
        // Killed (or fenced, or the agent stopping) while its start was queued: it
        // never starts. CheckKill, polling, finds the record gone now that it is not starting.
        spdlog::info("{}: job {} (run {}) killed before its batch script started",
                     options_.node_name, start.job_id, start.run_id);
        job->batch_start = JobRecord::BatchStartPhase::kNone;
        return;
      }
      job->batch_start = JobRecord::BatchStartPhase::kSpawning;  // from here on, a kill waits for
                                                                 // the spawn (Gone())
    }
    StartBatch(std::move(start));
  });
}

void JobRuntime::QueueStart(absl::AnyInvocable<void()> task) {
  start_queue_.push_back(std::move(task));
  for (int lane = 0; lane < kStartLanes; ++lane) {
    if (!start_lane_taking_[lane]) {
      start_lane_taking_[lane] = true;
      start_lanes_[lane].Schedule(absl::Now(), [this, lane] { DrainStarts(lane); });
      return;
    }
  }
  // Every lane is busy: the first to finish its task takes this one.
}

void JobRuntime::DrainStarts(int lane) {
  for (;;) {
    absl::AnyInvocable<void()> task;
    {
      absl::MutexLock lock(&mu_);
      if (start_queue_.empty()) {
        start_lane_taking_[lane] = false;
        return;
      }
      task = std::move(start_queue_.front());
      start_queue_.pop_front();
    }
    task();
  }
}

}  // namespace canopy::agent::runtime
