#include "agent/runtime/step_part.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>

#include "absl/strings/str_cat.h"
#include "agent/runtime/spank_wrapper.h"
#include "common/log/absl_format.h"
#include "common/os/thread_name.h"
#include "common/slurm/output_pattern.h"
#include "spdlog/spdlog.h"

namespace canopy::agent::runtime {
namespace {

constexpr size_t kChunkBytes = 64 * 1024;
// A task's exit is reported once its pipes are drained, or this long after it exited when
// something it left behind keeps a pipe open.
constexpr absl::Duration kDrainGrace = absl::Seconds(1);

std::string WorkDir(const canopy::v1::LaunchStep& step, const canopy::v1::LaunchJob& job) {
  if (!step.work_dir().empty()) {
    return step.work_dir();
  }
  return job.job().spec().work_dir().empty() ? "/" : job.job().spec().work_dir();
}

}  // namespace

StepPart::StepPart(canopy::v1::LaunchStep launch, StepJobContext job, ChildReaper* reaper,
                   DoneCallback on_done)
    : launch_(std::move(launch)),
      job_(std::move(job)),
      reaper_(reaper),
      on_done_(std::move(on_done)),
      wake_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
  absl::MutexLock lock(&mu_);
  for (int i = 0; i < launch_.task_ranks_size(); ++i) {
    Task t;
    t.rank = launch_.task_ranks(i);
    t.local_id = i;
    tasks_.push_back(std::move(t));
  }
}

StepPart::~StepPart() {
  {
    // Only tasks still running: what finished tasks left behind is the job's (see TaskGroups).
    absl::MutexLock lock(&mu_);
    pending_signal_ = SIGKILL;  // and those the I/O thread still starts
    for (const Task& t : tasks_) {
      if (t.group > 0 && !t.exited) {
        killpg(t.group, SIGKILL);
      }
    }
    if (supervised_ && !supervisor_exited_) {
      killpg(supervisor_pid_, SIGKILL);
    }
  }
  if (io_thread_.joinable()) {
    io_thread_.join();
  }
  io_.reset();
}

canopy::v1::StepIoHello StepPart::Hello(const std::string& token) const {
  canopy::v1::StepIoHello hello;
  hello.set_job_id(launch_.job_id());
  hello.set_step_id(launch_.step_id());
  hello.set_io_token(token);
  hello.set_node_index(launch_.node_index());
  hello.set_node_name(job_.node.node_name);
  *hello.mutable_task_ranks() = launch_.task_ranks();
  return hello;
}

void StepPart::Notify(const std::string& message) {
  absl::MutexLock lock(&mu_);
  notices_.push_back(message);
  Wake();  // inside the lock, as in OnExit
}

absl::Status StepPart::AddAttached(const std::string& address, const std::string& token) {
  absl::MutexLock lock(&attach_mu_);
  if (finished_) {
    return absl::FailedPreconditionError("the step's part on this node has finished");
  }
  std::erase_if(attached_, [](const std::unique_ptr<AttachedStream>& a) { return a->dropped(); });
  if (attached_.size() >= kMaxAttached) {
    return absl::FailedPreconditionError(
        absl::StrCat("the step's part already has ", kMaxAttached, " sattach streams"));
  }
  // Under the lock: nothing new is broadcast before the replay is queued, so order holds.
  auto stream = std::make_unique<AttachedStream>(address, Hello(token));
  for (const canopy::v1::StepIoMessage& m : replay_) {
    stream->Push(m);
  }
  for (const canopy::v1::StepIoMessage& m : exits_sent_) {
    stream->Push(m);
  }
  attached_.push_back(std::move(stream));
  return absl::OkStatus();
}

void StepPart::Broadcast(const canopy::v1::StepIoMessage& message) {
  if (io_ != nullptr) {
    io_->Send(message);
  }
  absl::MutexLock lock(&attach_mu_);
  std::erase_if(attached_,
                [&](const std::unique_ptr<AttachedStream>& a) { return !a->Push(message); });
  if (message.has_exited()) {
    exits_sent_.push_back(message);
  } else if (message.has_output()) {
    replay_.push_back(message);
    replay_bytes_ += message.output().data().size();
    while (replay_bytes_ > kReplayBytes && !replay_.empty()) {
      replay_bytes_ -= replay_.front().output().data().size();
      replay_.pop_front();
    }
  }
}

void StepPart::Run() {
  // Everything on the I/O thread: connecting to srun may take a while, and a task hangs before
  // its exec for as long as a mount hangs under its work directory or output file. The caller
  // (the node's inbox, or the timer thread after a prolog) has the node's later messages (a
  // KillStep, a KillJob) and kills to go on with; a signal meanwhile reaches each task as it
  // starts (pending_signal_), and a SIGKILL keeps those not started from starting. The I/O thread
  // may end the step, and on_done may have this part destroyed, before std::thread's constructor
  // has even returned here: it waits for io_thread_ to be assigned (under mu_), so the destructor
  // always finds it joinable.
  absl::MutexLock lock(&mu_);
  io_thread_ = std::thread([this] {
    os::NameThisThread(absl::StrCat("step ", launch_.job_id(), ".", launch_.step_id()));
    { absl::MutexLock started(&mu_); }
    Start();
    IoLoop();
  });
}

void StepPart::Start() {
  if (!launch_.io_address().empty()) {
    absl::StatusOr<std::unique_ptr<StepIoStream>> io = StepIoStream::Open(
        launch_.io_address(), Hello(launch_.io_token()), [this](int signal) { Signal(signal); },
        [this] {
          spdlog::warn("step {}.{}: srun's I/O stream broke; killing the node's tasks",
                       launch_.job_id(), launch_.step_id());
          {
            // srun may end the call right after the last exit: that is no breakage.
            absl::MutexLock lock(&mu_);
            srun_gone_ = std::any_of(tasks_.begin(), tasks_.end(),
                                     [](const Task& t) { return t.pid > 0 && !t.exited; });
          }
          Signal(SIGKILL);
        });
    if (!io.ok()) {
      failure_ = std::string(io.status().message());
    } else {
      io_ = *std::move(io);
    }
  }
  if (failure_.empty() && KilledBeforeStart()) {
    spdlog::info("step {}.{}: killed before its tasks started", launch_.job_id(),
                 launch_.step_id());
  } else if (failure_.empty()) {
    if (absl::Status started = StartTasks(); !started.ok()) {
      failure_ = std::string(started.message());
      Signal(SIGKILL);  // the ranks that did start
      if (io_ != nullptr) {
        canopy::v1::StepIoMessage failed;
        failed.mutable_launch_failed()->set_message(failure_);
        io_->Send(failed);
      }
    }
  }
  if (!failure_.empty()) {
    spdlog::warn("step {}.{}: launch failed: {}", launch_.job_id(), launch_.step_id(), failure_);
  }
}

bool StepPart::KilledBeforeStart(size_t from) {
  absl::MutexLock lock(&mu_);
  if (pending_signal_ != SIGKILL) {
    return false;
  }
  // None starts (nor truncates its output file); each rank ends killed, as it would have a
  // moment later, so that srun hears of every rank.
  for (size_t i = from; i < tasks_.size(); ++i) {
    Task& t = tasks_[i];
    t.pid = -1;
    t.exited = true;
    t.wait_status = SIGKILL;  // as waitpid reports a death by SIGKILL
    t.exited_at = absl::Now();
  }
  return true;
}

absl::Status StepPart::StartTasks() {
  const std::string work_dir = WorkDir(launch_, job_.job_launch);
  if (launch_.argv_size() == 0) {
    return absl::InvalidArgumentError("no command to run");
  }
  os::UniqueFd devnull(open("/dev/null", O_RDONLY | O_CLOEXEC));
  const std::vector<os::UniqueFd> cgroup_procs = OpenForWriting(job_.cgroup_procs_paths);
  const canopy::v1::Job& job = job_.job_launch.job();
  // Output files are opened by each task's child, as the job's user (see SpawnRequest). Ranks
  // may share a file: the first of them truncates it (unless appending), and a shared file is
  // opened in append mode by all so that no rank overwrites another's output.
  auto expand = [&](const std::string& pattern, int rank) {
    slurm::OutputPatternContext ctx;
    ctx.job_id = job.job_id();
    if (job.array_job_id() != 0) {
      ctx.array_job_id = job.array_job_id();
      ctx.array_task_id = job.array_task_id();
    }
    ctx.job_name = job.spec().name();
    ctx.user_name = job.user_name();
    ctx.node_name = job_.node.node_name;
    ctx.node_index = static_cast<uint32_t>(launch_.node_index());
    ctx.task_id = static_cast<uint32_t>(rank);
    ctx.step_id = launch_.step_id();
    std::string path = slurm::ExpandOutputPattern(pattern, ctx);
    if (path.empty() || path.front() != '/') {
      path = absl::StrCat(work_dir, "/", path);
    }
    return path;
  };
  std::vector<std::string> out_paths;
  std::vector<std::string> err_paths;
  std::map<std::string, int> users;  // expanded path -> how many stdio streams name it
  for (int i = 0; i < launch_.task_ranks_size(); ++i) {
    const int rank = launch_.task_ranks(i);
    out_paths.push_back(launch_.stdout_path().empty() ? "" : expand(launch_.stdout_path(), rank));
    err_paths.push_back(launch_.stderr_path().empty() ? "" : expand(launch_.stderr_path(), rank));
    if (!out_paths.back().empty()) {
      ++users[out_paths.back()];
    }
    if (!err_paths.back().empty() && err_paths.back() != out_paths.back()) {
      ++users[err_paths.back()];
    }
  }
  std::map<std::string, bool> opened;  // expanded path -> a task already opened it
  auto flags_for = [&](const std::string& path) {
    int flags = 0;
    if (job.spec().open_append() || users[path] > 1) {
      flags |= O_APPEND;
    }
    if (!job.spec().open_append() && !opened[path]) {
      flags |= O_TRUNC;
    }
    opened[path] = true;
    return flags;
  };

  std::vector<PreparedTask> prepared(static_cast<size_t>(launch_.task_ranks_size()));
  for (size_t i = 0; i < prepared.size(); ++i) {
    const int rank = launch_.task_ranks(static_cast<int>(i));
    const Environment env =
        BuildStepEnvironment(job_.job_launch, launch_, job_.node, rank, static_cast<int>(i));
    auto path_it = env.find("PATH");
    absl::StatusOr<std::string> program =
        ResolveProgram(launch_.argv(0), path_it == env.end() ? "" : path_it->second, work_dir);
    if (!program.ok()) {
      return program.status();
    }
    SpawnRequest& req = prepared[i].req;
    req.argv.assign(launch_.argv().begin(), launch_.argv().end());
    req.argv[0] = *program;
    req.env = EnvironmentStrings(env);
    req.umask = TakeUmask(req.env);
    req.pid_variable = slurm::kTaskPidVariable;
    req.work_dir = work_dir;
    req.stdin_fd = devnull.get();
    req.credentials = job_.credentials;
    req.cgroup_procs_fds = Borrow(cgroup_procs);
    req.wrapper = SpankTaskArgs(
        job_.spank_args, launch_.job_id(), launch_.step_id(),
        static_cast<uint32_t>(launch_.step_num_nodes()),
        static_cast<uint32_t>(launch_.node_index()), static_cast<uint32_t>(launch_.ntasks()),
        {launch_.task_ranks().begin(), launch_.task_ranks().end()}, static_cast<int>(i));
    os::UniqueFd& out_write = prepared[i].out_write;
    os::UniqueFd& err_write = prepared[i].err_write;
    os::UniqueFd& out_read = prepared[i].out_read;
    os::UniqueFd& err_read = prepared[i].err_read;
    int fds[2];
    if (!out_paths[i].empty()) {
      req.stdout_path = out_paths[i];
      req.stdout_flags = flags_for(out_paths[i]);
    } else {
      if (pipe2(fds, O_CLOEXEC) != 0) {
        return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
      }
      out_read.reset(fds[0]);
      out_write.reset(fds[1]);
      req.stdout_fd = out_write.get();
    }
    if (!err_paths[i].empty()) {
      req.stderr_path = err_paths[i];
      if (err_paths[i] != out_paths[i]) {
        req.stderr_flags = flags_for(err_paths[i]);
      }
    } else if (!out_paths[i].empty()) {
      req.stderr_path = out_paths[i];  // srun --output alone takes stderr too
    } else {
      if (pipe2(fds, O_CLOEXEC) != 0) {
        return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
      }
      err_read.reset(fds[0]);
      err_write.reset(fds[1]);
      req.stderr_fd = err_write.get();
    }
  }
  if (!job_.spank_args.empty()) {
    return StartSupervised(prepared);
  }
  for (size_t i = 0; i < prepared.size(); ++i) {
    if (KilledBeforeStart(i)) {
      return absl::OkStatus();  // the ranks from i on never start
    }
    absl::StatusOr<pid_t> pid =
        Spawn(prepared[i].req, *reaper_, [this, i](int status) { OnExit(i, status); });
    if (!pid.ok()) {
      return pid.status();
    }
    absl::MutexLock lock(&mu_);
    Task& t = tasks_[i];
    t.pid = *pid;
    t.group = *pid;
    t.out = std::move(prepared[i].out_read);
    t.err = std::move(prepared[i].err_read);
    if (pending_signal_ != 0) {
      killpg(t.pid, pending_signal_);
    }
  }
  return absl::OkStatus();
}

void StepPart::OnExit(size_t index, int wait_status) {
  // Wake inside the lock: once the last task is marked exited, the I/O thread may end the step
  // and have this part destroyed, and the destructor takes mu_ first. Waking after the unlock
  // could write to a closed eventfd whose number another file has by then.
  absl::MutexLock lock(&mu_);
  Task& t = tasks_[index];
  t.exited = true;
  t.wait_status = wait_status;
  t.exited_at = absl::Now();
  Wake();
}

void StepPart::Wake() {
  const uint64_t one = 1;
  (void)!write(wake_.get(), &one, sizeof(one));
}

void StepPart::Signal(int signal) {
  absl::MutexLock lock(&mu_);
  if (pending_signal_ != SIGKILL) {
    pending_signal_ = signal;  // a SIGKILL stays: no later signal lets a late task live
  }
  const bool supervisor_running = supervised_ && !supervisor_exited_;
  if (supervisor_running && !SignalReachesTasksDirectly(signal)) {
    killpg(supervisor_pid_, signal);  // it forwards the signal to its tasks
    return;
  }
  bool unreported = false;
  for (Task& t : tasks_) {
    if (t.pid <= 0 || t.group_gone) {
      continue;
    }
    if (t.group <= 0) {
      unreported = unreported || !t.exited;
      continue;
    }
    // An exited task's group still holds what it left running in the background; once empty,
    // it is not signalled again (its id may be reused).
    if (killpg(t.group, signal) != 0 && errno == ESRCH && t.exited) {
      t.group_gone = true;
    }
  }
  // Tasks being forked have no exit hooks to run yet: the helper itself goes (their groups,
  // once read, get pending_signal_ too).
  if (supervisor_running && unreported) {
    killpg(supervisor_pid_, signal);
  }
}

bool StepPart::SupervisorRunning() {
  absl::MutexLock lock(&mu_);
  return supervised_ && !supervisor_exited_;
}

void StepPart::KillSupervisor() {
  absl::MutexLock lock(&mu_);
  if (supervised_ && !supervisor_exited_) {
    killpg(supervisor_pid_, SIGKILL);
  }
}

std::vector<pid_t> StepPart::TaskGroups() {
  absl::MutexLock lock(&mu_);
  std::vector<pid_t> groups;
  for (const Task& t : tasks_) {
    if (t.group > 0 && !t.group_gone &&
        std::find(groups.begin(), groups.end(), t.group) == groups.end()) {
      groups.push_back(t.group);
    }
  }
  return groups;
}

void StepPart::IoLoop() {
  std::vector<char> buffer(kChunkBytes);
  while (true) {
    // Pipe fds are only read and closed on this thread; mu_ guards the Task records.
    std::vector<pollfd> fds;
    std::vector<std::pair<size_t, bool>> owners;  // task index, is stderr
    {
      absl::MutexLock lock(&mu_);
      fds.push_back(pollfd{wake_.get(), POLLIN, 0});
      owners.emplace_back(0, false);
      if (exits_.valid()) {
        fds.push_back(pollfd{exits_.get(), POLLIN, 0});
        owners.emplace_back(SIZE_MAX, false);
      }
      for (size_t i = 0; i < tasks_.size(); ++i) {
        if (tasks_[i].out.valid()) {
          fds.push_back(pollfd{tasks_[i].out.get(), POLLIN, 0});
          owners.emplace_back(i, false);
        }
        if (tasks_[i].err.valid()) {
          fds.push_back(pollfd{tasks_[i].err.get(), POLLIN, 0});
          owners.emplace_back(i, true);
        }
      }
    }
    if (poll(fds.data(), fds.size(), 100) < 0 && errno != EINTR) {
      spdlog::error("step {}.{}: poll: {}", launch_.job_id(), launch_.step_id(),
                    std::strerror(errno));
    }
    if (fds[0].revents != 0) {
      uint64_t count;
      (void)!read(wake_.get(), &count, sizeof(count));
    }
    std::vector<std::string> notices;
    {
      absl::MutexLock lock(&mu_);
      notices.swap(notices_);
    }
    for (std::string& text : notices) {
      if (io_ != nullptr) {
        canopy::v1::StepIoMessage notice;
        notice.mutable_notice()->set_message(std::move(text));
        io_->Send(notice);
      }
    }
    for (size_t k = 1; k < fds.size(); ++k) {
      if (fds[k].revents == 0) {
        continue;
      }
      if (owners[k].first == SIZE_MAX) {
        ReadSupervisorExits();
        continue;
      }
      const ssize_t n = read(fds[k].fd, buffer.data(), buffer.size());
      if (n < 0 && errno == EINTR) {
        continue;
      }
      const auto [index, is_err] = owners[k];
      int rank;
      {
        absl::MutexLock lock(&mu_);
        rank = tasks_[index].rank;
        if (n <= 0) {
          (is_err ? tasks_[index].err : tasks_[index].out).reset();
        }
      }
      if (n > 0) {
        canopy::v1::StepIoMessage msg;
        canopy::v1::TaskOutput* out = msg.mutable_output();
        out->set_rank(rank);
        out->set_stream(is_err ? canopy::v1::TaskOutput::STREAM_STDERR
                               : canopy::v1::TaskOutput::STREAM_STDOUT);
        out->set_data(buffer.data(), static_cast<size_t>(n));
        Broadcast(msg);
      }
    }
    std::vector<canopy::v1::StepIoMessage> exits;
    bool all_done = true;
    {
      absl::MutexLock lock(&mu_);
      EndTasksWithSupervisor();
      const absl::Time now = absl::Now();
      for (Task& t : tasks_) {
        if (t.reported || t.pid == 0) {
          continue;
        }
        const bool drained = !t.out.valid() && !t.err.valid();
        if (t.exited && (drained || now - t.exited_at > kDrainGrace)) {
          t.out.reset();
          t.err.reset();
          t.reported = true;
          canopy::v1::StepIoMessage msg;
          canopy::v1::TaskExited* e = msg.mutable_exited();
          e->set_rank(t.rank);
          e->set_exit_code(WIFEXITED(t.wait_status) ? WEXITSTATUS(t.wait_status) : 0);
          e->set_exit_signal(WIFSIGNALED(t.wait_status) ? WTERMSIG(t.wait_status) : 0);
          exits.push_back(std::move(msg));
        } else {
          all_done = false;
        }
      }
      // A supervisor still runs its tasks' exit hooks (task_exit, slurm_spank_exit): the step
      // ends with it, and nothing may destroy this part while its exit callback is pending.
      if (supervised_ && (!supervisor_exited_ || !exits_eof_)) {
        all_done = false;
      }
    }
    // A failed launch is reported as StepLaunchFailed, not as exits of the ranks that started.
    if (failure_.empty()) {
      for (const canopy::v1::StepIoMessage& m : exits) {
        Broadcast(m);
      }
    }
    if (all_done) {
      break;
    }
  }
  Finish();
}

void StepPart::Finish() {
  canopy::v1::StepStatus status;
  status.set_job_id(launch_.job_id());
  status.set_step_id(launch_.step_id());
  status.set_node_index(launch_.node_index());
  status.set_exited(true);
  int exit_code = 0;
  int exit_signal = 0;
  {
    absl::MutexLock lock(&mu_);
    for (const Task& t : tasks_) {
      if (t.pid == 0) {
        continue;
      }
      if (WIFEXITED(t.wait_status)) {
        exit_code = std::max(exit_code, WEXITSTATUS(t.wait_status));
      } else if (WIFSIGNALED(t.wait_status) && exit_signal == 0) {
        exit_signal = WTERMSIG(t.wait_status);
      }
    }
    if (srun_gone_) {
      status.set_message("srun's I/O stream broke: tasks killed");
    }
  }
  if (!failure_.empty()) {
    exit_code = std::max(exit_code, 1);
    status.set_message(failure_);
  }
  status.set_exit_code(exit_code);
  status.set_exit_signal(exit_signal);
  if (io_ != nullptr) {
    io_->Close(absl::Seconds(2));
  }
  std::vector<std::unique_ptr<AttachedStream>> attached;
  {
    absl::MutexLock lock(&attach_mu_);
    finished_ = true;
    attached.swap(attached_);
  }
  attached.clear();  // each sends what it still has queued, then ends its call
  on_done_(status);
}

}  // namespace canopy::agent::runtime
