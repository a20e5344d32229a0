#include "agent/runtime/spawn.h"

#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "agent/runtime/spawn_failure.h"
#include "agent/runtime/spawn_report.h"
#include "common/os/unique_fd.h"

namespace canopy::agent::runtime {
namespace {

using Stage = SpawnStage;
using ChildError = SpawnFailure;

std::vector<char*> CStrings(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (const std::string& s : strings) {
    out.push_back(const_cast<char*>(s.c_str()));
  }
  out.push_back(nullptr);
  return out;
}

// The child side for a request with a wrapper: it execs the wrapper as root, with the
// report pipe on kWrapperReportFd and the agent's log on kWrapperLogFd; the wrapper does the
// rest (spawn_report.h). Async-signal-safe calls only.
template <typename Fail>
// `fds`: the environment memfd, then SpawnRequest::wrapper_fds; `extra` has room for as many.
[[noreturn]] void ExecWrapper(const int* fds, size_t nfds, char* const* wrapper_argv, int report_fd,
                              int log, int* extra, Fail fail) {
  // Out of the way first, so that none lands on another's target.
  const int first_free = kWrapperEnvFd + static_cast<int>(nfds);
  const int report = fcntl(report_fd, F_DUPFD_CLOEXEC, first_free);
  if (report < 0 || log < 0) {
    fail(Stage::kStdio);
  }
  for (size_t i = 0; i < nfds; ++i) {
    extra[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, first_free);
    if (extra[i] < 0) {
      fail(Stage::kStdio);
    }
  }
  if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
    for (int fd = 3; fd < 4096; ++fd) {
      fcntl(fd, F_SETFD, FD_CLOEXEC);
    }
  }
  // dup2 leaves the copies without close-on-exec: the wrapper inherits exactly these two.
  if (dup2(report, kWrapperReportFd) < 0 || dup2(log, kWrapperLogFd) < 0) {
    fail(Stage::kStdio);
  }
  for (size_t i = 0; i < nfds; ++i) {
    if (dup2(extra[i], kWrapperEnvFd + static_cast<int>(i)) < 0) {
      fail(Stage::kStdio);
    }
  }
  // Only a fixed PATH: the user's variables (LD_PRELOAD, ...) must not reach a root loader.
  char path[sizeof(kWrapperPath)];
  for (size_t i = 0; i < sizeof(kWrapperPath); ++i) {
    path[i] = kWrapperPath[i];
  }
  char* const envp[] = {path, nullptr};
  execve(wrapper_argv[0], wrapper_argv, envp);
  fail(Stage::kExec);
  _exit(127);
}

// Why a child that shares the agent's memory failed, written there by the child before it exits.
struct SharedFailure {
  ChildError error;
  bool failed;
};

// What ExecChild needs, prepared by Spawn before the child starts.
struct ChildArgs {
  const SpawnRequest* request;
  char* const* argv;
  char* const* envp;
  const gid_t* groups;
  size_t ngroups;
  bool stderr_is_stdout;
  // Where the child says why it failed: `failure` when it shares the agent's memory and execs no
  // wrapper (the parent reads it once the child has left its memory, as glibc's posix_spawn
  // does), otherwise the report pipe, which a wrapper also writes after its own exec.
  SharedFailure* failure;
  int report_fd;
  char* const* wrapper_argv;  // null without a wrapper
  // Where the child writes its pid in decimal, NUL-terminated (room for kPidDigits + 1), in the
  // envp entry SpawnRequest::pid_variable made; null when there is none.
  char* pid_digits;
  const int* wrapper_fds;
  size_t wrapper_nfds;
  int* wrapper_extra;
  // > 0: the child starts on the agent's own descriptor table (CLONE_FILES) and first takes a
  // copy of the descriptors below this number only (every one it uses is), leaving out the
  // reaper's pidfds above it.
  int copy_fds_below;
};

// Digits enough for any pid (pid_max is at most 2^22).
constexpr size_t kPidDigits = 10;

// `pid` in decimal at `out` (kPidDigits + 1 bytes), NUL-terminated: async-signal-safe.
void WritePid(pid_t pid, char* out) {
  char reversed[kPidDigits];
  size_t n = 0;
  auto value = static_cast<uint32_t>(pid);
  do {
    reversed[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0 && n < kPidDigits);
  for (size_t i = 0; i < n; ++i) {
    out[i] = reversed[n - 1 - i];
  }
  out[n] = '\0';
}

// The child side (StartChild): async-signal-safe calls only, none that touches state the agent's
// threads share (locks, the heap, errno aside). Never returns.
[[noreturn]] void ExecChild(const ChildArgs& a) {
  const SpawnRequest& request = *a.request;
  const int report_fd = a.report_fd;
  SharedFailure* const failure = a.failure;
  auto fail = [report_fd, failure](Stage stage) {
    const ChildError e{stage, errno};
    if (failure != nullptr) {
      // The parent reads these once it resumes, which CLONE_VFORK holds off until this child's
      // _exit (or exec) has released the memory: that hand-over orders them. The fence only
      // keeps the compiler from sinking the stores past _exit.
      failure->error = e;
      failure->failed = true;
      std::atomic_signal_fence(std::memory_order_seq_cst);
    } else {
      (void)!write(report_fd, &e, sizeof(e));
    }
    _exit(127);
  };
  // Before anything else touches a descriptor: until then the table is the agent's, which its
  // other threads go on changing. CLOSE_RANGE_UNSHARE without CLOSE_RANGE_CLOEXEC copies only
  // the descriptors below the closed range (Linux 5.9). After a fork (sanitizer builds) the
  // table is already a copy, and this closes the pidfds in it. Where close_range is missing
  // (Linux 5.4-5.8) or filtered (an old seccomp profile), a whole copy as before.
  if (a.copy_fds_below > 0 &&
      close_range(static_cast<unsigned>(a.copy_fds_below), ~0U, CLOSE_RANGE_UNSHARE) != 0 &&
      syscall(SYS_unshare, CLONE_FILES) != 0) {
    fail(Stage::kStdio);
  }
  // The agent blocks SIGINT/SIGTERM (its main thread waits for them) and gRPC ignores SIGPIPE:
  // both would be inherited across exec. Handlers go first, while every signal is still blocked
  // (StartChild): a handler of the agent's must never run here, on the agent's memory.
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof(dfl));
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) {
    sigaction(sig, &dfl, nullptr);  // fails harmlessly for SIGKILL, SIGSTOP and RT internals
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int fd : request.cgroup_procs_fds) {
    if (write(fd, "0", 1) != 1) {
      fail(Stage::kCgroup);
    }
  }
  // The wrapper's log: the agent's stderr unless named, kept before stdio replaces it.
  const int wrapper_log =
      a.wrapper_argv == nullptr
          ? -1
          : fcntl(request.wrapper_log_fd >= 0 ? request.wrapper_log_fd : STDERR_FILENO,
                  F_DUPFD_CLOEXEC, kWrapperEnvFd + static_cast<int>(a.wrapper_nfds));
  if (setsid() < 0) {
    fail(Stage::kSetsid);
  }
  // Before the wrapper, which opens the stdio files in its place, and kept across exec.
  if (request.umask.has_value()) {
    umask(*request.umask);
  }
  // Borrowed descriptors now; files to open wait until we are the user, in the work dir.
  if ((request.stdin_path.empty() && dup2(request.stdin_fd, STDIN_FILENO) < 0) ||
      (request.stdout_path.empty() && dup2(request.stdout_fd, STDOUT_FILENO) < 0) ||
      (request.stderr_path.empty() && dup2(request.stderr_fd, STDERR_FILENO) < 0)) {
    fail(Stage::kStdio);
  }
  if (a.wrapper_argv != nullptr) {
    ExecWrapper(a.wrapper_fds, a.wrapper_nfds, a.wrapper_argv, report_fd, wrapper_log,
                a.wrapper_extra, fail);
  }
  if (request.credentials.has_value()) {
    // Raw system calls, not glibc's setuid() and kin: those apply the change to every thread of
    // a threaded process, which for a child sharing the agent's memory would be the agent's own
    // threads. The kernel's calls change this task only. Groups first: after setuid we may no
    // longer change them.
    const uid_t uid = request.credentials->uid;
    const gid_t gid = request.credentials->gid;
    if (syscall(SYS_setgroups, a.ngroups, a.groups) != 0) {
      fail(Stage::kSetgroups);
    }
    if (syscall(SYS_setresgid, gid, gid, gid) != 0) {
      fail(Stage::kSetgid);
    }
    if (syscall(SYS_setresuid, uid, uid, uid) != 0) {
      fail(Stage::kSetuid);
    }
  }
  // As the user, so a directory the user may not enter fails the launch.
  if (chdir(request.work_dir.c_str()) != 0) {
    fail(Stage::kChdir);
  }
  // Stdio files, opened with the user's rights. O_NONBLOCK so that a FIFO (or a device) cannot
  // hold up the open, and with it the agent, which waits for this child to exec.
  if (!request.stdin_path.empty() &&
      !OpenOnto(request.stdin_path.c_str(), O_RDONLY, STDIN_FILENO)) {
    fail(Stage::kOpenInput);
  }
  if (!request.stdout_path.empty() &&
      !OpenOnto(request.stdout_path.c_str(), O_WRONLY | O_CREAT | request.stdout_flags,
                STDOUT_FILENO)) {
    fail(Stage::kOpenOutput);
  }
  if (!request.stderr_path.empty()) {
    if (a.stderr_is_stdout) {
      if (dup2(STDOUT_FILENO, STDERR_FILENO) < 0) {
        fail(Stage::kStdio);
      }
    } else if (!OpenOnto(request.stderr_path.c_str(), O_WRONLY | O_CREAT | request.stderr_flags,
                         STDERR_FILENO)) {
      fail(Stage::kOpenError);
    }
  }
  // Every other inherited descriptor closes at exec, the report pipe (already close-on-exec)
  // included, which tells the parent that exec succeeded (a child sharing the agent's memory has
  // no pipe: the parent resumes at its exec or _exit, and finds `failure` set in the latter).
  if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
    for (int fd = 3; fd < 4096; ++fd) {
      if (fd != report_fd) {
        fcntl(fd, F_SETFD, FD_CLOEXEC);
      }
    }
  }
  if (a.pid_digits != nullptr) {
    WritePid(getpid(), a.pid_digits);  // a system call: this is the child's own pid
  }
  execve(a.argv[0], a.argv, a.envp);
  // ETXTBSY: some process still holds the program open for writing. The agent writes batch
  // scripts itself, and a fork in another of its threads can inherit that descriptor for the
  // moment until its own exec closes it (close-on-exec does not help before then). That moment
  // passes: retry for up to 2 s instead of failing the job.
  for (int attempt = 0; attempt < 100 && errno == ETXTBSY; ++attempt) {
    const timespec pause{0, 20'000'000};
    nanosleep(&pause, nullptr);
    execve(a.argv[0], a.argv, a.envp);
  }
  fail(Stage::kExec);
  _exit(127);  // not reached
}

int ChildEntry(void* arg) { ExecChild(*static_cast<const ChildArgs*>(arg)); }

// ThreadSanitizer's runtime assumes fork(): it aborts in its clone interceptor. Those builds (and
// MemorySanitizer's, untried) fork; AddressSanitizer builds take the clone path, which the tests
// then run under it. GCC says so with __SANITIZE_THREAD__, clang
// (the sanitizer builds' compiler) only through __has_feature.
#if defined(__SANITIZE_THREAD__)
#define CANOPY_SPAWN_WITH_FORK 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define CANOPY_SPAWN_WITH_FORK 1
#endif
#endif
#ifdef CANOPY_SPAWN_WITH_FORK
constexpr bool kShareMemoryWithChild = false;
#else
constexpr bool kShareMemoryWithChild = true;
#endif

// A stack for a child that shares the agent's memory, taken from a pool and put back when done:
// the child no longer uses it once clone has returned (it has exec'ed or exited). Reused rather
// than unmapped, since every munmap in a threaded process flushes the TLB of every CPU.
class ChildStack {
 public:
  static constexpr size_t kSize = 256 * 1024;
  ChildStack() {
    {
      absl::MutexLock lock(&mu_);
      if (!free_->empty()) {
        base_ = free_->back();
        free_->pop_back();
        return;
      }
    }
    void* mapped = mmap(nullptr, kSize, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    base_ = mapped == MAP_FAILED ? nullptr : mapped;
  }
  ~ChildStack() {
    if (base_ != nullptr) {
      absl::MutexLock lock(&mu_);
      free_->push_back(base_);
    }
  }
  ChildStack(const ChildStack&) = delete;
  ChildStack& operator=(const ChildStack&) = delete;

  // Where the stack starts (it grows down); null if none could be mapped.
  void* top() const { return base_ == nullptr ? nullptr : static_cast<char*>(base_) + kSize; }

 private:
  static absl::Mutex mu_;
  static std::vector<void*>* const free_;  // as many as spawns ever ran at once
  void* base_;
};
absl::Mutex ChildStack::mu_(absl::kConstInit);
std::vector<void*>* const ChildStack::free_ = new std::vector<void*>();

// Starts the child: the parent's pid of it, or -1 with errno. The child shares the agent's
// memory until its exec (CLONE_VM | CLONE_VFORK, as posix_spawn does), and this thread waits
// until then. fork() instead copied the agent's page tables for every job and then took a
// copy-on-write fault, with a TLB flush on every CPU, for each page the agent's threads wrote
// before the child's exec: most of the agent's time when it launched many short jobs
// (docs/performance.md). Every signal is blocked meanwhile, so none is handled in the child.
// With args.copy_fds_below it shares the agent's descriptor table too (CLONE_FILES) until its
// first act copies the part it needs: a copy made at clone took every pidfd of the reaper along,
// for the exec to close again.
pid_t StartChild(ChildArgs& args) {
  if (!kShareMemoryWithChild) {
    const pid_t pid = fork();
    if (pid == 0) {
      ChildEntry(&args);
    }
    return pid;
  }
  ChildStack stack;
  if (stack.top() == nullptr) {
    return -1;
  }
  sigset_t all;
  sigset_t old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  const int share_fds = args.copy_fds_below > 0 ? CLONE_FILES : 0;
  const pid_t pid =
      clone(ChildEntry, stack.top(), CLONE_VM | CLONE_VFORK | share_fds | SIGCHLD, &args);
  const int clone_errno = errno;
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  errno = clone_errno;
  return pid;
}

// The wrapper's command line: its own words, then what the child would have done itself (whom
// to become, where, with which stdio files), then "--" and the task's argv.
std::vector<std::string> WrapperArgv(const SpawnRequest& request) {
  if (request.wrapper.empty()) {
    return {};
  }
  std::vector<std::string> out = request.wrapper;
  if (request.credentials.has_value()) {
    out.push_back(absl::StrCat("--uid=", request.credentials->uid));
    out.push_back(absl::StrCat("--gid=", request.credentials->gid));
    out.push_back(
        absl::StrCat("--groups=", absl::StrJoin(request.credentials->supplementary_gids, ",")));
  }
  out.push_back(absl::StrCat("--work-dir=", request.work_dir));
  auto stdio = [&](const char* name, const std::string& path, int flags) {
    if (!path.empty()) {
      out.push_back(absl::StrCat("--", name, "=", path));
      if (flags != 0) {
        out.push_back(
            absl::StrCat("--", name, "-flags=", (flags & O_APPEND) != 0 ? "append" : "truncate"));
      }
    }
  };
  stdio("stdin", request.stdin_path, 0);
  stdio("stdout", request.stdout_path, request.stdout_flags);
  // A stderr path equal to stdout's shares stdout's open file, as the child does.
  stdio("stderr", request.stderr_path == request.stdout_path ? "" : request.stderr_path,
        request.stderr_flags);
  if (!request.stderr_path.empty() && request.stderr_path == request.stdout_path) {
    out.push_back("--stderr-to-stdout");
  }
  out.push_back("--");
  out.insert(out.end(), request.argv.begin(), request.argv.end());
  return out;
}

}  // namespace

std::vector<os::UniqueFd> OpenForWriting(const std::vector<std::string>& paths) {
  std::vector<os::UniqueFd> fds;
  for (const std::string& path : paths) {
    os::UniqueFd fd(open(path.c_str(), O_WRONLY | O_CLOEXEC));
    if (fd.valid()) {
      fds.push_back(std::move(fd));
    }
  }
  return fds;
}

std::vector<int> Borrow(const std::vector<os::UniqueFd>& fds) {
  std::vector<int> borrowed;
  for (const os::UniqueFd& fd : fds) {
    borrowed.push_back(fd.get());
  }
  return borrowed;
}

absl::StatusOr<pid_t> Spawn(const SpawnRequest& request, ChildReaper& reaper,
                            ChildReaper::ExitCallback on_exit) {
  if (request.argv.empty()) {
    return absl::InvalidArgumentError("no program to run");
  }
  const std::vector<char*> argv = CStrings(request.argv);
  std::vector<char*> envp = CStrings(request.env);
  // The pid variable's entry, whose digits the child fills in (a wrapper sets its own).
  std::string pid_entry;
  if (!request.pid_variable.empty() && request.wrapper.empty()) {
    const std::string prefix = absl::StrCat(request.pid_variable, "=");
    envp.pop_back();  // the terminating null
    envp.erase(std::remove_if(envp.begin(), envp.end(),
                              [&prefix](const char* entry) {
                                return std::strncmp(entry, prefix.data(), prefix.size()) == 0;
                              }),
               envp.end());
    pid_entry = prefix;
    pid_entry.resize(prefix.size() + kPidDigits + 1, '\0');
    envp.push_back(pid_entry.data());
    envp.push_back(nullptr);
  }
  const std::vector<std::string> wrapper_strings = WrapperArgv(request);
  const std::vector<char*> wrapper_argv = CStrings(wrapper_strings);
  // The wrapper gets the task's environment in a memfd, never as its own (spawn_report.h).
  os::UniqueFd env_memfd;
  std::vector<int> wrapper_fds;
  if (!request.wrapper.empty()) {
    env_memfd.reset(memfd_create("canopy-task-env", MFD_CLOEXEC));
    if (!env_memfd.valid()) {
      return absl::InternalError(absl::StrCat("memfd_create: ", std::strerror(errno)));
    }
    std::string packed;
    for (const std::string& entry : request.env) {
      packed.append(entry).push_back('\0');
    }
    for (size_t done = 0; done < packed.size();) {
      const ssize_t n = write(env_memfd.get(), packed.data() + done, packed.size() - done);
      if (n <= 0) {
        return absl::InternalError(
            absl::StrCat("writing the task's environment: ", std::strerror(errno)));
      }
      done += static_cast<size_t>(n);
    }
    lseek(env_memfd.get(), 0, SEEK_SET);
    wrapper_fds.push_back(env_memfd.get());
    wrapper_fds.insert(wrapper_fds.end(), request.wrapper_fds.begin(), request.wrapper_fds.end());
  }
  std::vector<int> wrapper_extra(wrapper_fds.size() + 1);  // scratch for the child
  std::vector<gid_t> groups;
  if (request.credentials.has_value()) {
    groups = request.credentials->supplementary_gids;
  }
  // A child that shares this memory and execs no wrapper reports a failure in `shared`; only
  // the others need the report pipe (a pipe, a read and two closes fewer per job).
  const bool report_in_memory = kShareMemoryWithChild && request.wrapper.empty();
  SharedFailure shared{};
  os::UniqueFd report_read;
  os::UniqueFd report_write;
  if (!report_in_memory) {
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
      return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
    }
    report_read.reset(pipe_fds[0]);
    report_write.reset(pipe_fds[1]);
  }

  const bool stderr_is_stdout =
      !request.stderr_path.empty() && request.stderr_path == request.stdout_path;
  // Every descriptor the child uses must be below the reaper's pidfds for it to leave those out.
  std::vector<int> used;
  if (report_write.valid()) {
    used.push_back(report_write.get());
  }
  used.insert(used.end(), request.cgroup_procs_fds.begin(), request.cgroup_procs_fds.end());
  used.insert(used.end(), wrapper_fds.begin(), wrapper_fds.end());
  for (const auto& [path, fd] : {std::pair{&request.stdin_path, request.stdin_fd},
                                 std::pair{&request.stdout_path, request.stdout_fd},
                                 std::pair{&request.stderr_path, request.stderr_fd}}) {
    if (path->empty()) {
      used.push_back(fd);
    }
  }
  if (!request.wrapper.empty()) {
    used.push_back(request.wrapper_log_fd);
  }
  int copy_fds_below = reaper.pidfd_floor();
  for (int fd : used) {
    copy_fds_below = fd < copy_fds_below ? copy_fds_below : 0;
  }
  ChildReaper::SpawnGuard guard(&reaper);
  ChildArgs args{&request,
                 argv.data(),
                 envp.data(),
                 groups.data(),
                 groups.size(),
                 stderr_is_stdout,
                 report_in_memory ? &shared : nullptr,
                 report_write.get(),
                 request.wrapper.empty() ? nullptr : wrapper_argv.data(),
                 pid_entry.empty() ? nullptr : pid_entry.data() + request.pid_variable.size() + 1,
                 wrapper_fds.data(),
                 wrapper_fds.size(),
                 wrapper_extra.data(),
                 copy_fds_below};
  const pid_t pid = StartChild(args);
  if (pid < 0) {
    return absl::InternalError(absl::StrCat("starting a child: ", std::strerror(errno)));
  }
  report_write.reset();
  // Until EOF: a SpawnFailure, and after a kSpank one the wrapper's message. A child sharing this
  // memory has exec'ed or exited by now (CLONE_VFORK), and wrote in `shared` if it failed.
  std::string report;
  if (shared.failed) {
    report.assign(reinterpret_cast<const char*>(&shared.error), sizeof(shared.error));
  }
  char buffer[4096];
  ssize_t n;
  while (report_read.valid() && (n = read(report_read.get(), buffer, sizeof(buffer))) != 0) {
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      break;
    }
    report.append(buffer, static_cast<size_t>(n));
  }
  if (report.size() >= sizeof(ChildError)) {
    ChildError error;
    std::memcpy(&error, report.data(), sizeof(error));
    waitpid(pid, nullptr, 0);  // it _exits right after writing
    std::string why = DescribeSpawnFailure(request, error);
    if (error.stage == Stage::kSpank && report.size() > sizeof(error)) {
      why = report.substr(sizeof(error));
    }
    return IsNodeSideFailure(request, error) ? absl::UnavailableError(why)
                                             : absl::FailedPreconditionError(why);
  }
  // No failure: the report pipe closed at a successful exec, or the child sharing this memory
  // exec'ed without setting `shared`.
  if (absl::Status watched = reaper.Watch(pid, std::move(on_exit)); !watched.ok()) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    return watched;
  }
  return pid;
}

absl::StatusOr<std::string> ResolveProgram(const std::string& program, const std::string& path_env,
                                           const std::string& work_dir) {
  if (program.empty()) {
    return absl::InvalidArgumentError("empty program name");
  }
  if (program.find('/') != std::string::npos) {
    return program;
  }
  const std::string path = path_env.empty() ? "/usr/bin:/bin" : path_env;
  for (absl::string_view dir : absl::StrSplit(path, ':')) {
    // An empty PATH entry means the current directory, which for the task is its work dir.
    const std::string base = dir.empty() ? work_dir : std::string(dir);
    const std::string candidate = absl::StrCat(base, "/", program);
    if (access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return absl::NotFoundError(absl::StrCat(program, ": command not found"));
}

}  // namespace canopy::agent::runtime
