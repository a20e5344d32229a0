// Subprocess: a child process owned by a test. Started with fork/exec in its own process group;
// the destructor kills the whole group (SIGKILL) and reaps it, so a failing test never leaves
// canopyd or agents behind. Output goes to files the test can read. Thread-compatible.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace canopy::testing {

class Subprocess {
 public:
  // Starts argv[0] (a path) with the current environment plus `env`. stdout and stderr go to
  // `log_path` (appended).
  static absl::StatusOr<Subprocess> Start(const std::vector<std::string>& argv,
                                          const std::map<std::string, std::string>& env,
                                          const std::string& log_path);
  Subprocess(Subprocess&& other) noexcept;
  Subprocess& operator=(Subprocess&& other) noexcept;
  ~Subprocess();

  pid_t pid() const { return pid_; }
  // Sends `signal` to the process group.
  void Signal(int signal);
  // Waits up to `timeout` for exit; returns the wait status, or DeadlineExceeded.
  absl::StatusOr<int> Wait(absl::Duration timeout);
  // SIGKILL and reap. Idempotent.
  void Kill();

 private:
  explicit Subprocess(pid_t pid) : pid_(pid) {}
  pid_t pid_ = -1;
};

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs a command to completion (killed after `timeout`), capturing stdout and stderr.
CommandResult RunCommand(const std::vector<std::string>& argv,
                         const std::map<std::string, std::string>& env = {},
                         absl::Duration timeout = absl::Seconds(30));

// Polls `condition` every 100 ms until it is true or `timeout` passes; returns its last value.
template <typename Fn>
bool WaitUntil(Fn condition, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    if (condition()) {
      return true;
    }
    if (absl::Now() > deadline) {
      return false;
    }
    absl::SleepFor(absl::Milliseconds(100));
  }
}

std::string ReadFile(const std::string& path);

}  // namespace canopy::testing
