#include "plugins/spank/task_helper_util.h"

#include <grp.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace canopy::spank::helper {

using agent::runtime::kWrapperReportFd;
using agent::runtime::OpenOnto;
using agent::runtime::SpawnFailure;
using agent::runtime::SpawnStage;

std::string& Label() {
  static std::string label = "task";
  return label;
}

bool& StdioReady() {
  static bool ready = false;
  return ready;
}

const std::vector<std::string>& TaskEnvironment() {
  static const std::vector<std::string> env = [] {
    std::string packed;
    char buffer[65536];
    ssize_t n;
    while ((n = read(agent::runtime::kWrapperEnvFd, buffer, sizeof(buffer))) != 0) {
      if (n < 0 && errno == EINTR) {
        continue;
      }
      if (n < 0) {
        break;
      }
      packed.append(buffer, static_cast<size_t>(n));
    }
    close(agent::runtime::kWrapperEnvFd);
    std::vector<std::string> entries;
    for (absl::string_view entry : absl::StrSplit(packed, '\0', absl::SkipEmpty())) {
      entries.emplace_back(entry);
    }
    return entries;
  }();
  return env;
}

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

// Tells Spawn why the task could not be set up, and ends.
[[noreturn]] void ReportAndExit(SpawnStage stage, int error, const std::string& message) {
  const SpawnFailure failure{stage, error};
  std::string record(reinterpret_cast<const char*>(&failure), sizeof(failure));
  record += message;
  WriteAll(kWrapperReportFd, record);
  _exit(127);
}

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

}  // namespace canopy::spank::helper
