#include "scheduler/server/controller_metrics.h"

#include <sys/stat.h>

#include <vector>

namespace canopy::server {
namespace {

// Seconds: a pass over a few jobs takes microseconds, one over 10,000 pending jobs on 16,384
// nodes up to seconds; commits sit between (an fsync).
const prometheus::Histogram::BucketBoundaries& SecondsBuckets() {
  static const prometheus::Histogram::BucketBoundaries buckets = {
      0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5};
  return buckets;
}

const prometheus::Histogram::BucketBoundaries& JobCountBuckets() {
  static const prometheus::Histogram::BucketBoundaries buckets = {0,   1,    10,   100,
                                                                  500, 1000, 5000, 10000};
  return buckets;
}

}  // namespace

ControllerMetrics::ControllerMetrics(std::string wal_path)
    : wal_path_(std::move(wal_path)),
      registry_(std::make_shared<prometheus::Registry>()),
      pass_seconds_(prometheus::BuildHistogram()
                        .Name("canopy_scheduler_pass_duration_seconds")
                        .Help("Wall time of each scheduling pass, by kind (main: strict "
                              "priority order; backfill: with reservations)")
                        .Register(*registry_)),
      pass_jobs_tested_(prometheus::BuildHistogram()
                            .Name("canopy_scheduler_pass_jobs_tested")
                            .Help("Pending jobs each scheduling pass looked at, by kind")
                            .Register(*registry_)),
      commit_seconds_(prometheus::BuildHistogram()
                          .Name("canopy_store_commit_duration_seconds")
                          .Help("Wall time of each database transaction (a group commit of "
                                "everything one batch of commands changed), fsync included")
                          .Register(*registry_)
                          .Add({}, SecondsBuckets())),
      commits_(prometheus::BuildCounter()
                   .Name("canopy_store_commits_total")
                   .Help("Database transactions, by result (ok, failed: retried with a later "
                         "batch)")
                   .Register(*registry_)),
      rpc_seconds_(prometheus::BuildHistogram()
                       .Name("canopy_rpc_duration_seconds")
                       .Help("Latency of unary client RPCs as canopyd served them, by method")
                       .Register(*registry_)),
      wal_bytes_(prometheus::BuildGauge()
                     .Name("canopy_store_wal_bytes")
                     .Help("Size of the database's write-ahead log")
                     .Register(*registry_)
                     .Add({})) {
  // Present from the start, so a dashboard shows 0 rather than nothing.
  for (const char* kind : {"main", "backfill"}) {
    pass_seconds_.Add({{"kind", kind}}, SecondsBuckets());
    pass_jobs_tested_.Add({{"kind", kind}}, JobCountBuckets());
  }
  commits_.Add({{"result", "ok"}});
  commits_.Add({{"result", "failed"}});
}

void ControllerMetrics::ObservePass(absl::Duration took, const plan::PassStats& stats,
                                    bool backfill) {
  const prometheus::Labels labels = {{"kind", backfill ? "backfill" : "main"}};
  pass_seconds_.Add(labels, SecondsBuckets()).Observe(absl::ToDoubleSeconds(took));
  pass_jobs_tested_.Add(labels, JobCountBuckets()).Observe(stats.considered);
}

void ControllerMetrics::ObserveCommit(absl::Duration took, bool ok) {
  commit_seconds_.Observe(absl::ToDoubleSeconds(took));
  commits_.Add({{"result", ok ? "ok" : "failed"}}).Increment();
}

void ControllerMetrics::ObserveRpc(absl::string_view method, absl::Duration took) {
  rpc_seconds_.Add({{"method", std::string(method)}}, SecondsBuckets())
      .Observe(absl::ToDoubleSeconds(took));
}

void ControllerMetrics::Refresh() {
  struct stat st;
  wal_bytes_.Set(stat(wal_path_.c_str(), &st) == 0 ? static_cast<double>(st.st_size) : 0);
}

namespace {

// What the controller counted, with what is read at scrape time refreshed first.
class RefreshingCollectable : public prometheus::Collectable {
 public:
  explicit RefreshingCollectable(ControllerMetrics* metrics) : metrics_(metrics) {}
  std::vector<prometheus::MetricFamily> Collect() const override {
    metrics_->Refresh();
    return metrics_->registry()->Collect();
  }

 private:
  ControllerMetrics* const metrics_;
};

}  // namespace

std::shared_ptr<prometheus::Collectable> ControllerMetrics::Collectable() {
  return std::make_shared<RefreshingCollectable>(this);
}

namespace {

class RpcMetricsInterceptor : public grpc::experimental::Interceptor {
 public:
  RpcMetricsInterceptor(ControllerMetrics* metrics, std::string method)
      : metrics_(metrics), method_(std::move(method)), start_(absl::Now()) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(
            grpc::experimental::InterceptionHookPoints::PRE_SEND_STATUS)) {
      metrics_->ObserveRpc(method_, absl::Now() - start_);
    }
    methods->Proceed();
  }

 private:
  ControllerMetrics* const metrics_;
  const std::string method_;
  const absl::Time start_;
};

}  // namespace

grpc::experimental::Interceptor* RpcMetricsInterceptorFactory::CreateServerInterceptor(
    grpc::experimental::ServerRpcInfo* info) {
  if (info->type() != grpc::experimental::ServerRpcInfo::Type::UNARY) {
    return nullptr;
  }
  // "/canopy.v1.Controller/SubmitJob" -> "SubmitJob"
  std::string method = info->method();
  method = method.substr(method.rfind('/') + 1);
  return new RpcMetricsInterceptor(metrics_, std::move(method));
}

}  // namespace canopy::server
