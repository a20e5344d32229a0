// CgroupV1Dir: a directory in a cgroup v1 hierarchy, for hosts that still mount the memory and
// cpuset controllers as v1 (a "hybrid" host: cgroup v2 at /sys/fs/cgroup/unified, where the
// agent tracks processes, has no controllers). Only job limits use it (job_limits.h); the job's
// processes join it besides their v2 leaf.
//
// The directory is made under the agent's own cgroup of that hierarchy (/proc/self/cgroup), with
// whatever parents are missing; destroying it removes what it made, deepest first, and leaves a
// parent another node or job still uses.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace canopy::agent::runtime {

// A cgroup control file's contents ("" if unreadable), and a write of `value` to one (Internal,
// with the kernel's reason, on failure). For v1 and v2 alike.
std::string ReadControlFile(const std::string& path);
absl::Status WriteControlFile(const std::string& path, absl::string_view value);

// The agent's own directory in the v1 hierarchy of `controller` ("memory", "cpuset"): the
// hierarchy's mount point (/proc/self/mountinfo) plus the agent's path in it. Unavailable,
// saying why, when no such v1 hierarchy is mounted or it is not writable.
absl::StatusOr<std::string> FindCgroupV1Root(absl::string_view controller);

class CgroupV1Dir {
 public:
  // Makes `root`/`relative` ("canopy-agent-42/gpu1/job7") and its missing parents (or adopts it
  // where it exists). Each made
  // directory first gets the values of `inherited` files copied from its parent (cpuset needs
  // cpuset.cpus and cpuset.mems before a process may join). Internal, naming the path, on
  // failure (what it made so far is removed again).
  static absl::StatusOr<std::unique_ptr<CgroupV1Dir>> Create(
      const std::string& root, absl::string_view relative,
      const std::vector<std::string>& inherited = {});
  ~CgroupV1Dir();
  CgroupV1Dir(const CgroupV1Dir&) = delete;
  CgroupV1Dir& operator=(const CgroupV1Dir&) = delete;

  const std::string& path() const { return path_; }
  std::string procs_file() const { return path_ + "/cgroup.procs"; }
  // Writes `value` to the control file `name`. Internal, with the kernel's reason, on failure.
  absl::Status Write(absl::string_view name, absl::string_view value) const;
  // The contents of the control file `name` ("" if unreadable).
  std::string Read(absl::string_view name) const;

 private:
  CgroupV1Dir(std::string path, std::vector<std::string> made)
      : path_(std::move(path)), made_(std::move(made)) {}
  const std::string path_;
  std::vector<std::string> made_;  // deepest last
};

}  // namespace canopy::agent::runtime
