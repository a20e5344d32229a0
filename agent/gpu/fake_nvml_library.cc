// A stand-in for libnvidia-ml.so.1, for testing NvmlGpuProvider where no NVIDIA driver is
// installed (CI). It implements the part of NVML's C ABI the provider calls, for two H200-like
// GPUs, and lets a test play the driver: canopy_fake_nvml_add_xid() queues a critical XID event
// as the driver would on a fault. Built as a shared library whose soname is libnvidia-ml.so.1,
// so the provider's dlopen("libnvidia-ml.so.1") finds it once the test has loaded it by path.
// Never installed.
#include <cstring>
#include <deque>
#include <mutex>
#include <set>

namespace {

using nvmlReturn_t = int;
constexpr nvmlReturn_t kSuccess = 0;
constexpr nvmlReturn_t kUninitialized = 1;
constexpr nvmlReturn_t kInvalidArgument = 2;
constexpr nvmlReturn_t kTimeout = 10;
constexpr unsigned kGpus = 2;
constexpr unsigned long long kXidCriticalError = 0x8;

struct FakeDevice {
  unsigned index;
};
FakeDevice devices[kGpus] = {{0}, {1}};

struct Event {
  FakeDevice* device;
  unsigned long long type;
  unsigned long long data;
};

struct FakeEventSet {
  std::set<FakeDevice*> registered;
  std::deque<Event> queued;
};

std::mutex mu;
int init_count = 0;
std::set<FakeEventSet*> event_sets;

FakeDevice* Device(void* handle) {
  for (FakeDevice& d : devices) {
    if (handle == &d) {
      return &d;
    }
  }
  return nullptr;
}

nvmlReturn_t CopyString(const char* text, char* out, unsigned length) {
  if (out == nullptr || std::strlen(text) + 1 > length) {
    return kInvalidArgument;
  }
  std::strcpy(out, text);
  return kSuccess;
}

}  // namespace

extern "C" {

struct FakeMemory {
  unsigned long long total, free, used;
};
struct FakeEventData {
  void* device;
  unsigned long long event_type;
  unsigned long long event_data;
  unsigned gpu_instance_id;
  unsigned compute_instance_id;
};

nvmlReturn_t nvmlInit_v2() {
  std::lock_guard<std::mutex> lock(mu);
  ++init_count;
  return kSuccess;
}
nvmlReturn_t nvmlShutdown() {
  std::lock_guard<std::mutex> lock(mu);
  return init_count-- > 0 ? kSuccess : kUninitialized;
}
const char* nvmlErrorString(nvmlReturn_t rc) {
  return rc == kSuccess ? "Success" : rc == kTimeout ? "Timeout" : "Fake NVML error";
}
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned* count) {
  *count = kGpus;
  return kSuccess;
}
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned index, void** handle) {
  if (index >= kGpus) {
    return kInvalidArgument;
  }
  *handle = &devices[index];
  return kSuccess;
}
nvmlReturn_t nvmlDeviceGetName(void* handle, char* name, unsigned length) {
  return Device(handle) == nullptr ? kInvalidArgument : CopyString("NVIDIA H200", name, length);
}
nvmlReturn_t nvmlDeviceGetUUID(void* handle, char* uuid, unsigned length) {
  FakeDevice* d = Device(handle);
  if (d == nullptr) {
    return kInvalidArgument;
  }
  return CopyString(d->index == 0 ? "GPU-fa4e0000-0000-0000-0000-000000000000"
                                  : "GPU-fa4e0000-0000-0000-0000-000000000001",
                    uuid, length);
}
nvmlReturn_t nvmlDeviceGetMemoryInfo(void* handle, FakeMemory* memory) {
  if (Device(handle) == nullptr) {
    return kInvalidArgument;
  }
  memory->total = 143771ULL * 1024 * 1024;
  memory->used = 512ULL * 1024 * 1024;
  memory->free = memory->total - memory->used;
  return kSuccess;
}
nvmlReturn_t nvmlDeviceGetMinorNumber(void* handle, unsigned* minor) {
  FakeDevice* d = Device(handle);
  if (d == nullptr) {
    return kInvalidArgument;
  }
  *minor = d->index;
  return kSuccess;
}

nvmlReturn_t nvmlEventSetCreate(FakeEventSet** set) {
  std::lock_guard<std::mutex> lock(mu);
  *set = new FakeEventSet;
  event_sets.insert(*set);
  return kSuccess;
}
nvmlReturn_t nvmlDeviceRegisterEvents(void* handle, unsigned long long types, FakeEventSet* set) {
  std::lock_guard<std::mutex> lock(mu);
  FakeDevice* d = Device(handle);
  if (d == nullptr || event_sets.count(set) == 0 || types != kXidCriticalError) {
    return kInvalidArgument;
  }
  set->registered.insert(d);
  return kSuccess;
}
nvmlReturn_t nvmlEventSetWait_v2(FakeEventSet* set, FakeEventData* data, unsigned /*timeout*/) {
  std::lock_guard<std::mutex> lock(mu);
  if (event_sets.count(set) == 0) {
    return kInvalidArgument;
  }
  if (set->queued.empty()) {
    return kTimeout;  // the fake never blocks: tests queue events before they look
  }
  const Event e = set->queued.front();
  set->queued.pop_front();
  *data = FakeEventData{e.device, e.type, e.data, 0, 0};
  return kSuccess;
}
nvmlReturn_t nvmlEventSetFree(FakeEventSet* set) {
  std::lock_guard<std::mutex> lock(mu);
  if (event_sets.erase(set) == 0) {
    return kInvalidArgument;
  }
  delete set;
  return kSuccess;
}

// The test's side: the driver reports XID `xid` on GPU `index` to every set registered for it.
void canopy_fake_nvml_add_xid(unsigned index, unsigned long long xid) {
  std::lock_guard<std::mutex> lock(mu);
  for (FakeEventSet* set : event_sets) {
    if (index < kGpus && set->registered.count(&devices[index]) > 0) {
      set->queued.push_back(Event{&devices[index], kXidCriticalError, xid});
    }
  }
}
// Event sets not yet freed (a provider must free its own).
int canopy_fake_nvml_open_event_sets() {
  std::lock_guard<std::mutex> lock(mu);
  return static_cast<int>(event_sets.size());
}

}  // extern "C"
