// FakeGpuProvider: GPUs that exist only in the agent's imagination, for demos, tests and scale
// runs where no GPU is present.
//
// Each node gets `count` GPUs of `model` with stable UUIDs derived from the node name. Faults
// are injected by writing lines to `faults_file` (re-read on every Discover()):
//
//   # node    gpu-index  reason
//   gpu003    2          XID 79: GPU has fallen off the bus
//
// A listed GPU is reported unhealthy with that reason; deleting the line heals it. A missing
// file means no faults.
#pragma once

#include <string>

#include "agent/gpu/gpu_provider.h"

namespace canopy::agent::gpu {

struct FakeGpuOptions {
  int count = 8;
  std::string model = "NVIDIA H100 80GB HBM3";
  int64_t memory_mib = 81559;
  std::string faults_file;
  // Device files that stand for the fake GPUs ("/run/fake/%n-gpu%d": %n is the node's name, %d
  // the GPU's index), so that device confinement can be tried where there is no GPU; empty: none.
  std::string device_files;
};

class FakeGpuProvider final : public GpuProvider {
 public:
  FakeGpuProvider(std::string node_name, FakeGpuOptions options)
      : node_name_(std::move(node_name)), options_(std::move(options)) {}

  std::string name() const override { return "fake"; }
  absl::StatusOr<std::vector<GpuDevice>> Discover() override;
  // An idle GPU's figures (no kernel, no memory used, 30 C + index, 70 W, no ECC errors), and
  // one XID error per XID fault the faults file lists for it.
  absl::StatusOr<std::vector<GpuTelemetry>> Telemetry() override;

 private:
  std::string node_name_;
  FakeGpuOptions options_;
};

}  // namespace canopy::agent::gpu
