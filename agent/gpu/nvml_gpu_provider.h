// NvmlGpuProvider: NVIDIA GPUs through NVML, loaded at run time with dlopen("libnvidia-ml.so.1")
// so one agent binary runs on GPU and non-GPU machines alike.
//
// Health: a GPU is unhealthy when NVML reports it lost (NVML_ERROR_GPU_IS_LOST, XID 79's
// symptom), when it has uncorrected volatile ECC errors, when row remapping failed, or when the
// driver reported a critical XID that is not an application's own (xid_record.h). XIDs come
// from NVML's event set, read without waiting at each Discover() and Telemetry(), so the
// agent's heartbeat notices them and its metrics count them. One thread at a time; NVML itself
// is thread-safe.
#pragma once

#include <memory>
#include <string>

#include "agent/gpu/gpu_provider.h"
#include "agent/gpu/xid_record.h"

namespace canopy::agent::gpu {

struct NvmlApi;        // the dlopen'ed entry points
struct NvmlXidEvents;  // NVML's event set

class NvmlGpuProvider final : public GpuProvider {
 public:
  // Unavailable (with the dlerror/NVML text) when the library or driver is not there.
  static absl::StatusOr<std::unique_ptr<NvmlGpuProvider>> Open();
  ~NvmlGpuProvider() override;

  std::string name() const override { return "nvml"; }
  absl::StatusOr<std::vector<GpuDevice>> Discover() override;
  // Utilisation, memory, temperature, power, ECC counts and XID events, each where the driver
  // has it.
  absl::StatusOr<std::vector<GpuTelemetry>> Telemetry() override;

 private:
  explicit NvmlGpuProvider(std::unique_ptr<NvmlApi> api);
  // Registers every GPU that supports it for critical XID events.
  void WatchXids();
  // Records the XID events the driver has queued.
  void DrainXids();
  bool WatchesXids(int gpu) const;

  std::unique_ptr<NvmlApi> api_;
  std::unique_ptr<NvmlXidEvents> events_;  // null: the driver lacks the event API
  XidRecord xids_;
};

}  // namespace canopy::agent::gpu
