// Cgroup: one cgroup v2 directory the agent created (a node's parent, or a job's leaf), with the
// few operations the runtime needs: put a process in (through cgroup.procs), signal or kill
// everything in it (cgroup.kill reaches processes that left the job's process groups), ask
// whether anything is left, read the OOM-kill count. Only the core cgroup files are used, so no
// controller needs to be delegated; memory.events is read when the memory controller happens to
// be enabled. Thread-compatible; the runtime guards it with its own lock.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/os/unique_fd.h"

namespace canopy::agent::runtime {

class Cgroup {
 public:
  // Where the agent may create cgroups: "<cgroup2 mount><the agent's own cgroup>", if cgroup v2
  // is mounted (at /sys/fs/cgroup, or /sys/fs/cgroup/unified on hybrid hosts) and that directory
  // is writable. Unavailable, saying why, otherwise.
  static absl::StatusOr<std::string> FindDelegatedRoot();

  // cgroup v2 lets a cgroup pass controllers (memory, cpuset) to its children only while it
  // holds no process itself; the hierarchy's root is exempt. When `root` (the agent's own
  // cgroup, from FindDelegatedRoot) holds this process alone, as a cgroup delegated to the agent
  // does (systemd's Delegate=yes), the agent moves itself into the leaf `root`/agent-<pid>, so
  // that `root` can pass the controllers to the jobs' cgroups. Returns the leaf. Unchanged, and
  // FailedPrecondition saying why, when `root` is the hierarchy's root or other processes share
  // it (they are not the agent's to move). Internal when the move fails.
  static absl::StatusOr<std::string> MoveSelfToLeaf(const std::string& root);
  // True when this process is in the cgroup v2 hierarchy's root cgroup, which may pass
  // controllers down while holding processes.
  static bool InHierarchyRoot();

  // Kills whatever agents that died without cleaning up (kill -9, a crash) left in `root`: every
  // process in a `canopy-agent-<pid>` cgroup whose pid is no longer alive, then removes those
  // cgroups (and the dead agents' own leaves, `agent-<pid>`, empty once they are gone). A restarted
  // agent does not re-adopt old jobs, and the controller has requeued or ended them, so their
  // processes must not keep running (or holding GPUs). Returns how many dead agents' cgroups it
  // found. Best effort.
  static int SweepDeadAgents(const std::string& root);
  // Every directory below `dir`, at any depth (cgroups within cgroups), symbolic links left
  // out. One that vanishes during the walk keeps its place if it was listed already, but what
  // was below it is not found; the walk goes on with the others.
  static std::vector<std::string> CgroupsBelow(const std::string& dir);

  // Creates (or adopts, when it already exists) `parent`/`name`. Internal on mkdir failure.
  // The cgroup keeps a descriptor of its directory, for the cgroups created in it below.
  static absl::StatusOr<std::unique_ptr<Cgroup>> Create(const std::string& parent,
                                                        const std::string& name);
  // The same in `parent` (one made by the overload above), through its directory descriptor:
  // this cgroup's own files are then reached by a two-component path from there (a job's
  // cgroup has five such opens, its mkdir and its rmdir; the walk of the whole
  // /sys/fs/cgroup/... path was half the cost of each, docs/performance.md). No descriptor is
  // kept per cgroup made this way (unless `parent` has none: then this is the overload above).
  static absl::StatusOr<std::unique_ptr<Cgroup>> Create(const Cgroup& parent,
                                                        const std::string& name);
  // Removes the directory if it is empty; a populated cgroup is left (and logged).
  ~Cgroup();
  Cgroup(const Cgroup&) = delete;
  Cgroup& operator=(const Cgroup&) = delete;

  const std::string& path() const { return path_; }
  // An fd of cgroup.procs for Spawn's child to write itself into. Internal on failure.
  absl::StatusOr<os::UniqueFd> OpenProcs() const;
  // Sends `signal` to every process in the cgroup (SIGKILL through cgroup.kill, others one pid
  // at a time from cgroup.procs). Best effort.
  void Signal(int signal) const;
  // True while any live process is in the cgroup (zombies have already left it).
  bool Populated() const;
  // memory.events "oom_kill", or 0 when the memory controller is not enabled here.
  int64_t OomKills() const;

 private:
  explicit Cgroup(std::string path) : path_(std::move(path)) {}
  // One of this cgroup's files, opened relative to the nearest directory descriptor there is.
  os::UniqueFd OpenFile(const char* file, int flags) const;
  // Its whole text ("" if it cannot be read).
  std::string ReadFile(const char* file) const;

  const std::string path_;
  // The directory's descriptor (cgroups made by Create(parent path, name)), shared with the
  // cgroups made in it, which use it with `name_` (their name in it) for as long as they live.
  std::shared_ptr<const os::UniqueFd> dir_;
  std::shared_ptr<const os::UniqueFd> parent_dir_;
  std::string name_;
};

}  // namespace canopy::agent::runtime
