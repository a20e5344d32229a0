#include "agent/gpu/nvml_gpu_provider.h"

#include <dlfcn.h>

#include <map>

#include "absl/strings/str_cat.h"
#include "agent/gpu/nvml_abi.h"

namespace canopy::agent::gpu {

namespace {
using nvml_abi::kNvmlAggregateEcc;
using nvml_abi::kNvmlErrorGpuIsLost;
using nvml_abi::kNvmlEventTypeXidCriticalError;
using nvml_abi::kNvmlMemoryErrorCorrected;
using nvml_abi::kNvmlMemoryErrorUncorrected;
using nvml_abi::kNvmlNameBufferSize;
using nvml_abi::kNvmlSuccess;
using nvml_abi::kNvmlTemperatureGpu;
using nvml_abi::kNvmlUuidBufferSize;
using nvml_abi::kNvmlVolatileEcc;
using nvml_abi::nvmlDevice_t;
using nvml_abi::nvmlEventData_t;
using nvml_abi::nvmlEventSet_t;
using nvml_abi::nvmlMemory_t;
using nvml_abi::nvmlReturn_t;
using nvml_abi::nvmlUtilization_t;
}  // namespace

struct NvmlApi {
  // Outside the anonymous namespace: a member's type must not have internal linkage.
  struct DlCloser {
    void operator()(void* handle) const { dlclose(handle); }
  };
  std::unique_ptr<void, DlCloser> lib;
  nvmlReturn_t (*init)();
  nvmlReturn_t (*shutdown)();
  const char* (*error_string)(nvmlReturn_t);
  nvmlReturn_t (*device_count)(unsigned*);
  nvmlReturn_t (*handle_by_index)(unsigned, nvmlDevice_t*);
  nvmlReturn_t (*name)(nvmlDevice_t, char*, unsigned);
  nvmlReturn_t (*uuid)(nvmlDevice_t, char*, unsigned);
  nvmlReturn_t (*memory)(nvmlDevice_t, nvmlMemory_t*);
  // Optional (older drivers/GPUs lack them): null when missing.
  nvmlReturn_t (*ecc_errors)(nvmlDevice_t, int, int, unsigned long long*);
  nvmlReturn_t (*remapped_rows)(nvmlDevice_t, unsigned*, unsigned*, unsigned*, unsigned*);
  nvmlReturn_t (*minor_number)(nvmlDevice_t, unsigned*);
  nvmlReturn_t (*utilization)(nvmlDevice_t, nvmlUtilization_t*);
  nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned*);
  nvmlReturn_t (*power_usage)(nvmlDevice_t, unsigned*);  // milliwatts
  nvmlReturn_t (*event_set_create)(nvmlEventSet_t*);
  nvmlReturn_t (*register_events)(nvmlDevice_t, unsigned long long, nvmlEventSet_t);
  nvmlReturn_t (*event_set_wait)(nvmlEventSet_t, nvmlEventData_t*, unsigned timeout_ms);
  nvmlReturn_t (*event_set_free)(nvmlEventSet_t);

  std::string Error(nvmlReturn_t rc) const {
    return error_string != nullptr ? error_string(rc) : absl::StrCat("NVML error ", rc);
  }
};

namespace {

template <typename Fn>
bool Load(void* lib, const char* symbol, Fn* out) {
  *out = reinterpret_cast<Fn>(dlsym(lib, symbol));
  return *out != nullptr;
}

}  // namespace

absl::StatusOr<std::unique_ptr<NvmlGpuProvider>> NvmlGpuProvider::Open() {
  auto api = std::make_unique<NvmlApi>();
  api->lib.reset(dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL));
  if (api->lib == nullptr) {
    return absl::UnavailableError(absl::StrCat("NVML not available: ", dlerror()));
  }
  void* lib = api->lib.get();
  const bool ok =
      Load(lib, "nvmlInit_v2", &api->init) && Load(lib, "nvmlShutdown", &api->shutdown) &&
      Load(lib, "nvmlErrorString", &api->error_string) &&
      Load(lib, "nvmlDeviceGetCount_v2", &api->device_count) &&
      Load(lib, "nvmlDeviceGetHandleByIndex_v2", &api->handle_by_index) &&
      Load(lib, "nvmlDeviceGetName", &api->name) && Load(lib, "nvmlDeviceGetUUID", &api->uuid) &&
      Load(lib, "nvmlDeviceGetMemoryInfo", &api->memory);
  if (!ok) {
    return absl::UnavailableError(
        absl::StrCat("libnvidia-ml.so.1 lacks an expected symbol: ", dlerror()));
  }
  Load(lib, "nvmlDeviceGetTotalEccErrors", &api->ecc_errors);
  Load(lib, "nvmlDeviceGetRemappedRows", &api->remapped_rows);
  Load(lib, "nvmlDeviceGetMinorNumber", &api->minor_number);
  Load(lib, "nvmlDeviceGetUtilizationRates", &api->utilization);
  Load(lib, "nvmlDeviceGetTemperature", &api->temperature);
  Load(lib, "nvmlDeviceGetPowerUsage", &api->power_usage);
  Load(lib, "nvmlEventSetCreate", &api->event_set_create);
  Load(lib, "nvmlDeviceRegisterEvents", &api->register_events);
  if (!Load(lib, "nvmlEventSetWait_v2", &api->event_set_wait)) {
    Load(lib, "nvmlEventSetWait", &api->event_set_wait);
  }
  Load(lib, "nvmlEventSetFree", &api->event_set_free);
  if (nvmlReturn_t rc = api->init(); rc != kNvmlSuccess) {
    return absl::UnavailableError(absl::StrCat("nvmlInit failed: ", api->Error(rc)));
  }
  auto provider = std::unique_ptr<NvmlGpuProvider>(new NvmlGpuProvider(std::move(api)));
  provider->WatchXids();
  return provider;
}

// The event set every GPU's critical XIDs go to, and which handle is which GPU.
struct NvmlXidEvents {
  nvmlEventSet_t set = nullptr;
  std::map<nvmlDevice_t, int> gpus;
};

NvmlGpuProvider::NvmlGpuProvider(std::unique_ptr<NvmlApi> api) : api_(std::move(api)) {}

NvmlGpuProvider::~NvmlGpuProvider() {
  if (events_ != nullptr && events_->set != nullptr) {
    api_->event_set_free(events_->set);
  }
  api_->shutdown();
}

void NvmlGpuProvider::WatchXids() {
  if (api_->event_set_create == nullptr || api_->register_events == nullptr ||
      api_->event_set_wait == nullptr || api_->event_set_free == nullptr) {
    return;  // a driver without the event API: XIDs stay uncounted (NaN in the metrics)
  }
  auto events = std::make_unique<NvmlXidEvents>();
  unsigned count = 0;
  if (api_->event_set_create(&events->set) != kNvmlSuccess ||
      api_->device_count(&count) != kNvmlSuccess) {
    if (events->set != nullptr) {
      api_->event_set_free(events->set);
    }
    return;
  }
  for (unsigned i = 0; i < count; ++i) {
    nvmlDevice_t dev = nullptr;
    // A GPU that does not support the event (NVML_ERROR_NOT_SUPPORTED) is left out.
    if (api_->handle_by_index(i, &dev) == kNvmlSuccess &&
        api_->register_events(dev, kNvmlEventTypeXidCriticalError, events->set) == kNvmlSuccess) {
      events->gpus.emplace(dev, static_cast<int>(i));
    }
  }
  events_ = std::move(events);
}

void NvmlGpuProvider::DrainXids() {
  if (events_ == nullptr) {
    return;
  }
  // Timeout 0: only what the driver has queued, so a heartbeat never waits on it (an empty set
  // answers NVML_ERROR_TIMEOUT, which ends the loop like any other error).
  nvmlEventData_t event{};
  while (api_->event_set_wait(events_->set, &event, 0) == kNvmlSuccess) {
    if ((event.event_type & kNvmlEventTypeXidCriticalError) == 0) {
      continue;
    }
    if (auto it = events_->gpus.find(event.device); it != events_->gpus.end()) {
      xids_.Add(it->second, event.event_data);
    }
    event = {};
  }
}

bool NvmlGpuProvider::WatchesXids(int gpu) const {
  if (events_ == nullptr) {
    return false;
  }
  for (const auto& [dev, index] : events_->gpus) {
    if (index == gpu) {
      return true;
    }
  }
  return false;
}

absl::StatusOr<std::vector<GpuDevice>> NvmlGpuProvider::Discover() {
  DrainXids();
  unsigned count = 0;
  if (nvmlReturn_t rc = api_->device_count(&count); rc != kNvmlSuccess) {
    return absl::UnavailableError(absl::StrCat("nvmlDeviceGetCount: ", api_->Error(rc)));
  }
  std::vector<GpuDevice> gpus;
  for (unsigned i = 0; i < count; ++i) {
    GpuDevice d;
    d.index = static_cast<int>(i);
    d.vendor = "nvidia";
    nvmlDevice_t dev = nullptr;
    if (nvmlReturn_t rc = api_->handle_by_index(i, &dev); rc != kNvmlSuccess) {
      d.healthy = false;
      d.health_reason = rc == kNvmlErrorGpuIsLost ? "XID 79: GPU has fallen off the bus"
                                                  : absl::StrCat("NVML: ", api_->Error(rc));
      gpus.push_back(std::move(d));
      continue;
    }
    char name[kNvmlNameBufferSize] = {};
    char uuid[kNvmlUuidBufferSize] = {};
    nvmlMemory_t mem{};
    nvmlReturn_t rc = api_->name(dev, name, sizeof(name));
    if (rc == kNvmlSuccess) {
      rc = api_->uuid(dev, uuid, sizeof(uuid));
    }
    if (rc == kNvmlSuccess) {
      rc = api_->memory(dev, &mem);
    }
    d.model = name;
    d.uuid = uuid;
    d.memory_mib = static_cast<int64_t>(mem.total / (1024 * 1024));
    // The driver names each GPU's device file by its minor number, which need not be its index.
    if (unsigned minor = 0;
        api_->minor_number != nullptr && api_->minor_number(dev, &minor) == kNvmlSuccess) {
      d.device_file = absl::StrCat("/dev/nvidia", minor);
    }
    if (rc != kNvmlSuccess) {
      d.healthy = false;
      d.health_reason = rc == kNvmlErrorGpuIsLost ? "XID 79: GPU has fallen off the bus"
                                                  : absl::StrCat("NVML: ", api_->Error(rc));
    }
    unsigned long long uncorrected = 0;
    if (d.healthy && api_->ecc_errors != nullptr &&
        api_->ecc_errors(dev, kNvmlMemoryErrorUncorrected, kNvmlVolatileEcc, &uncorrected) ==
            kNvmlSuccess &&
        uncorrected > 0) {
      d.healthy = false;
      d.health_reason = absl::StrCat(uncorrected, " uncorrected ECC errors since reset");
    }
    unsigned corr = 0, unc = 0, pending = 0, failed = 0;
    if (d.healthy && api_->remapped_rows != nullptr) {
      rc = api_->remapped_rows(dev, &corr, &unc, &pending, &failed);
      if (rc == kNvmlSuccess && failed != 0) {
        d.healthy = false;
        d.health_reason = "row remapping failed (XID 64)";
      } else if (rc == kNvmlErrorGpuIsLost) {
        d.healthy = false;
        d.health_reason = "XID 79: GPU has fallen off the bus";
      }
    }
    if (std::string fault = xids_.fault(d.index); d.healthy && !fault.empty()) {
      d.healthy = false;
      d.health_reason = std::move(fault);
    }
    gpus.push_back(std::move(d));
  }
  return gpus;
}

absl::StatusOr<std::vector<GpuTelemetry>> NvmlGpuProvider::Telemetry() {
  DrainXids();
  unsigned count = 0;
  if (nvmlReturn_t rc = api_->device_count(&count); rc != kNvmlSuccess) {
    return absl::UnavailableError(absl::StrCat("nvmlDeviceGetCount: ", api_->Error(rc)));
  }
  std::vector<GpuTelemetry> out;
  for (unsigned i = 0; i < count; ++i) {
    GpuTelemetry t;
    t.index = static_cast<int>(i);
    if (WatchesXids(t.index)) {
      t.xid_errors = static_cast<double>(xids_.count(t.index));
    }
    nvmlDevice_t dev = nullptr;
    if (api_->handle_by_index(i, &dev) != kNvmlSuccess) {
      out.push_back(t);  // lost: nothing to read (Discover reports it unhealthy)
      continue;
    }
    if (nvmlMemory_t mem{}; api_->memory(dev, &mem) == kNvmlSuccess) {
      t.memory_used_bytes = static_cast<double>(mem.used);
      t.memory_total_bytes = static_cast<double>(mem.total);
    }
    if (nvmlUtilization_t u{};
        api_->utilization != nullptr && api_->utilization(dev, &u) == kNvmlSuccess) {
      t.utilization = u.gpu / 100.0;
    }
    if (unsigned c = 0; api_->temperature != nullptr &&
                        api_->temperature(dev, kNvmlTemperatureGpu, &c) == kNvmlSuccess) {
      t.temperature_celsius = c;
    }
    if (unsigned mw = 0;
        api_->power_usage != nullptr && api_->power_usage(dev, &mw) == kNvmlSuccess) {
      t.power_watts = mw / 1000.0;
    }
    if (api_->ecc_errors != nullptr) {
      // Not supported (ECC off, or a GPU without it): left unknown.
      if (unsigned long long n = 0;
          api_->ecc_errors(dev, kNvmlMemoryErrorCorrected, kNvmlAggregateEcc, &n) == kNvmlSuccess) {
        t.ecc_corrected = static_cast<double>(n);
      }
      if (unsigned long long n = 0; api_->ecc_errors(dev, kNvmlMemoryErrorUncorrected,
                                                     kNvmlAggregateEcc, &n) == kNvmlSuccess) {
        t.ecc_uncorrected = static_cast<double>(n);
      }
    }
    out.push_back(t);
  }
  return out;
}

}  // namespace canopy::agent::gpu
