// The few NVML declarations the agent needs, from NVML's public C ABI (nvml.h), declared here
// rather than included so the agent builds without the CUDA toolkit. Shared by the provider
// (nvml_gpu_provider.cc) and the stand-in library its tests load (fake_nvml_library.cc), so both
// sides of each call agree on its exact type (UBSan's function check compares them).
#pragma once

namespace canopy::agent::gpu::nvml_abi {

using nvmlReturn_t = int;  // an enum in nvml.h: same size and values
struct nvmlDevice_st;
using nvmlDevice_t = nvmlDevice_st*;
struct nvmlEventSet_st;
using nvmlEventSet_t = nvmlEventSet_st*;

constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr nvmlReturn_t kNvmlErrorUninitialized = 1;
constexpr nvmlReturn_t kNvmlErrorInvalidArgument = 2;
constexpr nvmlReturn_t kNvmlErrorTimeout = 10;
constexpr nvmlReturn_t kNvmlErrorGpuIsLost = 15;
constexpr unsigned kNvmlUuidBufferSize = 96;
constexpr unsigned kNvmlNameBufferSize = 96;

struct nvmlMemory_t {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
struct nvmlUtilization_t {
  unsigned gpu;  // percent of the last sample period a kernel ran
  unsigned memory;
};
// nvmlMemoryErrorType_t / nvmlEccCounterType_t / nvmlTemperatureSensors_t values.
constexpr int kNvmlMemoryErrorCorrected = 0;
constexpr int kNvmlMemoryErrorUncorrected = 1;
constexpr int kNvmlVolatileEcc = 0;
constexpr int kNvmlAggregateEcc = 1;
constexpr int kNvmlTemperatureGpu = 0;
constexpr unsigned long long kNvmlEventTypeXidCriticalError = 0x8;
// nvmlEventData_t as NVML 11+ declares it; older drivers fill only the first three fields (and
// their nvmlEventSetWait takes the same pointer), so the larger struct serves both.
struct nvmlEventData_t {
  nvmlDevice_t device;
  unsigned long long event_type;
  unsigned long long event_data;  // the XID, for kNvmlEventTypeXidCriticalError
  unsigned gpu_instance_id;
  unsigned compute_instance_id;
};

}  // namespace canopy::agent::gpu::nvml_abi
