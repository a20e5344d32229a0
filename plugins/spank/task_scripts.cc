#include "plugins/spank/task_scripts.h"

#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "plugins/spank/task_helper_util.h"

namespace canopy::spank {
namespace {

void SetVar(std::vector<std::string>& env, absl::string_view name, absl::string_view value) {
  const std::string prefix = absl::StrCat(name, "=");
  for (std::string& entry : env) {
    if (absl::StartsWith(entry, prefix)) {
      entry = absl::StrCat(prefix, value);
      return;
    }
  }
  env.push_back(absl::StrCat(prefix, value));
}

// The helper blocks the job's signals; the scripts it runs take them as the task does.
void UnblockSignals() {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
}

int Wait(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      return 127 << 8;
    }
  }
  return status;
}

}  // namespace

std::string ApplyTaskPrologOutput(const std::string& output, std::vector<std::string>& env) {
  std::string printed;
  for (absl::string_view line : absl::StrSplit(output, '\n', absl::SkipEmpty())) {
    if (absl::ConsumePrefix(&line, "export ")) {
      const size_t eq = line.find('=');
      if (eq != absl::string_view::npos && eq > 0) {
        SetVar(env, absl::StripAsciiWhitespace(line.substr(0, eq)), line.substr(eq + 1));
      }
    } else if (absl::ConsumePrefix(&line, "unset ")) {
      const std::string prefix = absl::StrCat(absl::StripAsciiWhitespace(line), "=");
      std::erase_if(env, [&](const std::string& e) { return absl::StartsWith(e, prefix); });
    } else if (absl::ConsumePrefix(&line, "print ")) {
      absl::StrAppend(&printed, line, "\n");
    }
  }
  return printed;
}

int RunTaskProlog(const std::string& script, std::vector<std::string>& env) {
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) {
    return 127 << 8;
  }
  std::vector<std::string> script_env = env;
  SetVar(script_env, "SLURM_SCRIPT_CONTEXT", "prolog_task");
  std::vector<std::string> argv = {script};
  const pid_t pid = fork();
  if (pid == 0) {
    UnblockSignals();
    dup2(out[1], STDOUT_FILENO);
    std::vector<char*> a = helper::Pointers(argv);
    std::vector<char*> e = helper::Pointers(script_env);
    execve(script.c_str(), a.data(), e.data());
    _exit(127);
  }
  close(out[1]);
  std::string output;
  char buffer[4096];
  ssize_t n;
  while ((n = read(out[0], buffer, sizeof(buffer))) != 0) {
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      break;
    }
    output.append(buffer, static_cast<size_t>(n));
  }
  close(out[0]);
  if (pid < 0) {
    return 127 << 8;
  }
  const int status = Wait(pid);
  const std::string printed = ApplyTaskPrologOutput(output, env);
  for (size_t done = 0; done < printed.size();) {
    const ssize_t w = write(STDOUT_FILENO, printed.data() + done, printed.size() - done);
    if (w <= 0) {
      break;
    }
    done += static_cast<size_t>(w);
  }
  return status;
}

int RunTaskEpilog(const std::string& script, const std::vector<std::string>& env, int uid, int gid,
                  const std::vector<unsigned>& groups) {
  std::vector<std::string> script_env = env;
  SetVar(script_env, "SLURM_SCRIPT_CONTEXT", "epilog_task");
  std::vector<std::string> argv = {script};
  std::vector<gid_t> gids(groups.begin(), groups.end());
  const pid_t pid = fork();
  if (pid == 0) {
    UnblockSignals();
    // Its own process group: the job's signals, which the helper forwards to the tasks, are
    // not the epilog's.
    setpgid(0, 0);
    if (uid >= 0 &&
        (setgroups(gids.size(), gids.data()) != 0 || setgid(gid) != 0 || setuid(uid) != 0)) {
      _exit(126);
    }
    std::vector<char*> a = helper::Pointers(argv);
    std::vector<char*> e = helper::Pointers(script_env);
    execve(script.c_str(), a.data(), e.data());
    _exit(127);
  }
  return pid < 0 ? 127 << 8 : Wait(pid);
}

}  // namespace canopy::spank
