// XidRecord: what the NVIDIA driver's XID events (NVML's critical XID event stream) have said
// about each GPU since the agent started: how many there were, and whether one was a fault that
// makes the GPU unfit for jobs.
//
// XIDs an application causes itself (13 graphics engine exception, 31 MMU fault, 43 GPU stopped
// processing, 45 preemptive cleanup, 68 video processor exception, 109 context switch timeout)
// are counted but leave the GPU healthy: the job that caused them failed, the GPU did not. Any
// other XID (48 double-bit ECC, 63/64 row remapping, 74 NVLink, 79 fallen off the bus, 94/95
// contained/uncontained ECC, ...) marks the GPU unhealthy, and it stays so until the agent
// restarts: an XID is an event, not a state NVML can be asked about again, so only an admin who
// has reset or replaced the GPU (then restarted the agent) can say it is fit again.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace canopy::agent::gpu {

class XidRecord {
 public:
  // The driver reported XID `xid` (999: one it could not name) on the GPU with index `gpu`.
  void Add(int gpu, uint64_t xid);

  // XID events seen on `gpu` (0 when none).
  uint64_t count(int gpu) const;
  // Why `gpu` is unfit ("XID 79: GPU has fallen off the bus"), from its first fault; empty
  // when no fault was seen.
  std::string fault(int gpu) const;

  // True for the XIDs an application causes itself (see above).
  static bool IsApplicationXid(uint64_t xid);
  // "XID 48: double-bit ECC error" for the XIDs that matter on GPU clusters; "XID n" otherwise.
  static std::string Describe(uint64_t xid);

 private:
  std::map<int, uint64_t> counts_;
  std::map<int, std::string> faults_;
};

}  // namespace canopy::agent::gpu
