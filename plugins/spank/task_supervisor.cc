#include "plugins/spank/task_supervisor.h"

#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/os/unique_fd.h"
#include "common/slurm/job_environment.h"
#include "plugins/spank/spank_host.h"
#include "plugins/spank/task_helper_util.h"
#include "plugins/spank/task_scripts.h"

namespace canopy::spank {
namespace {

using agent::runtime::kWrapperReportFd;
using agent::runtime::SpawnStage;

// One task of the node's part of the step.
struct TaskPlan {
  int local_id = 0;
  std::vector<std::string> env;
  int out = STDOUT_FILENO;  // where its stdout and stderr go, as open in this process
  int err = STDERR_FILENO;
  pid_t pid = 0;
  int ready = -1;    // read end: the task ran task_init_privileged and became the user
  int release = -1;  // write end: closed once task_post_fork ran for it
  bool done = false;
  int status = 0;
};

void Error(const std::string& message) { Log(LogLevel::kError, message); }

void Remove(std::vector<std::string>& env, const std::string& name) {
  const std::string prefix = name + "=";
  std::erase_if(env, [&](const std::string& e) { return absl::StartsWith(e, prefix); });
}

// The tasks with their environment and stdio. Task 0 has the environment the agent passed and
// this process's stdio; the others' files are opened here, as the user, and reported like Spawn's.
std::vector<TaskPlan> PlanTasks(const SpankTaskArgs& args) {
  const std::vector<std::string>& env0 = helper::TaskEnvironment();
  std::vector<TaskPlan> plans(1);
  plans[0].local_id = args.local_id;
  plans[0].env = env0;
  if (!args.all_tasks) {
    return plans;
  }
  helper::AsUser as_user(args);
  if (as_user.failed() != static_cast<SpawnStage>(0)) {
    helper::ReportAndExit(as_user.failed(), as_user.error());
  }
  auto open = [](const SpankTaskArgs::TaskStream& stream, SpawnStage stage) {
    if (stream.fd >= 0) {
      fcntl(stream.fd, F_SETFD, FD_CLOEXEC);  // each task gets only its own, on 1 and 2
      return stream.fd;
    }
    const int fd =
        ::open(stream.path.c_str(),
               O_WRONLY | O_CREAT | O_CLOEXEC | (stream.append ? O_APPEND : O_TRUNC), 0644);
    if (fd < 0) {
      helper::ReportAndExit(stage, errno);
    }
    return fd;
  };
  plans[0].local_id = 0;
  for (size_t i = 1; i < args.other_tasks.size(); ++i) {
    const SpankTaskArgs::OtherTask& other = args.other_tasks[i];
    TaskPlan plan;
    plan.local_id = static_cast<int>(i);
    plan.env = env0;
    for (const std::string& name : other.unset_env) {
      Remove(plan.env, name);
    }
    for (const std::string& entry : other.set_env) {
      Remove(plan.env, entry.substr(0, entry.find('=')));
      plan.env.push_back(entry);
    }
    plan.out = open(other.out, SpawnStage::kOpenOutput);
    plan.err = other.err.to_stdout ? plan.out : open(other.err, SpawnStage::kOpenError);
    plans.push_back(std::move(plan));
  }
  return plans;
}

// In the forked task. Never returns.
[[noreturn]] void RunTask(SpankHost& host, const SpankTaskArgs& args, const TaskPlan& plan,
                          int ready_fd, int release_fd, pid_t helper) {
  if ((plan.out != STDOUT_FILENO && dup2(plan.out, STDOUT_FILENO) < 0) ||
      (plan.err != STDERR_FILENO && dup2(plan.err, STDERR_FILENO) < 0)) {
    _exit(1);
  }
  host.env() = plan.env;
  // The task's own pid, as slurmstepd gives it (the agent sets it itself for tasks it starts
  // without this helper).
  Remove(host.env(), slurm::kTaskPidVariable);
  host.env().push_back(absl::StrCat(slurm::kTaskPidVariable, "=", getpid()));
  TaskItems task;
  task.local_id = plan.local_id;
  if (!host.Run(Hook::kTaskInitPrivileged, &task).ok()) {
    Error("spank_task_init_privileged failed");
    _exit(1);
  }
  if (args.uid.has_value()) {
    if (setgroups(args.groups.size(), args.groups.data()) != 0 || setgid(*args.gid) != 0 ||
        setuid(*args.uid) != 0) {
      Error(absl::StrCat("becoming uid ", *args.uid, ": ", std::strerror(errno)));
      _exit(1);
    }
  }
  (void)!write(ready_fd, "r", 1);
  close(ready_fd);
  char byte;
  while (read(release_fd, &byte, 1) < 0 && errno == EINTR) {
  }
  // Released, or this process's helper died (SIGKILLed before it could report this task): an
  // orphan must not go on to run the job's command.
  if (getppid() != helper) {
    _exit(1);
  }
  if (!host.Run(Hook::kTaskInit, &task).ok()) {
    Error("Failed to invoke spank plugin stack");
    _exit(1);
  }
  std::vector<std::string> argv = host.argv();
  std::vector<std::string> env = host.env();
  if (!args.task_prolog.empty()) {
    const int status = RunTaskProlog(args.task_prolog, env);
    if (status != 0) {
      Error(absl::StrCat("TaskProlog failed status=", status));
      _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
    }
  }
  const std::string program = helper::Program(argv[0], env);
  std::vector<char*> argv_ptrs = helper::Pointers(argv);
  std::vector<char*> env_ptrs = helper::Pointers(env);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  execve(program.c_str(), argv_ptrs.data(), env_ptrs.data());
  // A batch script the agent has just written can be busy for a moment (spawn.cc).
  for (int attempt = 0; attempt < 100 && errno == ETXTBSY; ++attempt) {
    const timespec pause{0, 20'000'000};
    nanosleep(&pause, nullptr);
    execve(program.c_str(), argv_ptrs.data(), env_ptrs.data());
  }
  const int error = errno;
  Error(absl::StrCat("execve ", program, ": ", std::strerror(error)));
  _exit(error == ENOENT ? 127 : 126);
}

// Tells the agent about a task (--exits-fd): "pid I PID" (also its process group),
// "exit I STATUS" or "fault I 1" (helper_reports.h).
void Tell(const SpankTaskArgs& args, const char* what, int local_id, int value) {
  if (args.exits_fd >= 0) {
    helper::WriteAll(args.exits_fd, absl::StrCat(what, " ", local_id, " ", value, "\n"));
  }
}

// A failure of the node's plugins in slurmstepd's own part of a batch script's set-up
// (user_init, task_post_fork): Slurm drains the node ("batch job complete failure") and
// requeues the job; for a step, only the step fails.
void TellNodeFault(const SpankTaskArgs& args) {
  constexpr uint32_t kBatchScriptStepId = 0xfffffffb;  // SLURM_BATCH_SCRIPT
  if (args.items.step_id == kBatchScriptStepId) {
    Tell(args, "fault", 0, 1);
  }
}

// Forks every task and runs task_post_fork for each. False if nothing could be forked.
bool ForkTasks(SpankHost& host, const SpankTaskArgs& args, std::vector<TaskPlan>& plans) {
  for (TaskPlan& plan : plans) {
    int ready[2];
    int release[2];
    if (pipe2(ready, O_CLOEXEC) != 0 || pipe2(release, O_CLOEXEC) != 0) {
      Error(absl::StrCat("pipe: ", std::strerror(errno)));
      return false;
    }
    const pid_t helper = getpid();
    const pid_t pid = fork();
    if (pid < 0) {
      Error(absl::StrCat("fork: ", std::strerror(errno)));
      return false;
    }
    if (pid == 0) {
      // Each task leads a process group of its own, as under Canopy without plugins: the agent
      // reaches it there with what this process cannot forward (SIGKILL, SIGSTOP), and this
      // process outlives it to run task_exit and exit.
      setpgid(0, 0);
      close(ready[0]);
      close(release[1]);
      // The tasks forked before hold their own ends: dropped here, or a task's release would
      // wait for every later task to exec.
      for (const TaskPlan& earlier : plans) {
        if (&earlier != &plan && earlier.pid > 0) {
          close(earlier.ready);
          close(earlier.release);
        }
      }
      RunTask(host, args, plan, ready[1], release[0], helper);
    }
    setpgid(pid, pid);  // as the child does, so that neither order leaves a window
    close(ready[1]);
    close(release[0]);
    plan.pid = pid;
    plan.ready = ready[0];
    plan.release = release[1];
    host.job().task_pids[static_cast<size_t>(plan.local_id)] = pid;
    Tell(args, "pid", plan.local_id, pid);  // at once: the agent's SIGKILL needs its group
  }
  // The order of Slurm's slurmstepd: each task runs task_init_privileged, the parent then
  // task_post_fork, and only then the tasks task_init.
  for (TaskPlan& plan : plans) {
    char byte;
    while (read(plan.ready, &byte, 1) < 0 && errno == EINTR) {
    }
    close(plan.ready);  // a task that failed before being ready closed its end: EOF
    TaskItems task;
    task.local_id = plan.local_id;
    if (!host.Run(Hook::kTaskPostFork, &task).ok()) {
      Error(absl::StrCat("spank task ", plan.local_id, " post-fork failed"));
      kill(plan.pid, SIGKILL);
      TellNodeFault(args);
    }
  }
  for (TaskPlan& plan : plans) {
    close(plan.release);
  }
  return true;
}

// A task ended: TaskEpilog, task_exit, and the agent told.
void TaskEnded(SpankHost& host, const SpankTaskArgs& args, TaskPlan& plan, int status) {
  plan.done = true;
  plan.status = status;
  TaskItems task;
  task.local_id = plan.local_id;
  task.exit_status = status;
  if (!args.task_epilog.empty()) {
    std::vector<unsigned> groups(args.groups.begin(), args.groups.end());
    const int epilog = RunTaskEpilog(
        args.task_epilog, plan.env, args.uid.has_value() ? static_cast<int>(*args.uid) : -1,
        args.gid.has_value() ? static_cast<int>(*args.gid) : -1, groups);
    if (epilog != 0) {
      Error(absl::StrCat("TaskEpilog failed status=", epilog));
    }
  }
  if (!host.Run(Hook::kTaskExit, &task).ok()) {
    Error(absl::StrCat("Unable to spank task ", plan.local_id, " at exit"));
  }
  Tell(args, "exit", plan.local_id, status);
}

// Reaps the tasks as they end and forwards to each task's group still running the signals the
// agent sends this process's group (they stay blocked here, and are read from a signalfd), as
// slurmstepd delivers signals to its tasks.
void ReapTasks(SpankHost& host, const SpankTaskArgs& args, std::vector<TaskPlan>& plans) {
  sigset_t job_signals;
  sigprocmask(SIG_BLOCK, nullptr, &job_signals);  // main() blocked them all
  const os::UniqueFd signals(signalfd(-1, &job_signals, SFD_CLOEXEC));
  auto left = [&] {
    return std::any_of(plans.begin(), plans.end(),
                       [](const TaskPlan& plan) { return plan.pid > 0 && !plan.done; });
  };
  while (left()) {
    int status = 0;
    // Without a signalfd (it cannot fail short of exhausted descriptors) tasks are still
    // reaped, but signals wait here until the end.
    const pid_t pid = waitpid(-1, &status, signals.valid() ? WNOHANG : 0);
    if (pid < 0 && errno == EINTR) {
      continue;
    }
    if (pid < 0) {
      break;  // ECHILD: nothing left to wait for
    }
    if (pid > 0) {
      for (TaskPlan& plan : plans) {
        if (plan.pid == pid && !plan.done) {
          TaskEnded(host, args, plan, status);
        }
      }
      continue;
    }
    // Nothing ended: wait for SIGCHLD or a signal to forward (one pending since before the
    // tasks existed is read now, so they get it too).
    signalfd_siginfo info;
    const ssize_t n = read(signals.get(), &info, sizeof(info));
    if (n != static_cast<ssize_t>(sizeof(info)) || info.ssi_signo == SIGCHLD) {
      continue;
    }
    for (const TaskPlan& plan : plans) {
      if (plan.pid > 0 && !plan.done) {
        killpg(plan.pid, static_cast<int>(info.ssi_signo));
      }
    }
  }
}

}  // namespace

int Supervise(SpankTaskArgs& args) {
  if (args.exits_fd >= 0) {
    fcntl(args.exits_fd, F_SETFD, FD_CLOEXEC);  // the agent's, not the tasks'
  }
  helper::SetUpAsUser(args);
  std::vector<TaskPlan> plans = PlanTasks(args);
  // The tasks' stdio and work directory are set up: the agent goes on while the plugins load
  // and work (an image import can take minutes); from here on failures are the tasks', on
  // their stderr, as slurmstepd's are once slurmd has handed the launch over.
  close(kWrapperReportFd);
  helper::StdioReady() = true;
  auto fail_all = [&](const std::string& why) {
    Error(why);
    for (const TaskPlan& plan : plans) {
      Tell(args, "exit", plan.local_id, 1 << 8);
    }
    return 1;
  };

  absl::StatusOr<std::unique_ptr<SpankHost>> loaded =
      args.plugstack.empty() ? SpankHost::Load(S_CTX_REMOTE, {})
                             : SpankHost::LoadFile(S_CTX_REMOTE, args.plugstack, args.plugin_dirs,
                                                   /*must_exist=*/false);
  if (!loaded.ok()) {
    // The node's plugin stack (a plugin missing or built for another release), not the job.
    TellNodeFault(args);
    return fail_all(
        absl::StrCat(loaded.status().message(), ": Plugin stack initialization failed."));
  }
  SpankHost& host = **loaded;
  host.job() = args.items;
  if (!host.job().uid.has_value()) {
    host.job().uid = getuid();
    host.job().gid = getgid();
  }
  const size_t ids = std::max<size_t>(plans.size(), static_cast<size_t>(args.local_id) + 1);
  if (host.job().task_pids.size() < ids) {
    host.job().global_task_ids.resize(ids, 0);
    host.job().task_pids.resize(ids, 0);
  }
  host.env() = plans[0].env;
  host.argv() = args.argv;

  if (!host.Run(Hook::kInit).ok() || !host.TakeOptionsFromEnv().ok() ||
      !host.Run(Hook::kInitPostOpt).ok()) {
    return fail_all("Plugin stack initialization failed.");
  }
  // The carriers are gone from every task's environment too.
  for (TaskPlan& plan : plans) {
    std::erase_if(plan.env,
                  [](const std::string& e) { return absl::StartsWith(e, "_SLURM_SPANK_OPTION_"); });
  }
  {
    helper::AsUser as_user(args);
    if (as_user.failed() != static_cast<SpawnStage>(0)) {
      TellNodeFault(args);
      return fail_all(absl::StrCat("becoming uid ", args.uid.value_or(0),
                                   " for slurm_spank_user_init: ", std::strerror(as_user.error())));
    }
    if (!host.Run(Hook::kUserInit).ok()) {
      TellNodeFault(args);
      return fail_all("spank_user failed.");
    }
  }
  if (!ForkTasks(host, args, plans)) {
    for (const TaskPlan& plan : plans) {
      if (plan.pid > 0) {
        kill(plan.pid, SIGKILL);
      }
    }
  }
  ReapTasks(host, args, plans);
  (void)host.Run(Hook::kExit);
  const int first_status = plans[0].done ? plans[0].status : 1 << 8;
  loaded->reset();
  helper::ExitAs(first_status);
}

}  // namespace canopy::spank
