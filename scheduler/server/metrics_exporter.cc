#include "scheduler/server/metrics_exporter.h"

#include <exception>

#include "absl/strings/str_cat.h"

namespace canopy::server {
namespace {

// What the controller counted, with what is read at scrape time refreshed first.
class ControllerCollectable : public prometheus::Collectable {
 public:
  explicit ControllerCollectable(ControllerMetrics* metrics) : metrics_(metrics) {}
  std::vector<prometheus::MetricFamily> Collect() const override {
    metrics_->Refresh();
    return metrics_->registry()->Collect();
  }

 private:
  ControllerMetrics* const metrics_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<MetricsExporter>> MetricsExporter::Start(
    const std::string& listen, SnapshotMetrics::SnapshotSource snapshots,
    ControllerMetrics* controller_metrics) {
  std::unique_ptr<MetricsExporter> exporter(new MetricsExporter());
  exporter->collectables_.push_back(std::make_shared<SnapshotMetrics>(std::move(snapshots)));
  if (controller_metrics != nullptr) {
    exporter->collectables_.push_back(std::make_shared<ControllerCollectable>(controller_metrics));
  }
  // prometheus-cpp (civetweb) reports a failed bind by throwing: it stops here.
  try {
    exporter->exposer_ = std::make_unique<prometheus::Exposer>(listen, /*num_threads=*/2);
  } catch (const std::exception& e) {
    return absl::UnavailableError(
        absl::StrCat("metrics_listen: cannot listen on ", listen,
                     " (address in use, or not an address of this machine?): ", e.what()));
  }
  for (const auto& collectable : exporter->collectables_) {
    exporter->exposer_->RegisterCollectable(collectable);
  }
  const std::vector<int> ports = exporter->exposer_->GetListeningPorts();
  exporter->port_ = ports.empty() ? 0 : ports.front();
  return exporter;
}

MetricsExporter::~MetricsExporter() {
  exposer_.reset();  // stops serving before the collectables go
}

}  // namespace canopy::server
