// JobLimits: confines a job to what the controller gave it on this node, as Slurm's task/cgroup
// does with ConstrainRAMSpace, ConstrainCores and ConstrainDevices:
//   - memory: the job's memory on this node (Job.mem_allocated_mib), as memory.max in its cgroup
//     v2 leaf, or memory.limit_in_bytes in the v1 memory hierarchy of a hybrid host. Past it the
//     kernel's OOM killer ends the job, which is reported OUT_OF_MEMORY;
//   - CPUs: as many of the agent's CPUs as the job was given on this node, chosen here (the lowest
//     free ids), as cpuset.cpus (v2, or the v1 cpuset hierarchy);
//   - GPUs: the device files of the node's other GPUs are refused (device_filter.h), so a job
//     cannot open a GPU it was not given, whatever CUDA_VISIBLE_DEVICES says.
// Each applies where the host allows it. What it does not allow (a container without cgroup
// controllers, a kernel without device programs, virtual nodes that share one host's CPUs) is
// logged once per node and otherwise leaves the job unconfined, as Slurm's cgroup plugins run on
// what a host has; a launch never fails for it.
//
// Thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "agent/runtime/cgroup_v1.h"
#include "agent/runtime/device_filter.h"

namespace canopy::agent::runtime {

// A GPU of this node and its device file (/dev/nvidia3).
struct GpuDeviceFile {
  int index = 0;
  DeviceNumber device;
  friend bool operator==(const GpuDeviceFile&, const GpuDeviceFile&) = default;
};

// What a job was given on this node.
struct JobShare {
  int64_t memory_bytes = 0;  // 0: no limit
  int cpus = 0;              // 0: no CPU set
  std::vector<int> gpu_indexes;
};

// Turns on the memory and cpuset controllers for the children of cgroup v2 directory `dir`,
// those of them that `dir` has (cgroup.controllers). Returns the ones on. A directory with
// processes of its own cannot pass controllers down (cgroup v2's no-internal-process rule).
std::vector<std::string> EnableCgroupControllers(const std::string& dir);

class NodeLimits;

// A job's limits while it lives: gives its CPUs back and removes its v1 directories when
// destroyed (after the job's processes are gone).
class JobConfinement {
 public:
  ~JobConfinement();
  JobConfinement(const JobConfinement&) = delete;
  JobConfinement& operator=(const JobConfinement&) = delete;

  // The CPU ids the job is confined to, ascending; empty when not confined.
  const std::vector<int>& cpus() const { return cpus_; }
  // The job's cgroup refuses the device files of the node's other GPUs.
  bool gpus_confined() const { return gpus_confined_; }
  // cgroup.procs files (v1) the job's processes join besides their v2 leaf.
  std::vector<std::string> ProcsFiles() const;
  // OOM kills in the job's v1 memory cgroup since it started (the v2 count is the leaf's own,
  // Cgroup::OomKills).
  int64_t OomKills() const;

 private:
  friend class NodeLimits;
  explicit JobConfinement(NodeLimits* node) : node_(node) {}
  NodeLimits* node_;
  std::vector<int> cpus_;
  std::unique_ptr<CgroupV1Dir> memory_v1_;
  std::unique_ptr<CgroupV1Dir> cpuset_v1_;
  int64_t oom_kills_at_start_ = 0;
  bool gpus_confined_ = false;
};

class NodeLimits {
 public:
  // `node_cgroup`: the node's cgroup v2 directory, in which jobs' leaves are made (empty: no
  // cgroups, nothing is confined). `relative`: the same directory's path below the agent's own
  // cgroup ("canopy-agent-42/gpu1"), used in the v1 hierarchies. Finds what the host offers and
  // logs it.
  // `pin_cpus` false: no CPU sets (nodes that share the host's CPUs).
  NodeLimits(std::string node_name, std::string node_cgroup, std::string relative, bool pin_cpus);
  ~NodeLimits();
  NodeLimits(const NodeLimits&) = delete;
  NodeLimits& operator=(const NodeLimits&) = delete;

  // The node's GPUs with their device files (from each discovery; a GPU without one is left out).
  void SetGpuDevices(std::vector<GpuDeviceFile> gpus);

  // Applies `share` to job `job_id`, whose v2 leaf is `job_cgroup` (made, no process in it yet;
  // empty: no leaf, so no limits). Never fails: what cannot be applied is logged.
  std::unique_ptr<JobConfinement> Confine(uint32_t job_id, const std::string& job_cgroup,
                                          const JobShare& share);

  // The memory controller is on in the jobs' v2 leaves (so each has memory.events).
  bool MemoryInJobCgroups() const { return memory_ == Via::kV2; }

  // What is enforced here, for the log and tests ("memory (cgroup v2), cpuset (cgroup v1),
  // devices").
  std::string Describe() const;

 private:
  friend class JobConfinement;
  enum class Via { kNone, kV2, kV1 };
  void Release(const std::vector<int>& cpus);
  std::vector<int> TakeCpus(int count) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string node_name_;
  const std::string node_cgroup_;
  const std::string relative_;
  Via memory_ = Via::kNone;
  Via cpuset_ = Via::kNone;
  std::string memory_v1_root_;
  std::string cpuset_v1_root_;
  // The node's directories in the v1 hierarchies (made once, kept while the node is).
  std::unique_ptr<CgroupV1Dir> memory_node_v1_;
  std::unique_ptr<CgroupV1Dir> cpuset_node_v1_;
  std::vector<int> usable_cpus_;  // the agent's own CPUs (sched_getaffinity at start)

  absl::Mutex mu_;
  std::set<int> cpus_in_use_ ABSL_GUARDED_BY(mu_);
  std::vector<GpuDeviceFile> gpus_ ABSL_GUARDED_BY(mu_);
  bool warned_cpus_ ABSL_GUARDED_BY(mu_) = false;
  bool warned_devices_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace canopy::agent::runtime
