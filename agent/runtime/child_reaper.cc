#include "agent/runtime/child_reaper.h"

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "common/os/thread_name.h"
#include "spdlog/spdlog.h"

namespace canopy::agent::runtime {
namespace {

// glibc 2.36's <sys/pidfd.h> declares pidfd_open without extern "C"; call the kernel directly.
int PidfdOpen(pid_t pid) { return static_cast<int>(syscall(SYS_pidfd_open, pid, 0)); }

// Orphans (whose exits wake nobody) are looked for at least this often, and at most this often
// while watched children keep exiting (a look scans every child of the agent).
constexpr int kOrphanSweepMs = 200;
constexpr std::chrono::milliseconds kMinOrphanSweepGap(10);
// waitid's P_PIDFD (Linux 5.4), which glibc 2.36's <sys/wait.h> does not name.
constexpr int kIdTypePidfd = 3;
// A sweep put off by a spawn in progress is tried again this soon.
constexpr int kOrphanRetryMs = 10;
// epoll data of the wake eventfd; a child's is its pid, never 0.
constexpr uint64_t kWakeKey = 0;
// Where pidfds go, when the descriptor limit allows: far above what the agent opens otherwise
// (some 70 descriptors, plus a few per launch in progress), and a table of this size is small.
constexpr rlim_t kPidfdFloor = 4096;

int PidfdFloor() {
  struct rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) {
    return 0;
  }
  const rlim_t floor = std::min(kPidfdFloor, limit.rlim_cur / 2);
  return floor < 256 ? 0 : static_cast<int>(floor);
}

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
  return std::unique_ptr<ChildReaper>(
      new ChildReaper(std::move(epoll), std::move(wake), PidfdFloor()));
}

ChildReaper::ChildReaper(os::UniqueFd epoll, os::UniqueFd wake, int pidfd_floor)
    : epoll_(std::move(epoll)), wake_(std::move(wake)), pidfd_floor_(pidfd_floor) {
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
  if (pidfd_floor_ > 0) {
    // Out of the range children copy; where the range above is full, the low number serves.
    if (const int high = fcntl(pidfd.get(), F_DUPFD_CLOEXEC, pidfd_floor_); high >= 0) {
      pidfd.reset(high);
    }
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
  os::NameThisThread("child reaper");
  constexpr int kMaxEvents = 64;
  epoll_event events[kMaxEvents];
  auto last_sweep = std::chrono::steady_clock::now() - kMinOrphanSweepGap;  // sweep at once
  bool sweep_again_soon = false;
  while (true) {
    const int n = epoll_wait(epoll_.get(), events, kMaxEvents,
                             sweep_again_soon ? kOrphanRetryMs : kOrphanSweepMs);
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
    if (const auto now = std::chrono::steady_clock::now();
        n <= 0 || now - last_sweep >= kMinOrphanSweepGap) {
      // Put off while a spawn is in progress: look again soon rather than at the next exit.
      sweep_again_soon = !ReapOrphans();
      last_sweep = now;
    }
  }
}

void ChildReaper::Reap(pid_t pid) {
  Watched watched;
  {
    // Out of watched_ (and the set) before the child is reaped: once reaped, its pid may be
    // given to a new child, whose Watch must find the place free. Out of the set before the pidfd
    // closes: a child between its clone and its exec may hold a copy of the descriptor (one that
    // took the whole table: a fork, or a pidfd below the floor), and epoll forgets a file only
    // once every copy is closed.
    absl::MutexLock lock(&mu_);
    auto it = watched_.find(pid);
    if (it == watched_.end()) {
      return;
    }
    (void)epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, it->second.pidfd.get(), nullptr);
    watched = std::move(it->second);
    watched_.erase(it);
  }
  // Through the pidfd: this very process, whatever has happened to its pid meanwhile.
  siginfo_t info;
  std::memset(&info, 0, sizeof(info));
  int status = 0;
  if (waitid(static_cast<idtype_t>(kIdTypePidfd), static_cast<id_t>(watched.pidfd.get()), &info,
             WEXITED) != 0) {
    spdlog::error("child reaper: waitid(pidfd of {}): {}", pid, std::strerror(errno));
    status = W_EXITCODE(255, 0);
  } else if (info.si_code == CLD_EXITED) {
    status = W_EXITCODE(info.si_status, 0);
  } else {
    // CLD_KILLED or CLD_DUMPED: killed by the signal si_status.
    status = W_EXITCODE(0, info.si_status) | (info.si_code == CLD_DUMPED ? WCOREFLAG : 0);
  }
  watched.on_exit(status);
}

ChildReaper::SpawnGuard::SpawnGuard(ChildReaper* reaper) : reaper_(reaper) {
  absl::MutexLock lock(&reaper_->mu_);
  ++reaper_->spawns_in_progress_;
}

ChildReaper::SpawnGuard::~SpawnGuard() {
  absl::MutexLock lock(&reaper_->mu_);
  --reaper_->spawns_in_progress_;
}

bool ChildReaper::ReapOrphans() {
  // mu_ is held throughout so no fork can start between looking and reaping.
  absl::MutexLock lock(&mu_);
  if (spawns_in_progress_ > 0) {
    return false;
  }
  while (true) {
    siginfo_t info;
    std::memset(&info, 0, sizeof(info));
    // WNOWAIT: look without reaping, so a watched child is left for its pidfd above.
    if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == 0) {
      return true;
    }
    if (watched_.contains(info.si_pid)) {
      return true;  // its pidfd is readable: the next turn reaps it, and then looks again
    }
    waitpid(info.si_pid, nullptr, WNOHANG);
  }
}

}  // namespace canopy::agent::runtime
