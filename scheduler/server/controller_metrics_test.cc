#include "scheduler/server/controller_metrics.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::server {
namespace {

TEST(ControllerMetricsTest, PassesCommitsAndTheWal) {
  ControllerMetrics metrics("/nonexistent-wal");
  metrics.Refresh();
  plan::PassStats stats;
  stats.considered = 12;
  metrics.ObservePass(absl::Milliseconds(3), stats, /*backfill=*/true);
  metrics.ObserveCommit(absl::Milliseconds(1), false);
  double backfill_passes = -1;
  double failed_commits = -1;
  double wal = -1;
  for (const prometheus::MetricFamily& family : metrics.registry()->Collect()) {
    for (const prometheus::ClientMetric& m : family.metric) {
      const std::string label = m.label.empty() ? "" : m.label[0].value;
      if (family.name == "canopy_scheduler_pass_jobs_tested" && label == "backfill") {
        backfill_passes = static_cast<double>(m.histogram.sample_count);
        EXPECT_EQ(m.histogram.sample_sum, 12);
      } else if (family.name == "canopy_store_commits_total" && label == "failed") {
        failed_commits = m.counter.value;
      } else if (family.name == "canopy_store_wal_bytes") {
        wal = m.gauge.value;
      }
    }
  }
  EXPECT_EQ(backfill_passes, 1);
  EXPECT_EQ(failed_commits, 1);
  EXPECT_EQ(wal, 0);  // no WAL file: 0, not an error
}

}  // namespace
}  // namespace canopy::server
