#include "common/metrics/metrics_endpoint.h"

#include <exception>

#include "absl/strings/str_cat.h"

namespace canopy::metrics {

absl::StatusOr<std::unique_ptr<MetricsEndpoint>> MetricsEndpoint::Start(
    const std::string& field, const std::string& listen,
    std::vector<std::shared_ptr<prometheus::Collectable>> collectables) {
  std::unique_ptr<MetricsEndpoint> endpoint(new MetricsEndpoint());
  endpoint->collectables_ = std::move(collectables);
  // prometheus-cpp (civetweb) reports a failed bind by throwing: it stops here.
  try {
    endpoint->exposer_ = std::make_unique<prometheus::Exposer>(listen, /*num_threads=*/2);
  } catch (const std::exception& e) {
    return absl::UnavailableError(
        absl::StrCat(field, ": cannot listen on ", listen,
                     " (address in use, or not an address of this machine?): ", e.what()));
  }
  for (const auto& collectable : endpoint->collectables_) {
    endpoint->exposer_->RegisterCollectable(collectable);
  }
  const std::vector<int> ports = endpoint->exposer_->GetListeningPorts();
  endpoint->port_ = ports.empty() ? 0 : ports.front();
  return endpoint;
}

MetricsEndpoint::~MetricsEndpoint() {
  exposer_.reset();  // stops serving before the collectables go
}

}  // namespace canopy::metrics
