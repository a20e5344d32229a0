// canopy-gpu-probe: prints the GPUs the agent's NVML provider sees, one per line. Used to check
// the provider on a real GPU machine. Exit 0 when NVML works, 2 when it is not available.
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
  return 0;
}
