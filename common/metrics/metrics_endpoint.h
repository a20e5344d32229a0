// MetricsEndpoint: a Prometheus endpoint, GET http://<listen>/metrics, served by
// prometheus-cpp's pull exposer on threads of its own; canopyd's (metrics_listen) and the
// agent's (--metrics_listen) each have one. What it serves comes from the collectables it is
// given, called at each scrape on the exposer's threads.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "prometheus/collectable.h"
#include "prometheus/exposer.h"

namespace canopy::metrics {

class MetricsEndpoint {
 public:
  // Listens on `listen` ("HOST:PORT"; port 0 = any free port). Unavailable, naming `field` and
  // the address, when it cannot.
  static absl::StatusOr<std::unique_ptr<MetricsEndpoint>> Start(
      const std::string& field, const std::string& listen,
      std::vector<std::shared_ptr<prometheus::Collectable>> collectables);
  ~MetricsEndpoint();

  int port() const { return port_; }

 private:
  MetricsEndpoint() = default;
  // The exposer holds weak pointers to these: they are declared first, so destroyed last.
  std::vector<std::shared_ptr<prometheus::Collectable>> collectables_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  int port_ = 0;
};

}  // namespace canopy::metrics
