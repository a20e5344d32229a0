// A stand-in for libnvidia-ml.so.1, for testing NvmlGpuProvider where no NVIDIA driver is
// installed (CI). It implements the part of NVML's C ABI the provider calls (with the provider's
// own declarations, nvml_abi.h), for two H200-like GPUs, and lets a test play the driver:
// canopy_fake_nvml_add_xid() queues a critical XID event as the driver would on a fault. Built as
// a shared library whose soname is libnvidia-ml.so.1, so the provider's dlopen of that name finds
// it once the test has loaded it by path. Never installed.
#include <cstring>
#include <deque>
#include <mutex>
#include <set>

#include "agent/gpu/nvml_abi.h"

namespace abi = canopy::agent::gpu::nvml_abi;

// The handles NVML keeps opaque are ours to define here.
struct canopy::agent::gpu::nvml_abi::nvmlDevice_st {
  unsigned index;
};
struct canopy::agent::gpu::nvml_abi::nvmlEventSet_st {
  std::set<abi::nvmlDevice_t> registered;
  std::deque<abi::nvmlEventData_t> queued;
};

namespace {

using abi::nvmlReturn_t;
constexpr unsigned kGpus = 2;

abi::nvmlDevice_st devices[kGpus] = {{0}, {1}};

std::mutex mu;
int init_count = 0;
std::set<abi::nvmlEventSet_t> event_sets;

bool Known(abi::nvmlDevice_t device) { return device == &devices[0] || device == &devices[1]; }

nvmlReturn_t CopyString(const char* text, char* out, unsigned length) {
  if (out == nullptr || std::strlen(text) + 1 > length) {
    return abi::kNvmlErrorInvalidArgument;
  }
  std::strcpy(out, text);
  return abi::kNvmlSuccess;
}

}  // namespace

extern "C" {

nvmlReturn_t nvmlInit_v2() {
  std::lock_guard<std::mutex> lock(mu);
  ++init_count;
  return abi::kNvmlSuccess;
}
nvmlReturn_t nvmlShutdown() {
  std::lock_guard<std::mutex> lock(mu);
  return init_count-- > 0 ? abi::kNvmlSuccess : abi::kNvmlErrorUninitialized;
}
const char* nvmlErrorString(nvmlReturn_t rc) {
  return rc == abi::kNvmlSuccess        ? "Success"
         : rc == abi::kNvmlErrorTimeout ? "Timeout"
                                        : "Fake NVML error";
}
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned* count) {
  *count = kGpus;
  return abi::kNvmlSuccess;
}
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned index, abi::nvmlDevice_t* handle) {
  if (index >= kGpus) {
    return abi::kNvmlErrorInvalidArgument;
  }
  *handle = &devices[index];
  return abi::kNvmlSuccess;
}
nvmlReturn_t nvmlDeviceGetName(abi::nvmlDevice_t device, char* name, unsigned length) {
  return Known(device) ? CopyString("NVIDIA H200", name, length) : abi::kNvmlErrorInvalidArgument;
}
nvmlReturn_t nvmlDeviceGetUUID(abi::nvmlDevice_t device, char* uuid, unsigned length) {
  if (!Known(device)) {
    return abi::kNvmlErrorInvalidArgument;
  }
  return CopyString(device->index == 0 ? "GPU-fa4e0000-0000-0000-0000-000000000000"
                                       : "GPU-fa4e0000-0000-0000-0000-000000000001",
                    uuid, length);
}
nvmlReturn_t nvmlDeviceGetMemoryInfo(abi::nvmlDevice_t device, abi::nvmlMemory_t* memory) {
  if (!Known(device)) {
    return abi::kNvmlErrorInvalidArgument;
  }
  memory->total = 143771ULL * 1024 * 1024;
  memory->used = 512ULL * 1024 * 1024;
  memory->free = memory->total - memory->used;
  return abi::kNvmlSuccess;
}
nvmlReturn_t nvmlDeviceGetMinorNumber(abi::nvmlDevice_t device, unsigned* minor) {
  if (!Known(device)) {
    return abi::kNvmlErrorInvalidArgument;
  }
  *minor = device->index;
  return abi::kNvmlSuccess;
}

nvmlReturn_t nvmlEventSetCreate(abi::nvmlEventSet_t* set) {
  std::lock_guard<std::mutex> lock(mu);
  *set = new abi::nvmlEventSet_st;
  event_sets.insert(*set);
  return abi::kNvmlSuccess;
}
nvmlReturn_t nvmlDeviceRegisterEvents(abi::nvmlDevice_t device, unsigned long long types,
                                      abi::nvmlEventSet_t set) {
  std::lock_guard<std::mutex> lock(mu);
  if (!Known(device) || event_sets.count(set) == 0 ||
      types != abi::kNvmlEventTypeXidCriticalError) {
    return abi::kNvmlErrorInvalidArgument;
  }
  set->registered.insert(device);
  return abi::kNvmlSuccess;
}
nvmlReturn_t nvmlEventSetWait_v2(abi::nvmlEventSet_t set, abi::nvmlEventData_t* data,
                                 unsigned /*timeout_ms*/) {
  std::lock_guard<std::mutex> lock(mu);
  if (event_sets.count(set) == 0) {
    return abi::kNvmlErrorInvalidArgument;
  }
  if (set->queued.empty()) {
    return abi::kNvmlErrorTimeout;  // the fake never blocks: tests queue events before they look
  }
  *data = set->queued.front();
  set->queued.pop_front();
  return abi::kNvmlSuccess;
}
nvmlReturn_t nvmlEventSetFree(abi::nvmlEventSet_t set) {
  std::lock_guard<std::mutex> lock(mu);
  if (event_sets.erase(set) == 0) {
    return abi::kNvmlErrorInvalidArgument;
  }
  delete set;
  return abi::kNvmlSuccess;
}

// The test's side: the driver reports XID `xid` on GPU `index` to every set registered for it.
void canopy_fake_nvml_add_xid(unsigned index, unsigned long long xid) {
  std::lock_guard<std::mutex> lock(mu);
  for (abi::nvmlEventSet_t set : event_sets) {
    if (index < kGpus && set->registered.count(&devices[index]) > 0) {
      set->queued.push_back(
          abi::nvmlEventData_t{&devices[index], abi::kNvmlEventTypeXidCriticalError, xid, 0, 0});
    }
  }
}
// Event sets not yet freed (a provider must free its own).
int canopy_fake_nvml_open_event_sets() {
  std::lock_guard<std::mutex> lock(mu);
  return static_cast<int>(event_sets.size());
}

}  // extern "C"
