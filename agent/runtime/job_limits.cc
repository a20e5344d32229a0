#include "agent/runtime/job_limits.h"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/log/absl_format.h"
#include "common/os/unique_fd.h"
#include "spdlog/spdlog.h"

namespace canopy::agent::runtime {
namespace {

constexpr char kMemory[] = "memory";
constexpr char kCpuset[] = "cpuset";

bool Lists(const std::string& file, absl::string_view controller) {
  for (absl::string_view word : absl::StrSplit(ReadControlFile(file), absl::ByAnyChar(" \n"))) {
    if (word == controller) {
      return true;
    }
  }
  return false;
}

std::vector<int> OwnCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &set)) {
        cpus.push_back(cpu);
      }
    }
  }
  return cpus;
}

const char* ViaName(bool v2, bool v1) {
  return v2 ? "cgroup v2" : v1 ? "cgroup v1" : "not limited";
}

}  // namespace

std::vector<std::string> EnableCgroupControllers(const std::string& dir) {
  std::vector<std::string> enabled;
  for (const char* controller : {kMemory, kCpuset}) {
    if (!Lists(dir + "/cgroup.controllers", controller)) {
      continue;
    }
    if (Lists(dir + "/cgroup.subtree_control", controller) ||
        WriteControlFile(dir + "/cgroup.subtree_control", absl::StrCat("+", controller)).ok()) {
      enabled.push_back(controller);
    }
  }
  return enabled;
}

NodeLimits::NodeLimits(std::string node_name, std::string node_cgroup, std::string relative,
                       bool pin_cpus)
    : node_name_(std::move(node_name)),
      node_cgroup_(std::move(node_cgroup)),
      relative_(std::move(relative)),
      usable_cpus_(OwnCpus()) {
  if (node_cgroup_.empty()) {
    return;
  }
  // cgroup v2: the node's parent (the agent's directory) passes the controllers down to the
  // node, which passes them to its jobs' leaves. A controller the agent was not given is not
  // listed in cgroup.controllers and cannot be turned on here.
  const std::string parent = node_cgroup_.substr(0, node_cgroup_.rfind('/'));
  EnableCgroupControllers(parent);
  const std::vector<std::string> v2 = EnableCgroupControllers(node_cgroup_);
  auto has = [&v2](const char* c) { return std::find(v2.begin(), v2.end(), c) != v2.end(); };
  if (has(kMemory)) {
    memory_ = Via::kV2;
  } else if (absl::StatusOr<std::string> root = FindCgroupV1Root(kMemory); root.ok()) {
    absl::StatusOr<std::unique_ptr<CgroupV1Dir>> dir = CgroupV1Dir::Create(*root, relative_);
    if (dir.ok()) {
      memory_node_v1_ = *std::move(dir);
      memory_v1_root_ = *root;
      memory_ = Via::kV1;
    } else {
      spdlog::warn("{}: {}", node_name_, dir.status().message());
    }
  }
  if (!pin_cpus) {
    // cpuset_ stays kNone.
  } else if (has(kCpuset)) {
    cpuset_ = Via::kV2;
  } else if (absl::StatusOr<std::string> root = FindCgroupV1Root(kCpuset); root.ok()) {
    absl::StatusOr<std::unique_ptr<CgroupV1Dir>> dir =
        CgroupV1Dir::Create(*root, relative_, {"cpuset.cpus", "cpuset.mems"});
    if (dir.ok()) {
      cpuset_node_v1_ = *std::move(dir);
      cpuset_v1_root_ = *root;
      cpuset_ = Via::kV1;
    } else {
      spdlog::warn("{}: {}", node_name_, dir.status().message());
    }
  }
  spdlog::info("{}: job limits: {}", node_name_, Describe());
}

NodeLimits::~NodeLimits() = default;

std::string NodeLimits::Describe() const {
  if (node_cgroup_.empty()) {
    return "none (no cgroups)";
  }
  return absl::StrCat("memory ", ViaName(memory_ == Via::kV2, memory_ == Via::kV1), ", CPUs ",
                      ViaName(cpuset_ == Via::kV2, cpuset_ == Via::kV1),
                      ", GPU device files by a cgroup device program");
}

void NodeLimits::SetGpuDevices(std::vector<GpuDeviceFile> gpus) {
  absl::MutexLock lock(&mu_);
  gpus_ = std::move(gpus);
}

std::vector<int> NodeLimits::TakeCpus(int count) {
  std::vector<int> taken;
  for (int cpu : usable_cpus_) {
    if (static_cast<int>(taken.size()) == count) {
      break;
    }
    if (!cpus_in_use_.contains(cpu)) {
      taken.push_back(cpu);
    }
  }
  if (static_cast<int>(taken.size()) < count) {
    return {};
  }
  cpus_in_use_.insert(taken.begin(), taken.end());
  return taken;
}

void NodeLimits::Release(const std::vector<int>& cpus) {
  absl::MutexLock lock(&mu_);
  for (int cpu : cpus) {
    cpus_in_use_.erase(cpu);
  }
}

std::unique_ptr<JobConfinement> NodeLimits::Confine(uint32_t job_id, const std::string& job_cgroup,
                                                    const JobShare& share) {
  std::unique_ptr<JobConfinement> c(new JobConfinement(this));
  if (job_cgroup.empty()) {
    return c;
  }
  const std::string job_relative = absl::StrCat(relative_, "/job", job_id);
  const std::string job_tag = absl::StrCat(node_name_, ": job ", job_id);

  if (share.cpus > 0 && cpuset_ != Via::kNone) {
    std::vector<int> cpus;
    {
      absl::MutexLock lock(&mu_);
      cpus = TakeCpus(share.cpus);
      if (cpus.empty() && !warned_cpus_) {
        warned_cpus_ = true;
        spdlog::warn(
            "{}: {} CPUs wanted, but only {} of this agent's {} are free: not pinned (nodes of "
            "this agent share the host's CPUs, or the node is configured with more CPUs than it "
            "has); said once per node",
            job_tag, share.cpus, usable_cpus_.size() - cpus_in_use_.size(), usable_cpus_.size());
      }
    }
    if (!cpus.empty()) {
      const std::string list = absl::StrJoin(cpus, ",");
      absl::Status applied;
      if (cpuset_ == Via::kV2) {
        applied = WriteControlFile(job_cgroup + "/cpuset.cpus", list);
      } else {
        absl::StatusOr<std::unique_ptr<CgroupV1Dir>> dir =
            CgroupV1Dir::Create(cpuset_v1_root_, job_relative, {"cpuset.cpus", "cpuset.mems"});
        applied = dir.ok() ? (*dir)->Write("cpuset.cpus", list) : dir.status();
        if (applied.ok()) {
          c->cpuset_v1_ = *std::move(dir);
        }
      }
      if (applied.ok()) {
        c->cpus_ = std::move(cpus);
      } else {
        spdlog::warn("{}: CPUs not pinned: {}", job_tag, applied.message());
        Release(cpus);
      }
    }
  }

  if (share.memory_bytes > 0 && memory_ != Via::kNone) {
    const std::string bytes = absl::StrCat(share.memory_bytes);
    absl::Status applied;
    if (memory_ == Via::kV2) {
      applied = WriteControlFile(job_cgroup + "/memory.max", bytes);
      // No swap beyond the limit (Slurm's AllowedSwapSpace=0); absent without swap accounting.
      WriteControlFile(job_cgroup + "/memory.swap.max", "0").IgnoreError();
    } else {
      absl::StatusOr<std::unique_ptr<CgroupV1Dir>> dir =
          CgroupV1Dir::Create(memory_v1_root_, job_relative);
      applied = dir.ok() ? (*dir)->Write("memory.limit_in_bytes", bytes) : dir.status();
      if (applied.ok()) {
        (*dir)->Write("memory.memsw.limit_in_bytes", bytes).IgnoreError();
        c->memory_v1_ = *std::move(dir);
        c->oom_kills_at_start_ = c->OomKills();
      }
    }
    if (!applied.ok()) {
      spdlog::warn("{}: memory not limited: {}", job_tag, applied.message());
    }
  }

  std::vector<DeviceNumber> denied;
  bool gpus_known = false;
  {
    absl::MutexLock lock(&mu_);
    gpus_known = !gpus_.empty();
    for (const GpuDeviceFile& gpu : gpus_) {
      if (std::find(share.gpu_indexes.begin(), share.gpu_indexes.end(), gpu.index) ==
          share.gpu_indexes.end()) {
        denied.push_back(gpu.device);
      }
    }
  }
  absl::Status attached = AttachDeviceFilter(job_cgroup, denied);
  c->gpus_confined_ = attached.ok() && gpus_known;
  if (!attached.ok()) {
    absl::MutexLock lock(&mu_);
    if (!warned_devices_) {
      warned_devices_ = true;
      spdlog::warn("{}: other GPUs' device files not refused: {}; said once per node", job_tag,
                   attached.message());
    }
  }
  return c;
}

JobConfinement::~JobConfinement() { node_->Release(cpus_); }

std::vector<std::string> JobConfinement::ProcsFiles() const {
  std::vector<std::string> files;
  for (const CgroupV1Dir* dir : {memory_v1_.get(), cpuset_v1_.get()}) {
    if (dir != nullptr) {
      files.push_back(dir->procs_file());
    }
  }
  return files;
}

int64_t JobConfinement::OomKills() const {
  if (memory_v1_ == nullptr) {
    return 0;
  }
  for (absl::string_view line : absl::StrSplit(memory_v1_->Read("memory.oom_control"), '\n')) {
    int64_t count = 0;
    if (absl::ConsumePrefix(&line, "oom_kill ") && absl::SimpleAtoi(line, &count)) {
      return count - oom_kills_at_start_;
    }
  }
  return 0;
}

}  // namespace canopy::agent::runtime
