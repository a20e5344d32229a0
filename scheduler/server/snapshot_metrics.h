// SnapshotMetrics: the controller's state as Prometheus gauges, computed from the latest
// ClusterSnapshot at each scrape, on the exporter's thread (never the owner's): jobs by state,
// partition and account; pending jobs by reason; nodes by state; connected agents; GPUs by
// partition, type and state; and GPUs and jobs per switch at every level of the fat tree,
// counted by the same code as `canopyctl topology` (topology_view.h). docs/metrics.md lists them.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "prometheus/collectable.h"
#include "prometheus/metric_family.h"
#include "scheduler/server/snapshot.h"

namespace canopy::server {

// The gauges of one snapshot. Pure; thread-safe.
std::vector<prometheus::MetricFamily> SnapshotMetricFamilies(const ClusterSnapshot& snapshot);

class SnapshotMetrics : public prometheus::Collectable {
 public:
  using SnapshotSource = std::function<std::shared_ptr<const ClusterSnapshot>()>;
  explicit SnapshotMetrics(SnapshotSource source) : source_(std::move(source)) {}
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  SnapshotSource source_;
};

}  // namespace canopy::server
