// AgentMetrics: canopy-agent's figures for Prometheus, per hosted node and per GPU, from what
// each node session read at its last heartbeat (NodeSession::Gpus()): health, utilisation,
// memory, temperature, power, ECC and XID counts, so a site needs no separate GPU exporter.
// Served on --metrics_listen (or the config's agent_metrics_listen); docs/metrics.md lists them.
#pragma once

#include <vector>

#include "agent/server/node_session.h"
#include "prometheus/collectable.h"
#include "prometheus/metric_family.h"

namespace canopy::agent {

class AgentMetrics : public prometheus::Collectable {
 public:
  // The sessions must outlive this.
  explicit AgentMetrics(std::vector<NodeSession*> sessions) : sessions_(std::move(sessions)) {}
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  std::vector<NodeSession*> sessions_;
};

}  // namespace canopy::agent
