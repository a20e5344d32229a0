#include "agent/runtime/cgroup.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "common/log/absl_format.h"
#include "spdlog/spdlog.h"

namespace canopy::agent::runtime {
namespace {

constexpr long kCgroup2SuperMagic = 0x63677270;

// Everything left to read from `fd` ("" if it is not open).
std::string ReadAll(const os::UniqueFd& fd) {
  std::string text;
  char buffer[4096];
  ssize_t n;
  while (fd.valid() &&
         ((n = read(fd.get(), buffer, sizeof(buffer))) > 0 || (n < 0 && errno == EINTR))) {
    if (n > 0) {
      text.append(buffer, static_cast<size_t>(n));
    }
  }
  return text;
}

std::string ReadWhole(const std::string& path) {
  return ReadAll(os::UniqueFd(open(path.c_str(), O_RDONLY | O_CLOEXEC)));
}

// This process's cgroup in the unified hierarchy: its line in /proc/self/cgroup is "0::<path>".
std::string OwnCgroup() {
  std::string own;
  for (absl::string_view line : absl::StrSplit(ReadWhole("/proc/self/cgroup"), '\n')) {
    if (absl::ConsumePrefix(&line, "0::")) {
      own = std::string(line);
    }
  }
  return own;
}

bool IsCgroup2(const std::string& dir) {
  struct statfs fs;
  return statfs(dir.c_str(), &fs) == 0 && static_cast<long>(fs.f_type) == kCgroup2SuperMagic;
}

}  // namespace

absl::StatusOr<std::string> Cgroup::FindDelegatedRoot() {
  std::string mount;
  for (const char* candidate : {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"}) {
    if (IsCgroup2(candidate)) {
      mount = candidate;
      break;
    }
  }
  if (mount.empty()) {
    return absl::UnavailableError("no cgroup v2 hierarchy at /sys/fs/cgroup");
  }
  const std::string own = OwnCgroup();
  const std::string root = own == "/" ? mount : absl::StrCat(mount, own);
  if (access(root.c_str(), W_OK) != 0 ||
      access(absl::StrCat(root, "/cgroup.procs").c_str(), W_OK) != 0) {
    return absl::UnavailableError(
        absl::StrCat(root, " is not writable (no delegated cgroup subtree)"));
  }
  return root;
}

absl::StatusOr<std::unique_ptr<Cgroup>> Cgroup::Create(const std::string& parent,
                                                       const std::string& name) {
  std::string path = absl::StrCat(parent, "/", name);
  if (mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
    return absl::InternalError(absl::StrCat("mkdir ", path, ": ", std::strerror(errno)));
  }
  auto cgroup = std::unique_ptr<Cgroup>(new Cgroup(std::move(path)));
  os::UniqueFd dir(open(cgroup->path_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.valid()) {  // without it, the cgroups made in this one use whole paths
    cgroup->dir_ = std::make_shared<const os::UniqueFd>(std::move(dir));
  }
  return cgroup;
}

absl::StatusOr<std::unique_ptr<Cgroup>> Cgroup::Create(const Cgroup& parent,
                                                       const std::string& name) {
  if (parent.dir_ == nullptr) {
    return Create(parent.path_, name);
  }
  if (mkdirat(parent.dir_->get(), name.c_str(), 0755) != 0 && errno != EEXIST) {
    return absl::InternalError(
        absl::StrCat("mkdir ", parent.path_, "/", name, ": ", std::strerror(errno)));
  }
  auto cgroup = std::unique_ptr<Cgroup>(new Cgroup(absl::StrCat(parent.path_, "/", name)));
  cgroup->parent_dir_ = parent.dir_;
  cgroup->name_ = name;
  return cgroup;
}

Cgroup::~Cgroup() {
  const int removed = parent_dir_ != nullptr
                          ? unlinkat(parent_dir_->get(), name_.c_str(), AT_REMOVEDIR)
                          : rmdir(path_.c_str());
  if (removed != 0 && errno != ENOENT) {
    spdlog::warn("rmdir {}: {}", path_, std::strerror(errno));
  }
}

os::UniqueFd Cgroup::OpenFile(const char* file, int flags) const {
  if (parent_dir_ != nullptr) {
    return os::UniqueFd(
        openat(parent_dir_->get(), absl::StrCat(name_, "/", file).c_str(), flags | O_CLOEXEC));
  }
  if (dir_ != nullptr) {
    return os::UniqueFd(openat(dir_->get(), file, flags | O_CLOEXEC));
  }
  return os::UniqueFd(open(absl::StrCat(path_, "/", file).c_str(), flags | O_CLOEXEC));
}

std::string Cgroup::ReadFile(const char* file) const { return ReadAll(OpenFile(file, O_RDONLY)); }

absl::StatusOr<os::UniqueFd> Cgroup::OpenProcs() const {
  os::UniqueFd fd = OpenFile("cgroup.procs", O_WRONLY);
  if (!fd.valid()) {
    return absl::InternalError(
        absl::StrCat("open ", path_, "/cgroup.procs: ", std::strerror(errno)));
  }
  return fd;
}

void Cgroup::Signal(int signal) const {
  if (signal == SIGKILL) {
    os::UniqueFd fd = OpenFile("cgroup.kill", O_WRONLY);
    if (fd.valid() && write(fd.get(), "1", 1) == 1) {
      return;
    }
    // Kernels before 5.14 have no cgroup.kill: fall through to one pid at a time.
  }
  for (absl::string_view line : absl::StrSplit(ReadFile("cgroup.procs"), '\n', absl::SkipEmpty())) {
    int pid = 0;
    if (absl::SimpleAtoi(line, &pid) && pid > 0) {
      kill(pid, signal);
    }
  }
}

bool Cgroup::InHierarchyRoot() { return OwnCgroup() == "/"; }

absl::StatusOr<std::string> Cgroup::MoveSelfToLeaf(const std::string& root) {
  const std::string own = OwnCgroup();
  if (own == "/" || own.empty()) {
    return absl::FailedPreconditionError("the agent runs in the hierarchy's root cgroup");
  }
  const std::string self = absl::StrCat(getpid());
  for (absl::string_view pid :
       absl::StrSplit(ReadWhole(absl::StrCat(root, "/cgroup.procs")), '\n', absl::SkipEmpty())) {
    if (pid != self) {
      return absl::FailedPreconditionError(
          absl::StrCat("other processes share ", root, " (pid ", pid,
                       "); start the agent in a cgroup of its own (systemd: Delegate=yes)"));
    }
  }
  const std::string leaf = absl::StrCat(root, "/agent-", self);
  if (mkdir(leaf.c_str(), 0755) != 0 && errno != EEXIST) {
    return absl::InternalError(absl::StrCat("mkdir ", leaf, ": ", std::strerror(errno)));
  }
  // Writing the pid moves every thread of the process.
  os::UniqueFd procs(open(absl::StrCat(leaf, "/cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC));
  if (!procs.valid() || write(procs.get(), self.data(), self.size()) < 0) {
    const int err = errno;
    rmdir(leaf.c_str());
    return absl::InternalError(
        absl::StrCat("moving the agent into ", leaf, ": ", std::strerror(err)));
  }
  return leaf;
}

std::vector<std::string> Cgroup::CgroupsBelow(const std::string& dir) {
  std::vector<std::string> found;
  std::vector<std::string> to_list = {dir};
  while (!to_list.empty()) {
    const std::string listing = std::move(to_list.back());
    to_list.pop_back();
    // One directory at a time, each with its own error code: one that vanished (another agent
    // swept it, or its job ended) is skipped, where a recursive walk would stop there and leave
    // the rest.
    std::error_code walk;
    std::error_code ec;
    for (std::filesystem::directory_iterator it(listing, walk), end; !walk && it != end;
         it.increment(walk)) {
      if (it->is_directory(ec) && !it->is_symlink(ec)) {
        found.push_back(it->path().string());
        to_list.push_back(it->path().string());
      }
    }
  }
  return found;
}

int Cgroup::SweepDeadAgents(const std::string& root) {
  std::error_code ec;
  int swept = 0;
  // Incremented with an error code: another agent sweeping the same dead one removes entries
  // under this loop, and a range-for's increment throws (std::terminate) when one vanishes.
  std::error_code walk;
  for (std::filesystem::directory_iterator it(root, walk), end; !walk && it != end;
       it.increment(walk)) {
    const std::filesystem::directory_entry& entry = *it;
    const std::string name = entry.path().filename().string();
    absl::string_view pid_text = name;
    int pid = 0;
    if (entry.is_directory(ec) && absl::ConsumePrefix(&pid_text, "agent-") &&
        absl::SimpleAtoi(pid_text, &pid) && pid > 0 && pid != getpid() && kill(pid, 0) != 0 &&
        errno == ESRCH) {
      rmdir(entry.path().c_str());  // a dead agent's own leaf (MoveSelfToLeaf): empty now
      continue;
    }
    if (!entry.is_directory(ec) || !absl::ConsumePrefix(&pid_text, "canopy-agent-") ||
        !absl::SimpleAtoi(pid_text, &pid) || pid <= 0 || pid == getpid()) {
      continue;
    }
    if (kill(pid, 0) == 0 || errno == EPERM) {
      continue;  // that agent is alive
    }
    ++swept;
    // Children first: the job cgroups, then the agent's own.
    std::vector<std::string> dirs = CgroupsBelow(entry.path().string());
    dirs.push_back(entry.path().string());
    std::sort(dirs.begin(), dirs.end(), [](const std::string& a, const std::string& b) {
      return a.size() > b.size();  // deeper paths are longer
    });
    for (const std::string& dir : dirs) {
      Cgroup leftover(dir);  // removed (or the failure logged) when it goes out of scope
      leftover.Signal(SIGKILL);
      // Killed processes leave the cgroup once they are gone; give them a moment.
      for (int i = 0; i < 50 && leftover.Populated(); ++i) {
        absl::SleepFor(absl::Milliseconds(20));
      }
    }
    spdlog::warn("killed what the dead agent {} left running (cgroup {})", pid,
                 entry.path().string());
  }
  return swept;
}

bool Cgroup::Populated() const {
  for (absl::string_view line : absl::StrSplit(ReadFile("cgroup.events"), '\n')) {
    if (absl::ConsumePrefix(&line, "populated ")) {
      return line != "0";
    }
  }
  return false;
}

int64_t Cgroup::OomKills() const {
  for (absl::string_view line : absl::StrSplit(ReadFile("memory.events"), '\n')) {
    int64_t count = 0;
    if (absl::ConsumePrefix(&line, "oom_kill ") && absl::SimpleAtoi(line, &count)) {
      return count;
    }
  }
  return 0;
}

}  // namespace canopy::agent::runtime
