#include "agent/gpu/fake_gpu_provider.h"

#include <fstream>
#include <sstream>

#include "absl/hash/hash.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"

namespace canopy::agent::gpu {

absl::StatusOr<std::vector<GpuDevice>> FakeGpuProvider::Discover() {
  std::vector<GpuDevice> gpus;
  // absl::Hash is salted per process; UUIDs must be stable across agent restarts, so use FNV-1a.
  uint64_t h = 1469598103934665603ull;
  for (char c : node_name_) {
    h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  }
  for (int i = 0; i < options_.count; ++i) {
    GpuDevice d;
    d.index = i;
    d.uuid = absl::StrFormat("GPU-fa4e%04x-%04x-%04x-%04x-%012x", (h >> 48) & 0xffff,
                             (h >> 32) & 0xffff, (h >> 16) & 0xffff, h & 0xffff, i);
    d.model = options_.model;
    d.vendor = "fake";
    d.memory_mib = options_.memory_mib;
    if (!options_.device_files.empty()) {
      d.device_file =
          absl::StrReplaceAll(options_.device_files, {{"%d", absl::StrCat(i)}, {"%n", node_name_}});
    }
    gpus.push_back(std::move(d));
  }
  if (options_.faults_file.empty()) {
    return gpus;
  }
  std::ifstream in(options_.faults_file);
  std::string line;
  while (std::getline(in, line)) {
    absl::string_view rest = absl::StripAsciiWhitespace(line);
    if (rest.empty() || rest.front() == '#') {
      continue;
    }
    std::istringstream fields{std::string(rest)};
    std::string node, index_text;
    fields >> node >> index_text;
    int index = -1;
    if (node != node_name_ || !absl::SimpleAtoi(index_text, &index) || index < 0 ||
        index >= options_.count) {
      continue;
    }
    std::string reason;
    std::getline(fields, reason);
    gpus[index].healthy = false;
    gpus[index].health_reason = std::string(absl::StripAsciiWhitespace(reason));
    if (gpus[index].health_reason.empty()) {
      gpus[index].health_reason = "injected fault";
    }
  }
  return gpus;
}

absl::StatusOr<std::vector<GpuTelemetry>> FakeGpuProvider::Telemetry() {
  absl::StatusOr<std::vector<GpuDevice>> gpus = Discover();
  if (!gpus.ok()) {
    return gpus.status();
  }
  std::vector<GpuTelemetry> out;
  for (const GpuDevice& d : *gpus) {
    GpuTelemetry t;
    t.index = d.index;
    t.utilization = 0;
    t.memory_used_bytes = 0;
    t.memory_total_bytes = static_cast<double>(d.memory_mib) * 1024 * 1024;
    t.temperature_celsius = 30 + d.index;
    t.power_watts = 70;
    t.ecc_corrected = 0;
    t.ecc_uncorrected = 0;
    t.xid_errors = absl::StartsWith(d.health_reason, "XID") ? 1 : 0;
    out.push_back(t);
  }
  return out;
}

}  // namespace canopy::agent::gpu
