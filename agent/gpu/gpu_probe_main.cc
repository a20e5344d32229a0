// canopy-gpu-probe: prints the GPUs the agent's NVML provider sees, one per line, then each
// one's figures as the agent's metrics read them ("xid=-" where the driver has no XID events for
// it). Used to check the provider on a real GPU machine. Exit 0 when NVML works, 2 when it is not
// available.
#include <cmath>
#include <cstdio>

#include "agent/gpu/nvml_gpu_provider.h"

int main() {
  auto provider = canopy::agent::gpu::NvmlGpuProvider::Open();
  if (!provider.ok()) {
    std::printf("nvml: %s\n", std::string(provider.status().message()).c_str());
    return 2;
  }
  auto gpus = (*provider)->Discover();
  if (!gpus.ok()) {
    std::printf("nvml discover: %s\n", std::string(gpus.status().message()).c_str());
    return 1;
  }
  std::printf("%zu GPU(s)\n", gpus->size());
  for (const auto& g : *gpus) {
    std::printf("%d %s %s %lld MiB %s %s\n", g.index, g.uuid.c_str(), g.model.c_str(),
                static_cast<long long>(g.memory_mib), g.healthy ? "healthy" : "UNHEALTHY",
                g.health_reason.c_str());
  }
  auto telemetry = (*provider)->Telemetry();
  if (!telemetry.ok()) {
    std::printf("nvml telemetry: %s\n", std::string(telemetry.status().message()).c_str());
    return 1;
  }
  for (const auto& t : *telemetry) {
    std::printf("%d util=%.2f mem_used=%.0f temp=%.0f power=%.1f ecc=%.0f/%.0f xid=", t.index,
                t.utilization, t.memory_used_bytes, t.temperature_celsius, t.power_watts,
                t.ecc_corrected, t.ecc_uncorrected);
    if (std::isnan(t.xid_errors)) {
      std::printf("-\n");
    } else {
      std::printf("%.0f\n", t.xid_errors);
    }
  }
  return 0;
}
