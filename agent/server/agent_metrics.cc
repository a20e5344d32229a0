#include "agent/server/agent_metrics.h"

#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/metrics/family_builder.h"

namespace canopy::agent {

std::vector<prometheus::MetricFamily> AgentMetrics::Collect() const {
  using metrics::FamilyBuilder;
  FamilyBuilder registered("canopy_agent_node_registered",
                           "1 while the node's agent is registered with the controller");
  FamilyBuilder healthy("canopy_agent_gpu_healthy",
                        "1 for a GPU the provider finds healthy, 0 for one it does not (the "
                        "reason goes to the controller: canopy_gpu_health_findings)");
  FamilyBuilder utilization("canopy_agent_gpu_utilization_ratio",
                            "Share of the last sample period a kernel ran on the GPU (0-1)");
  FamilyBuilder memory_used("canopy_agent_gpu_memory_used_bytes", "GPU memory in use");
  FamilyBuilder memory_total("canopy_agent_gpu_memory_total_bytes", "GPU memory in all");
  FamilyBuilder temperature("canopy_agent_gpu_temperature_celsius", "GPU core temperature");
  FamilyBuilder power("canopy_agent_gpu_power_watts", "GPU power draw");
  FamilyBuilder ecc("canopy_agent_gpu_ecc_errors_total",
                    "ECC errors over the GPU's life, by type (corrected, uncorrected)",
                    prometheus::MetricType::Counter);
  FamilyBuilder xid("canopy_agent_gpu_xid_errors_total", "XID errors seen on the GPU",
                    prometheus::MetricType::Counter);
  auto put = [](FamilyBuilder& family, const metrics::LabelPairs& labels, double value) {
    if (!std::isnan(value)) {  // what the provider cannot read is left out
      family.Add(labels, value);
    }
  };
  for (NodeSession* session : sessions_) {
    const std::string& node = session->node_name();
    registered.Add({{"node", node}}, session->registered() ? 1 : 0);
    const NodeSession::GpuView view = session->Gpus();
    for (const gpu::GpuDevice& g : view.gpus) {
      healthy.Add(
          {{"node", node}, {"gpu", absl::StrCat(g.index)}, {"model", g.model}, {"uuid", g.uuid}},
          g.healthy ? 1 : 0);
    }
    for (const gpu::GpuTelemetry& t : view.telemetry) {
      const metrics::LabelPairs labels = {{"node", node}, {"gpu", absl::StrCat(t.index)}};
      put(utilization, labels, t.utilization);
      put(memory_used, labels, t.memory_used_bytes);
      put(memory_total, labels, t.memory_total_bytes);
      put(temperature, labels, t.temperature_celsius);
      put(power, labels, t.power_watts);
      metrics::LabelPairs corrected = labels;
      corrected.emplace_back("type", "corrected");
      put(ecc, corrected, t.ecc_corrected);
      metrics::LabelPairs uncorrected = labels;
      uncorrected.emplace_back("type", "uncorrected");
      put(ecc, uncorrected, t.ecc_uncorrected);
      put(xid, labels, t.xid_errors);
    }
  }
  std::vector<prometheus::MetricFamily> families;
  for (FamilyBuilder* family : {&registered, &healthy, &utilization, &memory_used, &memory_total,
                                &temperature, &power, &ecc, &xid}) {
    families.push_back(family->Take());
  }
  return families;
}

}  // namespace canopy::agent
