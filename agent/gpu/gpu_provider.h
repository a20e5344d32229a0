// GpuProvider: how the agent learns which GPUs a node has and whether each is healthy.
//
// Implementations: NvmlGpuProvider (NVIDIA, libnvidia-ml loaded with dlopen so the agent runs
// where no driver is installed) and FakeGpuProvider (demos, tests, scale runs; faults injected
// through a file). The agent calls Discover() at start-up and again every heartbeat to notice
// health changes. Implementations must be safe to call from one thread at a time.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace canopy::agent::gpu {

struct GpuDevice {
  int index = 0;
  std::string uuid;
  std::string model;
  std::string vendor;  // "nvidia", "amd", "fake"
  int64_t memory_mib = 0;
  bool healthy = true;
  std::string health_reason;  // empty when healthy
  // The character device a process opens to use this GPU ("/dev/nvidia3"); empty when unknown.
  // Jobs are kept from other GPUs' files (agent/runtime/job_limits.h).
  std::string device_file;

  friend bool operator==(const GpuDevice&, const GpuDevice&) = default;
};

// What a GPU is doing now, for the agent's metrics. What the provider cannot read is NaN (and
// left out of the metrics).
struct GpuTelemetry {
  static constexpr double kUnknown = std::numeric_limits<double>::quiet_NaN();
  int index = 0;
  double utilization = kUnknown;  // 0-1: the share of the last sample period a kernel ran
  double memory_used_bytes = kUnknown;
  double memory_total_bytes = kUnknown;
  double temperature_celsius = kUnknown;
  double power_watts = kUnknown;
  double ecc_corrected = kUnknown;  // errors over the GPU's life (NVML's aggregate counters)
  double ecc_uncorrected = kUnknown;
  double xid_errors = kUnknown;  // XID errors seen (fake provider: its injected XID faults)
};

class GpuProvider {
 public:
  virtual ~GpuProvider() = default;
  // "nvml", "fake", ...
  virtual std::string name() const = 0;
  // Every GPU of the node, in index order, with its current health. Unavailable when the vendor
  // library cannot be queried right now.
  virtual absl::StatusOr<std::vector<GpuDevice>> Discover() = 0;
  // Every GPU's current figures, in index order; empty when the provider reads none.
  virtual absl::StatusOr<std::vector<GpuTelemetry>> Telemetry() {
    return std::vector<GpuTelemetry>();
  }
};

}  // namespace canopy::agent::gpu
