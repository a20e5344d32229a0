#include "tests/testing/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace canopy::testing {
namespace {

// What the child needs to exec, made in the parent: after fork() in a process with other
// threads the child may only make async-signal-safe calls. A malloc there (copying argv,
// setenv) can wait for ever on an allocator lock another thread held at the fork: under ASan
// that left canopyd never started, now and then, with an empty log.
class PreparedExec {
 public:
  PreparedExec(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env)
      : argv_(argv) {
    for (char** e = environ; *e != nullptr; ++e) {
      const std::string entry(*e);
      if (!env.contains(entry.substr(0, entry.find('=')))) {
        env_.push_back(entry);
      }
    }
    for (const auto& [k, v] : env) {
      env_.push_back(absl::StrCat(k, "=", v));
    }
    argv_ptrs_ = Pointers(argv_);
    env_ptrs_ = Pointers(env_);
    exec_failed_ = absl::StrCat("exec ", argv.empty() ? "" : argv[0], " failed\n");
  }

  // Child side of fork: never returns.
  [[noreturn]] void Exec(int out_fd, int err_fd) const {
    setpgid(0, 0);
    dup2(out_fd, STDOUT_FILENO);
    dup2(err_fd, STDERR_FILENO);
    const int devnull = open("/dev/null", O_RDONLY);
    dup2(devnull, STDIN_FILENO);
    execve(argv_ptrs_[0], argv_ptrs_.data(), env_ptrs_.data());
    (void)!write(err_fd, exec_failed_.data(), exec_failed_.size());
    _exit(127);
  }

 private:
  static std::vector<char*> Pointers(std::vector<std::string>& strings) {
    std::vector<char*> out;
    for (std::string& s : strings) {
      out.push_back(s.data());
    }
    out.push_back(nullptr);
    return out;
  }

  std::vector<std::string> argv_;
  std::vector<std::string> env_;
  std::vector<char*> argv_ptrs_;
  std::vector<char*> env_ptrs_;
  std::string exec_failed_;
};

std::string TempDir() {
  const char* dir = std::getenv("TMPDIR");
  return dir != nullptr && *dir != '\0' ? dir : "/tmp";
}

}  // namespace

absl::StatusOr<Subprocess> Subprocess::Start(const std::vector<std::string>& argv,
                                             const std::map<std::string, std::string>& env,
                                             const std::string& log_path) {
  const int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::InternalError(absl::StrCat("open ", log_path, ": ", strerror(errno)));
  }
  const PreparedExec exec(argv, env);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fd);
    return absl::InternalError(absl::StrCat("fork: ", strerror(errno)));
  }
  if (pid == 0) {
    exec.Exec(fd, fd);
  }
  setpgid(pid, pid);  // also from the parent, so Signal() works even before the child ran
  close(fd);
  return Subprocess(pid);
}

Subprocess::Subprocess(Subprocess&& other) noexcept : pid_(other.pid_) { other.pid_ = -1; }

Subprocess& Subprocess::operator=(Subprocess&& other) noexcept {
  if (this != &other) {
    Kill();
    pid_ = other.pid_;
    other.pid_ = -1;
  }
  return *this;
}

Subprocess::~Subprocess() { Kill(); }

void Subprocess::Signal(int signal) {
  if (pid_ > 0) {
    kill(-pid_, signal);
  }
}

absl::StatusOr<int> Subprocess::Wait(absl::Duration timeout) {
  if (pid_ <= 0) {
    return absl::FailedPreconditionError("no process");
  }
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    int status = 0;
    const pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      pid_ = -1;
      return status;
    }
    if (absl::Now() > deadline) {
      return absl::DeadlineExceededError("process still running");
    }
    absl::SleepFor(absl::Milliseconds(20));
  }
}

void Subprocess::Kill() {
  if (pid_ <= 0) {
    return;
  }
  kill(-pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
  pid_ = -1;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

CommandResult RunCommand(const std::vector<std::string>& argv,
                         const std::map<std::string, std::string>& env, absl::Duration timeout) {
  static int counter = 0;
  const std::string base = absl::StrCat(TempDir(), "/cmd-", getpid(), "-", counter++);
  CommandResult result;
  const int out_fd = open((base + ".out").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const int err_fd = open((base + ".err").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const PreparedExec exec(argv, env);
  const pid_t pid = fork();
  if (pid == 0) {
    exec.Exec(out_fd, err_fd);
  }
  close(out_fd);
  close(err_fd);
  const absl::Time deadline = absl::Now() + timeout;
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (absl::Now() > deadline) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      result.err = "timed out\n";
      return result;
    }
    absl::SleepFor(absl::Milliseconds(10));
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.out = ReadFile(base + ".out");
  result.err = ReadFile(base + ".err");
  unlink((base + ".out").c_str());
  unlink((base + ".err").c_str());
  return result;
}

}  // namespace canopy::testing
