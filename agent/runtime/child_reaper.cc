#include "agent/runtime/child_reaper.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "spdlog/spdlog.h"

namespace canopy::agent::runtime {
namespace {

// glibc 2.36's <sys/pidfd.h> declares pidfd_open without extern "C"; call the kernel directly.
int PidfdOpen(pid_t pid) { return static_cast<int>(syscall(SYS_pidfd_open, pid, 0)); }

// Orphans (whose exits wake nobody) are looked for at least this often, and at most this often
// while watched children keep exiting (a look scans every child of the agent).
constexpr int kOrphanSweepMs = 200;
constexpr absl::Duration kMinOrphanSweepGap = absl::Milliseconds(10);
// epoll data of the wake eventfd; a child's is its pid, never 0.
constexpr uint64_t kWakeKey = 0;

}  // namespace

absl::StatusOr<std::unique_ptr<ChildReaper>> ChildReaper::Create() {
  os::UniqueFd epoll(epoll_create1(EPOLL_CLOEXEC));
  if (!epoll.valid()) {
    return absl::InternalError(absl::StrCat("epoll_create1: ", std::strerror(errno)));
  }
  os::UniqueFd wake(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!wake.valid()) {
    return absl::InternalError(absl::StrCat("eventfd: ", std::strerror(errno)));
  }
  epoll_event event{};
  event.events = EPOLLIN;
  event.data.u64 = kWakeKey;
  if (epoll_ctl(epoll.get(), EPOLL_CTL_ADD, wake.get(), &event) != 0) {
    return absl::InternalError(absl::StrCat("epoll_ctl: ", std::strerror(errno)));
  }
  if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
    spdlog::warn("PR_SET_CHILD_SUBREAPER: {}; orphaned job processes go to init",
                 std::strerror(errno));
  }
  return std::unique_ptr<ChildReaper>(new ChildReaper(std::move(epoll), std::move(wake)));
}

ChildReaper::ChildReaper(os::UniqueFd epoll, os::UniqueFd wake)
    : epoll_(std::move(epoll)), wake_(std::move(wake)) {
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
  // A child that already exited is a zombie until reaped, so its pidfd opens fine (and is
  // readable at once).
  os::UniqueFd pidfd(PidfdOpen(pid));
  if (!pidfd.valid()) {
    return absl::InternalError(absl::StrCat("pidfd_open(", pid, "): ", std::strerror(errno)));
  }
  epoll_event event{};
  event.events = EPOLLIN;
  event.data.u64 = static_cast<uint64_t>(pid);
  absl::MutexLock lock(&mu_);
  // Added under mu_: the reaper, woken by this pidfd, finds the child in watched_.
  if (epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, pidfd.get(), &event) != 0) {
    return absl::InternalError(
        absl::StrCat("epoll_ctl(pidfd of ", pid, "): ", std::strerror(errno)));
  }
  watched_[pid] = Watched{std::move(pidfd), std::move(on_exit)};
  return absl::OkStatus();
}

void ChildReaper::Run() {
  constexpr int kMaxEvents = 64;
  epoll_event events[kMaxEvents];
  absl::Time last_sweep = absl::InfinitePast();
  while (true) {
    const int n = epoll_wait(epoll_.get(), events, kMaxEvents, kOrphanSweepMs);
    if (n < 0 && errno != EINTR) {
      spdlog::error("child reaper: epoll_wait: {}", std::strerror(errno));
      return;
    }
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) {
        return;
      }
    }
    for (int i = 0; i < n; ++i) {
      if (events[i].data.u64 == kWakeKey) {
        uint64_t count;
        (void)!read(wake_.get(), &count, sizeof(count));
        continue;
      }
      Reap(static_cast<pid_t>(events[i].data.u64));
    }
    if (const absl::Time now = absl::Now(); n <= 0 || now - last_sweep >= kMinOrphanSweepGap) {
      ReapOrphans();
      last_sweep = now;
    }
  }
}

void ChildReaper::Reap(pid_t pid) {
  int status = 0;
  const pid_t got = waitpid(pid, &status, WNOHANG);
  if (got == 0) {
    return;  // spurious
  }
  ExitCallback on_exit;
  {
    absl::MutexLock lock(&mu_);
    auto it = watched_.find(pid);
    if (it == watched_.end()) {
      return;
    }
    // Out of the set before the pidfd closes: a job's child, between its clone and its exec,
    // holds a copy of the descriptor, and epoll forgets a file only once every copy is closed.
    (void)epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, it->second.pidfd.get(), nullptr);
    on_exit = std::move(it->second.on_exit);
    watched_.erase(it);
  }
  if (got < 0) {
    spdlog::error("child reaper: waitpid({}): {}", pid, std::strerror(errno));
    status = W_EXITCODE(255, 0);
  }
  on_exit(status);
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
