// ControllerMetrics: what canopyd measures as it works, for Prometheus (served by
// common/metrics/metrics_endpoint.h): scheduling passes (duration, jobs tested, by kind), commits
// (duration, failures, the WAL's size) and client RPCs (latency by method, through
// RpcMetricsInterceptorFactory). The state itself (jobs, nodes, GPUs per switch) is read from
// snapshots (snapshot_metrics.h). Thread-safe: prometheus-cpp's metrics are.
#pragma once

#include <memory>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "grpcpp/support/server_interceptor.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"
#include "scheduler/plan/plan.h"

namespace canopy::server {

class ControllerMetrics {
 public:
  // `wal_path`: the database's write-ahead log, whose size a scrape reports.
  explicit ControllerMetrics(std::string wal_path);

  std::shared_ptr<prometheus::Registry> registry() const { return registry_; }

  void ObservePass(absl::Duration took, const plan::PassStats& stats, bool backfill);
  void ObserveCommit(absl::Duration took, bool ok);
  void ObserveRpc(absl::string_view method, absl::Duration took);
  // Refreshes what is read rather than counted (the WAL's size); called before each scrape.
  void Refresh();
  // For the metrics endpoint: the registry, refreshed at each scrape. Valid while this lives.
  std::shared_ptr<prometheus::Collectable> Collectable();

 private:
  const std::string wal_path_;
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Histogram>& pass_seconds_;
  prometheus::Family<prometheus::Histogram>& pass_jobs_tested_;
  prometheus::Histogram& commit_seconds_;
  prometheus::Family<prometheus::Counter>& commits_;
  prometheus::Family<prometheus::Histogram>& rpc_seconds_;
  prometheus::Gauge& wal_bytes_;
};

// Times every unary RPC of the server it is registered with (ServerBuilder::experimental()
// .SetInterceptorCreators) into `metrics`: canopy_rpc_duration_seconds{method}. Streams (the
// agents', StepIo) live as long as their peer and are left out.
class RpcMetricsInterceptorFactory : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit RpcMetricsInterceptorFactory(ControllerMetrics* metrics) : metrics_(metrics) {}
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override;

 private:
  ControllerMetrics* const metrics_;
};

}  // namespace canopy::server
