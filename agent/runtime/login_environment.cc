#include "agent/runtime/login_environment.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "agent/runtime/spawn.h"
#include "common/os/unique_fd.h"

namespace canopy::agent::runtime {
namespace {

// Printed before the environment, so that whatever the user's profile prints (a banner, a
// module system's notes) is not taken for it.
constexpr absl::string_view kMarker = "\n__CANOPY_LOGIN_ENVIRONMENT__\n";

// Variables that describe the login shell's own run, not the user's settings.
bool OnlyTheShells(absl::string_view name) {
  return name == "PWD" || name == "OLDPWD" || name == "SHLVL" || name == "_";
}

}  // namespace

absl::StatusOr<slurm::Environment> ParseLoginEnvironment(absl::string_view output) {
  const size_t marker = output.find(kMarker);
  if (marker == absl::string_view::npos) {
    return absl::NotFoundError("the login shell printed no environment");
  }
  slurm::Environment env;
  for (absl::string_view entry :
       absl::StrSplit(output.substr(marker + kMarker.size()), '\0', absl::SkipEmpty())) {
    const size_t eq = entry.find('=');
    if (eq == 0 || eq == absl::string_view::npos || OnlyTheShells(entry.substr(0, eq))) {
      continue;
    }
    env[std::string(entry.substr(0, eq))] = std::string(entry.substr(eq + 1));
  }
  return env;
}

absl::StatusOr<slurm::Environment> LoadLoginEnvironment(const std::string& user,
                                                        ChildReaper& reaper,
                                                        absl::Duration timeout) {
  if (geteuid() != 0) {
    return absl::FailedPreconditionError(
        "the user's login environment needs the agent to run as root (it runs su)");
  }
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  os::UniqueFd read_end(fds[0]);
  os::UniqueFd write_end(fds[1]);
  SpawnRequest req;
  req.argv = {
      "/bin/su", "-", user, "-c",
      absl::StrCat("printf '", absl::StrReplaceAll(kMarker, {{"\n", "\\n"}}), "'; exec env -0")};
  req.env = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin"};
  req.work_dir = "/";
  req.stdin_path = "/dev/null";
  req.stdout_fd = write_end.get();
  req.stderr_path = "/dev/null";
  // Outlives this call when the shell is killed at the timeout and reaped later.
  auto exited = std::make_shared<std::atomic<bool>>(false);
  absl::StatusOr<pid_t> pid = Spawn(req, reaper, [exited](int) { exited->store(true); });
  write_end.reset();  // EOF once the shell (and whatever it started) is done
  if (!pid.ok()) {
    return absl::UnavailableError(
        absl::StrCat("could not start su for ", user, ": ", pid.status().message()));
  }
  std::string output;
  const absl::Time deadline = absl::Now() + timeout;
  char buffer[8192];
  while (true) {
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) {
      kill(-*pid, SIGKILL);  // its own session and process group (Spawn)
      return absl::UnavailableError(absl::StrCat("the login shell of ", user, " took over ",
                                                 absl::FormatDuration(timeout), " and was killed"));
    }
    pollfd p{read_end.get(), POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(absl::ToInt64Milliseconds(left)) + 1);
    if (ready < 0 && errno == EINTR) {
      continue;
    }
    if (ready <= 0) {
      continue;  // the deadline, checked above
    }
    const ssize_t n = read(read_end.get(), buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      break;
    }
    output.append(buffer, static_cast<size_t>(n));
  }
  absl::StatusOr<slurm::Environment> env = ParseLoginEnvironment(output);
  if (!env.ok()) {
    return absl::UnavailableError(
        absl::StrCat("su - ", user, ": ", env.status().message(), " (is the user's shell one?)"));
  }
  return env;
}

}  // namespace canopy::agent::runtime
