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
#include "common/os/user_info.h"

namespace canopy::agent::runtime {
namespace {

// Printed around the environment, so that whatever the user's profile prints (a banner, a module
// system's notes) is not taken for it, and the environment is known complete at the end marker
// (a process the profile left in the background may keep the pipe open long after).
constexpr absl::string_view kBegin = "\n__CANOPY_LOGIN_ENVIRONMENT__\n";
constexpr absl::string_view kEnd = "\n__CANOPY_LOGIN_ENVIRONMENT_END__\n";

// Variables that describe the login shell's own run, not the user's settings.
bool OnlyTheShells(absl::string_view name) {
  return name == "PWD" || name == "OLDPWD" || name == "SHLVL" || name == "_";
}

}  // namespace

absl::StatusOr<slurm::Environment> ParseLoginEnvironment(absl::string_view output) {
  const size_t begin = output.find(kBegin);
  const size_t end =
      begin == absl::string_view::npos ? begin : output.find(kEnd, begin + kBegin.size());
  if (end == absl::string_view::npos) {
    return absl::NotFoundError("the login shell printed no environment");
  }
  slurm::Environment env;
  for (absl::string_view entry :
       absl::StrSplit(output.substr(begin + kBegin.size(), end - begin - kBegin.size()), '\0',
                      absl::SkipEmpty())) {
    const size_t eq = entry.find('=');
    if (eq == 0 || eq == absl::string_view::npos || OnlyTheShells(entry.substr(0, eq))) {
      continue;
    }
    env[std::string(entry.substr(0, eq))] = std::string(entry.substr(eq + 1));
  }
  return env;
}

absl::StatusOr<slurm::Environment> LoadLoginEnvironment(uint32_t uid, ChildReaper& reaper,
                                                        absl::Duration timeout) {
  if (geteuid() != 0) {
    return absl::FailedPreconditionError(
        "the user's login environment needs the agent to run as root (it runs su)");
  }
  absl::StatusOr<os::UserInfo> user = os::LookupUser(uid);
  if (!user.ok()) {
    return user.status();
  }
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  os::UniqueFd read_end(fds[0]);
  os::UniqueFd write_end(fds[1]);
  auto escaped = [](absl::string_view marker) {
    return absl::StrReplaceAll(marker, {{"\n", "\\n"}});
  };
  SpawnRequest req;
  // --session-command keeps the shell in su's session, which the timeout kills whole; "--" ends
  // su's options before the name.
  req.argv = {"/bin/su",
              "-l",
              "--session-command",
              absl::StrCat("printf '", escaped(kBegin), "'; env -0; printf '", escaped(kEnd), "'"),
              "--",
              user->name};
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
        absl::StrCat("could not start su for ", user->name, ": ", pid.status().message()));
  }
  auto give_up = [&](std::string why) {
    if (!exited->load()) {
      kill(-*pid, SIGKILL);  // su's session and process group (Spawn), the shell's too
    }
    return absl::UnavailableError(absl::StrCat("the login shell of ", user->name, " ", why));
  };
  std::string output;
  const absl::Time deadline = absl::Now() + timeout;
  char buffer[8192];
  // Each read is searched for the end marker from where the last search stopped (less the
  // marker's length, which a read may split), not from the start: megabytes of a profile's
  // output would otherwise be searched again at every read.
  size_t searched = 0;
  auto ended = [&] {
    const size_t from = searched > kEnd.size() ? searched - kEnd.size() : 0;
    searched = output.size();
    return absl::string_view(output).find(kEnd, from) != absl::string_view::npos;
  };
  while (!ended()) {
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) {
      return give_up(absl::StrCat("took over ", absl::FormatDuration(timeout), " and was killed"));
    }
    pollfd p{read_end.get(), POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(absl::ToInt64Milliseconds(left)) + 1);
    if (ready <= 0) {
      continue;  // EINTR, or the deadline (checked above)
    }
    const ssize_t n = read(read_end.get(), buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      break;
    }
    output.append(buffer, static_cast<size_t>(n));
    if (output.size() > kMaxLoginEnvironmentBytes) {
      return give_up(
          absl::StrCat("printed over ", kMaxLoginEnvironmentBytes, " bytes and was killed"));
    }
  }
  absl::StatusOr<slurm::Environment> env = ParseLoginEnvironment(output);
  if (!env.ok()) {
    return absl::UnavailableError(absl::StrCat("su -l ", user->name, ": ", env.status().message(),
                                               " (is the user's shell a shell?)"));
  }
  return env;
}

absl::StatusOr<slurm::Environment> LoginEnvironmentCache::Get(uint32_t uid, ChildReaper& reaper,
                                                              absl::Duration timeout) {
  {
    absl::MutexLock lock(&mu_);
    auto it = loaded_.find(uid);
    if (it != loaded_.end() && absl::Now() - it->second.first < kLoginEnvironmentLifetime) {
      return it->second.second;
    }
  }
  // Not under mu_: one user's slow profile must not hold up another's launches.
  absl::StatusOr<slurm::Environment> env = LoadLoginEnvironment(uid, reaper, timeout);
  if (env.ok()) {
    absl::MutexLock lock(&mu_);
    loaded_[uid] = {absl::Now(), *env};
  }
  return env;
}

}  // namespace canopy::agent::runtime
