// MetricsExporter: canopyd's Prometheus endpoint, GET http://<metrics_listen>/metrics, served
// by prometheus-cpp's pull exposer on threads of its own. A scrape reads the latest snapshot
// (snapshot_metrics.h) and what the controller counted (controller_metrics.h); it never waits
// for the owner thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "prometheus/collectable.h"
#include "prometheus/exposer.h"
#include "scheduler/server/controller_metrics.h"
#include "scheduler/server/snapshot_metrics.h"

namespace canopy::server {

class MetricsExporter {
 public:
  // Listens on `listen` ("HOST:PORT"; port 0 = any free port). Unavailable, naming the address,
  // when it cannot.
  static absl::StatusOr<std::unique_ptr<MetricsExporter>> Start(
      const std::string& listen, SnapshotMetrics::SnapshotSource snapshots,
      ControllerMetrics* controller_metrics);
  ~MetricsExporter();

  int port() const { return port_; }

 private:
  MetricsExporter() = default;
  // The exposer holds weak pointers to these: they are declared first, so destroyed last.
  std::vector<std::shared_ptr<prometheus::Collectable>> collectables_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  int port_ = 0;
};

}  // namespace canopy::server
