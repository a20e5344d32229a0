#include "agent/runtime/cgroup_v1.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/os/unique_fd.h"
#include "spdlog/spdlog.h"

namespace canopy::agent::runtime {
namespace {

bool ListHas(absl::string_view comma_list, absl::string_view item) {
  for (absl::string_view part : absl::StrSplit(comma_list, ',')) {
    if (part == item) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::string ReadControlFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

absl::Status WriteControlFile(const std::string& path, absl::string_view value) {
  os::UniqueFd fd(open(path.c_str(), O_WRONLY | O_CLOEXEC));
  if (!fd.valid() ||
      write(fd.get(), value.data(), value.size()) != static_cast<ssize_t>(value.size())) {
    return absl::InternalError(
        absl::StrCat("writing '", value, "' to ", path, ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> FindCgroupV1Root(absl::string_view controller) {
  // mountinfo: "ID PARENT MAJ:MIN ROOT MOUNT_POINT OPTIONS ... - FSTYPE SOURCE SUPER_OPTIONS".
  std::string mount;
  for (absl::string_view line : absl::StrSplit(ReadControlFile("/proc/self/mountinfo"), '\n')) {
    const std::vector<absl::string_view> halves = absl::StrSplit(line, " - ");
    if (halves.size() != 2) {
      continue;
    }
    const std::vector<absl::string_view> left = absl::StrSplit(halves[0], ' ');
    const std::vector<absl::string_view> right = absl::StrSplit(halves[1], ' ');
    if (left.size() >= 5 && right.size() >= 3 && right[0] == "cgroup" &&
        ListHas(right[2], controller)) {
      mount = std::string(left[4]);
      break;
    }
  }
  if (mount.empty()) {
    return absl::UnavailableError(absl::StrCat("no cgroup v1 ", controller, " hierarchy"));
  }
  // /proc/self/cgroup: "ID:CONTROLLERS:PATH".
  std::string own = "/";
  for (absl::string_view line : absl::StrSplit(ReadControlFile("/proc/self/cgroup"), '\n')) {
    const std::vector<absl::string_view> fields = absl::StrSplit(line, absl::MaxSplits(':', 2));
    if (fields.size() == 3 && ListHas(fields[1], controller)) {
      own = std::string(fields[2]);
    }
  }
  std::string root = own == "/" ? mount : absl::StrCat(mount, own);
  if (access(root.c_str(), W_OK) != 0) {
    return absl::UnavailableError(absl::StrCat(root, " is not writable"));
  }
  return root;
}

absl::StatusOr<std::unique_ptr<CgroupV1Dir>> CgroupV1Dir::Create(
    const std::string& root, absl::string_view relative,
    const std::vector<std::string>& inherited) {
  std::vector<std::string> made;
  std::string path = root;
  auto fail = [&](absl::Status status) {
    std::unique_ptr<CgroupV1Dir> undo(new CgroupV1Dir(path, std::move(made)));
    return status;
  };
  for (absl::string_view part : absl::StrSplit(relative, '/', absl::SkipEmpty())) {
    const std::string parent = path;
    absl::StrAppend(&path, "/", part);
    if (mkdir(path.c_str(), 0755) != 0) {
      if (errno == EEXIST) {
        continue;
      }
      return fail(absl::InternalError(absl::StrCat("mkdir ", path, ": ", std::strerror(errno))));
    }
    made.push_back(path);
    for (const std::string& file : inherited) {
      const std::string value =
          std::string(absl::StripAsciiWhitespace(ReadControlFile(absl::StrCat(parent, "/", file))));
      if (absl::Status s =
              WriteControlFile(absl::StrCat(path, "/", file), value.empty() ? "\n" : value);
          !s.ok()) {
        return fail(s);
      }
    }
  }
  // The directory itself is this object's even if it was there already (left by an earlier run
  // whose removal failed): it goes when this object does.
  if (made.empty() || made.back() != path) {
    made.push_back(path);
  }
  return std::unique_ptr<CgroupV1Dir>(new CgroupV1Dir(path, std::move(made)));
}

CgroupV1Dir::~CgroupV1Dir() {
  for (auto it = made_.rbegin(); it != made_.rend(); ++it) {
    if (rmdir(it->c_str()) != 0 && errno != ENOENT) {
      if (errno != EBUSY && errno != ENOTEMPTY) {
        spdlog::warn("rmdir {}: {}", *it, std::strerror(errno));
      }
      return;  // still in use (its parents then too)
    }
  }
}

absl::Status CgroupV1Dir::Write(absl::string_view name, absl::string_view value) const {
  return WriteControlFile(absl::StrCat(path_, "/", name), value);
}

std::string CgroupV1Dir::Read(absl::string_view name) const {
  return ReadControlFile(absl::StrCat(path_, "/", name));
}

}  // namespace canopy::agent::runtime
