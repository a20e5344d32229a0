// canopy-spank-task: the agent's slurmstepd. The agent starts it (Spawn with
// SpawnRequest::wrapper) as root, in the job's cgroup and session, for
//   - a step's tasks on the node (task_supervisor.h): the SPANK remote context around them,
//     TaskProlog and TaskEpilog;
//   - with --job-script, the Prolog or Epilog (RunJobScript below): the plugins' job_prolog or
//     job_epilog in S_CTX_JOB_SCRIPT, then the script.
// Log lines go to the agent's log (descriptor 4); errors also to the task's stderr once it is
// set up, as slurmstepd's reach the job's output.
#include <fcntl.h>
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
#include "plugins/spank/task_helper_util.h"
#include "plugins/spank/task_supervisor.h"

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
// The signals this process takes: its own faults. Every other one is blocked: those the agent
// sends the job are forwarded to the tasks (task_supervisor.h), which unblock them all before
// exec.
constexpr int kOwnSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS};

using canopy::spank::helper::ExitAs;
using canopy::spank::helper::Pointers;
using canopy::spank::helper::ReportAndExit;
using canopy::spank::helper::SetUpAsUser;
using canopy::spank::helper::WriteAll;

// Errors go to the agent's log and, once the task's stdio is set up, to its stderr as
// slurmstepd's do; the rest to the agent's log only (debug levels dropped).
void LogLine(LogLevel level, const std::string& message) {
  if (level == LogLevel::kDebug || level == LogLevel::kDebug2 || level == LogLevel::kDebug3) {
    return;
  }
  const char* tag = level == LogLevel::kError ? "error: " : "";
  WriteAll(kWrapperLogFd,
           absl::StrCat(kProgram, " [", canopy::spank::helper::Label(), "]: ", tag, message, "\n"));
  if (level == LogLevel::kError && canopy::spank::helper::StdioReady()) {
    WriteAll(STDERR_FILENO, absl::StrCat(kProgram, ": error: ", message, "\n"));
  }
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
    host.env() = canopy::spank::helper::TaskEnvironment();
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
      std::vector<std::string> env = canopy::spank::helper::TaskEnvironment();
      std::vector<char*> env_ptrs = Pointers(env);
      execve(argv_ptrs[0], argv_ptrs.data(), env_ptrs.data());
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
  sigfillset(&job_signals);
  for (int sig : kOwnSignals) {
    sigdelset(&job_signals, sig);
  }
  sigprocmask(SIG_BLOCK, &job_signals, nullptr);
  // Nothing the agent passed may reach what this process starts: the report pipe and the agent's
  // log are for it alone (the exits pipe is made close-on-exec by the supervisor).
  fcntl(canopy::agent::runtime::kWrapperReportFd, F_SETFD, FD_CLOEXEC);
  fcntl(kWrapperLogFd, F_SETFD, FD_CLOEXEC);
  (void)canopy::spank::helper::TaskEnvironment();  // read and closed before anything forks
  canopy::spank::SetLogSink(LogLine);

  absl::StatusOr<SpankTaskArgs> args =
      canopy::spank::ParseSpankTaskArgs(std::vector<std::string>(argv + 1, argv + argc));
  if (!args.ok()) {
    ReportAndExit(SpawnStage::kSpank, 0, absl::StrCat(kProgram, ": ", args.status().message()));
  }
  if (!args->label.empty()) {
    canopy::spank::helper::Label() = args->label;
  }
  if (!args->job_script.empty()) {
    return RunJobScript(*args);
  }
  return canopy::spank::Supervise(*args);
}
