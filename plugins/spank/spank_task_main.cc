// canopy-spank-task: runs one task under the site's SPANK plugins, in the place slurmstepd holds
// under Slurm. The agent starts it (Spawn with SpawnRequest::wrapper) as root, in the job's
// cgroup and session; it then
//   1. as the user (effective ids): enters the work dir and opens the task's stdio files,
//      reporting a failure to the agent exactly as Spawn's own child would, and loads
//      plugstack.conf (re-read at every launch, as Slurm does); then lets the agent go on;
//   2. as root: slurm_spank_init, the options the job carries (_SLURM_SPANK_OPTION_*),
//      slurm_spank_init_post_opt; as the user (effective ids): slurm_spank_user_init;
//   3. forks the task: the child runs slurm_spank_task_init_privileged as root, becomes the
//      user, waits until the parent has run slurm_spank_task_post_fork, runs
//      slurm_spank_task_init and execs the (possibly rewritten) command line;
//   4. waits for the task, runs slurm_spank_task_exit and slurm_spank_exit, and exits as the
//      task did (the same code, or the same signal), so the agent sees the task's own status.
// It blocks the signals sent to the job's process group, so it outlives its task and reports its
// exit; the task unblocks them. A failing required plugin prints Slurm's message on the task's
// stderr and in the agent's log, and the task fails with exit code 1 as under Slurm.
#include <grp.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "agent/runtime/spawn_report.h"
#include "plugins/spank/spank_host.h"
#include "plugins/spank/spank_task_args.h"
#include "plugins/spank/task_scripts.h"

extern char** environ;

namespace {

using canopy::agent::runtime::kWrapperLogFd;
using canopy::agent::runtime::kWrapperReportFd;
using canopy::agent::runtime::OpenOnto;
using canopy::agent::runtime::SpawnFailure;
using canopy::agent::runtime::SpawnStage;
using canopy::spank::Hook;
using canopy::spank::LogLevel;
using canopy::spank::SpankHost;
using canopy::spank::SpankTaskArgs;
using canopy::spank::TaskItems;

constexpr char kProgram[] = "canopy-spank-task";
constexpr int kJobSignals[] = {SIGTERM, SIGINT,  SIGHUP,  SIGQUIT, SIGUSR1,
                               SIGUSR2, SIGALRM, SIGPIPE, SIGXCPU};

std::string label;
bool stdio_ready = false;  // fd 2 is the task's stderr

void WriteAll(int fd, const std::string& text) {
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return;
    }
    done += static_cast<size_t>(n);
  }
}

// Errors go to the agent's log and, once the task's stdio is set up, to its stderr as
// slurmstepd's do; the rest to the agent's log only (debug levels dropped).
void LogLine(LogLevel level, const std::string& message) {
  if (level == LogLevel::kDebug || level == LogLevel::kDebug2 || level == LogLevel::kDebug3) {
    return;
  }
  const char* tag = level == LogLevel::kError ? "error: " : "";
  WriteAll(kWrapperLogFd, absl::StrCat(kProgram, " [", label, "]: ", tag, message, "\n"));
  if (level == LogLevel::kError && stdio_ready) {
    WriteAll(STDERR_FILENO, absl::StrCat(kProgram, ": error: ", message, "\n"));
  }
}

// Tells Spawn why the task could not be set up, and ends.
[[noreturn]] void ReportAndExit(SpawnStage stage, int error, const std::string& message = "") {
  const SpawnFailure failure{stage, error};
  std::string record(reinterpret_cast<const char*>(&failure), sizeof(failure));
  record += message;
  WriteAll(kWrapperReportFd, record);
  _exit(127);
}

// The user's identity as effective ids for a while (Slurm's "privileges temporarily dropped"),
// root again when destroyed. Nothing to do without --uid (an agent that is not root).
class AsUser {
 public:
  explicit AsUser(const SpankTaskArgs& args) {
    if (!args.uid.has_value()) {
      return;
    }
    saved_groups_.resize(static_cast<size_t>(std::max(getgroups(0, nullptr), 0)));
    if (getgroups(static_cast<int>(saved_groups_.size()), saved_groups_.data()) < 0) {
      saved_groups_.clear();
    }
    if (setgroups(args.groups.size(), args.groups.data()) != 0) {
      failed_ = SpawnStage::kSetgroups;
    } else if (setegid(*args.gid) != 0) {
      failed_ = SpawnStage::kSetgid;
    } else if (seteuid(*args.uid) != 0) {
      failed_ = SpawnStage::kSetuid;
    }
    error_ = errno;
    active_ = true;
  }
  ~AsUser() {
    if (active_) {
      (void)!seteuid(0);
      (void)!setegid(getgid());
      (void)!setgroups(saved_groups_.size(), saved_groups_.data());
    }
  }
  AsUser(const AsUser&) = delete;
  AsUser& operator=(const AsUser&) = delete;
  // 0 when done, else where it failed (errno in error()).
  SpawnStage failed() const { return failed_; }
  int error() const { return error_; }

 private:
  bool active_ = false;
  SpawnStage failed_ = static_cast<SpawnStage>(0);
  int error_ = 0;
  std::vector<gid_t> saved_groups_;
};

// Step 1: the work dir and the stdio files, entered and opened with the user's rights.
void SetUpAsUser(const SpankTaskArgs& args) {
  AsUser as_user(args);
  if (as_user.failed() != static_cast<SpawnStage>(0)) {
    ReportAndExit(as_user.failed(), as_user.error());
  }
  if (chdir(args.work_dir.c_str()) != 0) {
    ReportAndExit(SpawnStage::kChdir, errno);
  }
  if (!args.stdin_path.empty() && !OpenOnto(args.stdin_path.c_str(), O_RDONLY, STDIN_FILENO)) {
    ReportAndExit(SpawnStage::kOpenInput, errno);
  }
  if (!args.stdout_path.empty() &&
      !OpenOnto(args.stdout_path.c_str(),
                O_WRONLY | O_CREAT | (args.stdout_append ? O_APPEND : O_TRUNC), STDOUT_FILENO)) {
    ReportAndExit(SpawnStage::kOpenOutput, errno);
  }
  if (args.stderr_to_stdout) {
    if (dup2(STDOUT_FILENO, STDERR_FILENO) < 0) {
      ReportAndExit(SpawnStage::kStdio, errno);
    }
  } else if (!args.stderr_path.empty() &&
             !OpenOnto(args.stderr_path.c_str(),
                       O_WRONLY | O_CREAT | (args.stderr_append ? O_APPEND : O_TRUNC),
                       STDERR_FILENO)) {
    ReportAndExit(SpawnStage::kOpenError, errno);
  }
}

// A bare program name (a plugin may prepend one) is looked up in the task's PATH.
std::string Program(const std::string& name, const std::vector<std::string>& env) {
  if (name.find('/') != std::string::npos) {
    return name;
  }
  std::string path = "/usr/bin:/bin";
  for (const std::string& entry : env) {
    if (entry.rfind("PATH=", 0) == 0) {
      path = entry.substr(5);
    }
  }
  for (absl::string_view dir : absl::StrSplit(path, ':', absl::SkipEmpty())) {
    std::string candidate = absl::StrCat(dir, "/", name);
    if (access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return name;
}

std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) {
    out.push_back(s.data());
  }
  out.push_back(nullptr);
  return out;
}

// Step 3, in the forked child. Never returns.
// `ready_fd`: written once the task has run task_init_privileged and become the user;
// `release_fd`: read (to EOF) before task_init, once the parent has run task_post_fork.
[[noreturn]] void RunTask(SpankHost& host, const SpankTaskArgs& args, int ready_fd,
                          int release_fd) {
  TaskItems task;
  task.local_id = args.local_id;
  if (!host.Run(Hook::kTaskInitPrivileged, &task).ok()) {
    canopy::spank::Log(LogLevel::kError, "spank_task_init_privileged failed");
    _exit(1);
  }
  if (args.uid.has_value()) {
    if (setgroups(args.groups.size(), args.groups.data()) != 0 || setgid(*args.gid) != 0 ||
        setuid(*args.uid) != 0) {
      canopy::spank::Log(LogLevel::kError,
                         absl::StrCat("becoming uid ", *args.uid, ": ", std::strerror(errno)));
      _exit(1);
    }
  }
  (void)!write(ready_fd, "r", 1);
  close(ready_fd);
  char byte;
  while (read(release_fd, &byte, 1) < 0 && errno == EINTR) {
  }
  if (!host.Run(Hook::kTaskInit, &task).ok()) {
    canopy::spank::Log(LogLevel::kError, "Failed to invoke spank plugin stack");
    _exit(1);
  }
  std::vector<std::string> argv = host.argv();
  std::vector<std::string> env = host.env();
  if (!args.task_prolog.empty()) {
    const int status = canopy::spank::RunTaskProlog(args.task_prolog, env);
    if (status != 0) {
      canopy::spank::Log(LogLevel::kError, absl::StrCat("TaskProlog failed status=", status));
      _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
    }
  }
  const std::string program = Program(argv[0], env);
  std::vector<char*> argv_ptrs = Pointers(argv);
  std::vector<char*> env_ptrs = Pointers(env);
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
  canopy::spank::Log(LogLevel::kError,
                     absl::StrCat("execve ", program, ": ", std::strerror(error)));
  _exit(error == ENOENT ? 127 : 126);
}

// Ends this process the way the task ended.
[[noreturn]] void ExitAs(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);  // the task dumped its own core, if any
    signal(sig, SIG_DFL);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, sig);
    sigprocmask(SIG_UNBLOCK, &only, nullptr);
    raise(sig);
    _exit(128 + sig);
  }
  _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

int Supervise(SpankTaskArgs& args) {
  SetUpAsUser(args);
  absl::StatusOr<std::unique_ptr<SpankHost>> loaded =
      args.plugstack.empty() ? SpankHost::Load(S_CTX_REMOTE, {})
                             : SpankHost::LoadFile(S_CTX_REMOTE, args.plugstack, args.plugin_dirs,
                                                   /*must_exist=*/false);
  if (!loaded.ok()) {
    ReportAndExit(SpawnStage::kSpank, 0, std::string(loaded.status().message()));
  }
  SpankHost& host = **loaded;
  host.job() = args.items;
  if (!host.job().uid.has_value()) {
    host.job().uid = getuid();
    host.job().gid = getgid();
  }
  if (host.job().task_pids.empty()) {
    host.job().global_task_ids.assign(static_cast<size_t>(args.local_id) + 1, 0);
    host.job().task_pids.assign(static_cast<size_t>(args.local_id) + 1, 0);
  }
  for (char** e = environ; *e != nullptr; ++e) {
    host.env().emplace_back(*e);
  }
  host.argv() = args.argv;
  // The task is set up: the agent may go on while the plugins work (an image import can take
  // minutes); from here on failures are the task's, on its stderr.
  close(kWrapperReportFd);
  stdio_ready = true;

  if (!host.Run(Hook::kInit).ok() || !host.TakeOptionsFromEnv().ok() ||
      !host.Run(Hook::kInitPostOpt).ok()) {
    canopy::spank::Log(LogLevel::kError, "Plugin stack initialization failed.");
    return 1;
  }
  {
    AsUser as_user(args);
    if (!host.Run(Hook::kUserInit).ok()) {
      canopy::spank::Log(LogLevel::kError, "spank_user failed.");
      return 1;
    }
  }
  // The order of Slurm's slurmstepd: the task runs task_init_privileged, the parent then
  // task_post_fork, and only then the task task_init.
  int ready[2];
  int release[2];
  if (pipe2(ready, O_CLOEXEC) != 0 || pipe2(release, O_CLOEXEC) != 0) {
    canopy::spank::Log(LogLevel::kError, absl::StrCat("pipe: ", std::strerror(errno)));
    return 1;
  }
  const pid_t pid = fork();
  if (pid < 0) {
    canopy::spank::Log(LogLevel::kError, absl::StrCat("fork: ", std::strerror(errno)));
    return 1;
  }
  if (pid == 0) {
    close(ready[0]);
    close(release[1]);
    RunTask(host, args, ready[1], release[0]);
  }
  close(ready[1]);
  close(release[0]);
  char byte;
  while (read(ready[0], &byte, 1) < 0 && errno == EINTR) {
  }
  close(ready[0]);  // a task that failed before being ready closed its end: EOF
  host.job().task_pids[static_cast<size_t>(args.local_id)] = pid;
  TaskItems task;
  task.local_id = args.local_id;
  if (!host.Run(Hook::kTaskPostFork, &task).ok()) {
    canopy::spank::Log(LogLevel::kError,
                       absl::StrCat("spank task ", args.local_id, " post-fork failed"));
    kill(pid, SIGKILL);
  }
  close(release[1]);  // the task may go on to slurm_spank_task_init and exec
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      status = 1 << 8;
      break;
    }
  }
  task.exit_status = status;
  if (!args.task_epilog.empty()) {
    std::vector<unsigned> groups(args.groups.begin(), args.groups.end());
    const int epilog = canopy::spank::RunTaskEpilog(
        args.task_epilog, host.env(), args.uid.has_value() ? static_cast<int>(*args.uid) : -1,
        args.gid.has_value() ? static_cast<int>(*args.gid) : -1, groups);
    if (epilog != 0) {
      canopy::spank::Log(LogLevel::kError, absl::StrCat("TaskEpilog failed status=", epilog));
    }
  }
  if (!host.Run(Hook::kTaskExit, &task).ok()) {
    canopy::spank::Log(LogLevel::kError,
                       absl::StrCat("Unable to spank task ", args.local_id, " at exit"));
  }
  (void)host.Run(Hook::kExit);
  loaded->reset();
  ExitAs(status);
}

// --job-script: the plugins' slurm_spank_job_prolog or job_epilog in S_CTX_JOB_SCRIPT, then the
// Prolog/Epilog itself (the command, if any), as root. Exits with the script's failure if it
// failed, else 1 if a required plugin failed, else 0: slurmd runs both and prefers the script's
// status.
int RunJobScript(SpankTaskArgs& args) {
  SetUpAsUser(args);  // no --uid: the work dir and /dev/null, as root
  close(kWrapperReportFd);
  const bool prolog = args.job_script == "prolog";
  int hooks_status = 0;
  absl::StatusOr<std::unique_ptr<SpankHost>> loaded =
      args.plugstack.empty() ? SpankHost::Load(S_CTX_JOB_SCRIPT, {})
                             : SpankHost::LoadFile(S_CTX_JOB_SCRIPT, args.plugstack,
                                                   args.plugin_dirs, /*must_exist=*/false);
  if (!loaded.ok()) {
    canopy::spank::Log(LogLevel::kError, std::string(loaded.status().message()));
    hooks_status = 1;
  } else {
    SpankHost& host = **loaded;
    host.job() = args.items;
    for (char** e = environ; *e != nullptr; ++e) {
      host.env().emplace_back(*e);
    }
    if (absl::Status s = host.Run(prolog ? Hook::kJobProlog : Hook::kJobEpilog); !s.ok()) {
      canopy::spank::Log(LogLevel::kError,
                         absl::StrCat("spank/", args.job_script, " returned status 0x0100"));
      hooks_status = 1;
    }
  }
  int script_status = 0;
  if (!args.argv.empty()) {
    const pid_t pid = fork();
    if (pid == 0) {
      std::vector<std::string> argv = args.argv;
      std::vector<char*> argv_ptrs = Pointers(argv);
      sigset_t none;
      sigemptyset(&none);
      sigprocmask(SIG_SETMASK, &none, nullptr);
      execve(argv_ptrs[0], argv_ptrs.data(), environ);
      canopy::spank::Log(LogLevel::kError,
                         absl::StrCat("execve ", args.argv[0], ": ", std::strerror(errno)));
      _exit(127);
    }
    while (pid > 0 && waitpid(pid, &script_status, 0) < 0 && errno == EINTR) {
    }
    if (pid < 0) {
      script_status = 1 << 8;
    }
  }
  if (script_status != 0) {
    ExitAs(script_status);
  }
  return hooks_status;
}

}  // namespace

int main(int argc, char** argv) {
  sigset_t job_signals;
  sigemptyset(&job_signals);
  for (int sig : kJobSignals) {
    sigaddset(&job_signals, sig);
  }
  sigprocmask(SIG_BLOCK, &job_signals, nullptr);
  canopy::spank::SetLogSink(LogLine);

  absl::StatusOr<SpankTaskArgs> args =
      canopy::spank::ParseSpankTaskArgs(std::vector<std::string>(argv + 1, argv + argc));
  if (!args.ok()) {
    ReportAndExit(SpawnStage::kSpank, 0, absl::StrCat(kProgram, ": ", args.status().message()));
  }
  label = args->label.empty() ? "task" : args->label;
  if (!args->job_script.empty()) {
    return RunJobScript(*args);
  }
  return Supervise(*args);
}
