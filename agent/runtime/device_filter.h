// Device filter: keeps a job's processes away from the node's other GPUs, as Slurm's
// ConstrainDevices does. CUDA_VISIBLE_DEVICES only asks a program politely; this makes open()
// of another GPU's device file fail with EPERM, whatever the program does.
//
// cgroup v2 has no devices.deny file: access is decided by an eBPF program of type
// BPF_PROG_TYPE_CGROUP_DEVICE attached to the cgroup (what systemd and runc do). The program is
// a handful of instructions built here, so no BPF compiler or libbpf is needed: it refuses the
// listed character devices and allows every other device, so a job keeps /dev/null, ttys, and
// the GPU driver's control files (nvidiactl, nvidia-uvm) that every CUDA program opens.
//
// Attached with BPF_F_ALLOW_MULTI, so it adds to (never replaces) a filter that systemd or a
// container runtime put on an ancestor: a device is usable only if every program allows it. The
// program lives as long as the cgroup; nothing needs to be detached.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace canopy::agent::runtime {

struct DeviceNumber {
  uint32_t major = 0;
  uint32_t minor = 0;
  friend bool operator==(const DeviceNumber&, const DeviceNumber&) = default;
};

// Attaches to the cgroup v2 directory `cgroup_dir` a program that refuses the character devices
// in `denied` (at most 1000). Nothing to do for an empty list. FailedPrecondition when the kernel
// refuses BPF (no CAP_BPF/CAP_SYS_ADMIN, a kernel without cgroup device programs), Internal
// otherwise; the message says which step failed and why.
absl::Status AttachDeviceFilter(const std::string& cgroup_dir,
                                const std::vector<DeviceNumber>& denied);

// The device number of a character device file (following symlinks). NotFound or
// FailedPrecondition (not a character device) otherwise.
absl::StatusOr<DeviceNumber> CharDeviceOf(const std::string& path);

}  // namespace canopy::agent::runtime
