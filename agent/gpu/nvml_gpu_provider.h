// NvmlGpuProvider: NVIDIA GPUs through NVML, loaded at run time with dlopen("libnvidia-ml.so.1")
// so one agent binary runs on GPU and non-GPU machines alike.
//
// Health: a GPU is unhealthy when NVML reports it lost (NVML_ERROR_GPU_IS_LOST, XID 79's
// symptom), when it has uncorrected volatile ECC errors, or when row remapping failed. The
// finer XID event stream is a later step. One thread at a time; NVML itself is thread-safe.
#pragma once

#include <memory>
#include <string>

#include "agent/gpu/gpu_provider.h"

namespace canopy::agent::gpu {

struct NvmlApi;  // the dlopen'ed entry points

class NvmlGpuProvider final : public GpuProvider {
 public:
  // Unavailable (with the dlerror/NVML text) when the library or driver is not there.
  static absl::StatusOr<std::unique_ptr<NvmlGpuProvider>> Open();
  ~NvmlGpuProvider() override;

  std::string name() const override { return "nvml"; }
  absl::StatusOr<std::vector<GpuDevice>> Discover() override;
  // Utilisation, memory, temperature, power and ECC counts, each where the driver has it; XID
  // errors are not counted yet (they need NVML's event API).
  absl::StatusOr<std::vector<GpuTelemetry>> Telemetry() override;

 private:
  explicit NvmlGpuProvider(std::unique_ptr<NvmlApi> api);
  std::unique_ptr<NvmlApi> api_;
};

}  // namespace canopy::agent::gpu
