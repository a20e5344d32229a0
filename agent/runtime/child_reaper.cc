#include "agent/runtime/child_reaper.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "spdlog/spdlog.h"

namespace canopy::agent::runtime {
namespace {

// glibc 2.36's <sys/pidfd.h> declares pidfd_open without extern "C"; call the kernel directly.
int PidfdOpen(pid_t pid) { return static_cast<int>(syscall(SYS_pidfd_open, pid, 0)); }

// Orphans (whose exits wake nobody) are looked for at least this often.
constexpr int kOrphanSweepMs = 200;

}  // namespace

absl::StatusOr<std::unique_ptr<ChildReaper>> ChildReaper::Create() {
  os::UniqueFd wake(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!wake.valid()) {
    return absl::InternalError(absl::StrCat("eventfd: ", std::strerror(errno)));
  }
  if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
    spdlog::warn("PR_SET_CHILD_SUBREAPER: {}; orphaned job processes go to init",
                 std::strerror(errno));
  }
  return std::unique_ptr<ChildReaper>(new ChildReaper(std::move(wake)));
}

ChildReaper::ChildReaper(os::UniqueFd wake) : wake_(std::move(wake)) {
  thread_ = std::thread([this] { Run(); });
}

ChildReaper::~ChildReaper() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  const uint64_t one = 1;
  (void)!write(wake_.get(), &one, sizeof(one));
  thread_.join();
}

absl::Status ChildReaper::Watch(pid_t pid, ExitCallback on_exit) {
  // A child that already exited is a zombie until reaped, so its pidfd opens fine (and polls
  // readable at once).
  os::UniqueFd pidfd(PidfdOpen(pid));
  if (!pidfd.valid()) {
    return absl::InternalError(absl::StrCat("pidfd_open(", pid, "): ", std::strerror(errno)));
  }
  {
    absl::MutexLock lock(&mu_);
    watched_[pid] = Watched{std::move(pidfd), std::move(on_exit)};
  }
  const uint64_t one = 1;
  (void)!write(wake_.get(), &one, sizeof(one));
  return absl::OkStatus();
}

void ChildReaper::Run() {
  while (true) {
    std::vector<pollfd> fds;
    std::vector<pid_t> pids;
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) {
        return;
      }
      fds.push_back(pollfd{wake_.get(), POLLIN, 0});
      pids.push_back(0);
      for (const auto& [pid, w] : watched_) {
        fds.push_back(pollfd{w.pidfd.get(), POLLIN, 0});
        pids.push_back(pid);
      }
    }
    const int n = poll(fds.data(), fds.size(), kOrphanSweepMs);
    if (n < 0 && errno != EINTR) {
      spdlog::error("child reaper: poll: {}", std::strerror(errno));
      return;
    }
    if (fds[0].revents & POLLIN) {
      uint64_t count;
      (void)!read(wake_.get(), &count, sizeof(count));
    }
    for (size_t i = 1; i < fds.size(); ++i) {
      if (fds[i].revents == 0) {
        continue;
      }
      int status = 0;
      const pid_t got = waitpid(pids[i], &status, WNOHANG);
      if (got == 0) {
        continue;  // spurious
      }
      ExitCallback on_exit;
      {
        absl::MutexLock lock(&mu_);
        auto it = watched_.find(pids[i]);
        on_exit = std::move(it->second.on_exit);
        watched_.erase(it);
      }
      if (got < 0) {
        spdlog::error("child reaper: waitpid({}): {}", pids[i], std::strerror(errno));
        status = W_EXITCODE(255, 0);
      }
      on_exit(status);
    }
    ReapOrphans();
  }
}

ChildReaper::SpawnGuard::SpawnGuard(ChildReaper* reaper) : reaper_(reaper) {
  absl::MutexLock lock(&reaper_->mu_);
  ++reaper_->spawns_in_progress_;
}

ChildReaper::SpawnGuard::~SpawnGuard() {
  absl::MutexLock lock(&reaper_->mu_);
  --reaper_->spawns_in_progress_;
}

void ChildReaper::ReapOrphans() {
  // mu_ is held throughout so no fork can start between looking and reaping.
  absl::MutexLock lock(&mu_);
  if (spawns_in_progress_ > 0) {
    return;
  }
  while (true) {
    siginfo_t info;
    std::memset(&info, 0, sizeof(info));
    // WNOWAIT: look without reaping, so a watched child is left for its pidfd above.
    if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == 0) {
      return;
    }
    if (watched_.contains(info.si_pid)) {
      return;  // its pidfd is readable: the next poll handles it
    }
    waitpid(info.si_pid, nullptr, WNOHANG);
  }
}

}  // namespace canopy::agent::runtime
