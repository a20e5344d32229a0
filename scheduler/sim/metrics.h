// Simulation metrics: what a run measured, how it is computed, and how it is printed.
//
// MetricsCollector is fed by the simulator as jobs start and end and as allocated GPUs change;
// Finish turns it into SimMetrics. Definitions (docs/design/simulator.md):
//   wait          = first start − submit (a requeued job's later waits are not added);
//   bounded slowdown = max(1, (end − submit) / max(duration, 10 s)), duration = trace run time
//                   on a perfect placement, so communication stretch and requeues show;
//   gpu_utilization = ∫ allocated GPUs dt / (total GPUs × makespan), makespan = last end − first
//                   submit; a job's GPUs count from its launch until it lets go of its nodes
//                   (cleanup holds of a requeued run are not counted);
//   min_switch_frac = share of multi-node starts that used the fewest leaf switches any
//                   placement could have used on the capacity free at that moment;
//   accounts.gpu_hours = GPU time the account's jobs ran, from each run's start to its end
//                   (including runs cut short by a node failure: that time was delivered, then
//                   lost; a launch that never ran delivered nothing), or to the cut-off;
//   accounts.share  = the account's normalised shares (NormShares) in the association tree;
//   accounts.fairshare = at the end: the account's fair-share factor (classic), or the mean of
//                   its users' factors (Fair Tree, where accounts have none of their own).
// With a cut-off (--until), makespan is the cut-off and utilization is measured up to it.
// Not thread-safe; plain values out.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"

namespace canopy::sim {

struct AccountMetrics {
  double gpu_hours = 0;
  double mean_wait_s = 0;
  int64_t jobs = 0;
  double share = 0;
  double fairshare = 0;
};

struct SimMetrics {
  std::string policy;
  int64_t jobs = 0;           // jobs that finished (any final state)
  int64_t unschedulable = 0;  // never runnable on this cluster (BadConstraints); not in `jobs`
  double makespan_s = 0;
  double gpu_utilization = 0;
  double mean_wait_s = 0;
  double p95_wait_s = 0;
  double mean_bounded_slowdown = 0;
  int64_t multi_node_jobs = 0;  // multi-node starts (a restart counts again)
  double min_switch_frac = 0;   // 1.0 when there were no multi-node jobs
  double mean_leaf_switches = 0;
  double mean_stretch = 1.0;  // over multi-node starts
  int64_t requeues = 0;
  int64_t node_failures = 0;
  int64_t timeouts = 0;
  int64_t node_fail_jobs = 0;  // --no-requeue jobs ended NODE_FAIL
  int64_t passes = 0;
  int64_t events = 0;
  double sim_wall_s = 0;  // measured by the caller (the library never reads a clock)
  double events_per_s = 0;
  std::map<std::string, AccountMetrics> accounts;  // ordered: output is stable
};

// Series kept for plots.
struct SimSeries {
  std::vector<std::pair<double, int64_t>> busy_gpus;  // (seconds since first submit, GPUs)
  std::vector<double> waits_s;                        // per finished job, in finish order
  std::vector<int32_t> leaf_switches;                 // per multi-node start
};

class MetricsCollector {
 public:
  explicit MetricsCollector(int64_t total_gpus, absl::Time origin)
      : total_gpus_(total_gpus), origin_(origin) {}

  void JobSubmitted(absl::Time t);
  // Allocated GPUs changed by `delta` at `t`.
  void GpusChanged(absl::Time t, int64_t delta);
  // A multi-node job started on `leaves` leaf switches; `min_leaves` < 0 = unknown.
  void MultiNodeStart(int32_t leaves, int32_t min_leaves, double stretch);
  // GPU time allocated to `account`.
  void Delivered(const std::string& account, double gpu_seconds);
  // A job reached a final state. `first_start` = InfinitePast if it never started.
  void JobFinished(const std::string& account, absl::Time submit, absl::Time first_start,
                   absl::Time end, absl::Duration duration);
  void Unschedulable() { ++unschedulable_; }
  void Requeued() { ++requeues_; }
  void NodeFailed() { ++node_failures_; }
  void TimedOut() { ++timeouts_; }
  void NodeFailJob() { ++node_fail_jobs_; }
  // The run stops at `t` (--until): allocated GPU time is counted up to it, and makespan is
  // measured from the origin to it.
  void CutOff(absl::Time t);
  // The account's place in the association tree, for the report.
  void AccountShare(const std::string& account, double share, double fairshare);

  SimMetrics Finish(std::string policy, int64_t passes, int64_t events) const;
  const SimSeries& series() const { return series_; }

 private:
  int64_t total_gpus_;
  absl::Time origin_;
  absl::Time first_submit_ = absl::InfiniteFuture();
  absl::Time last_end_ = absl::InfinitePast();
  absl::Time last_change_ = absl::InfinitePast();
  absl::Time cutoff_ = absl::InfiniteFuture();
  int64_t busy_ = 0;
  double busy_gpu_seconds_ = 0;
  double slowdown_sum_ = 0;
  int64_t multi_ = 0, at_min_ = 0, leaves_sum_ = 0;
  double stretch_sum_ = 0;
  int64_t unschedulable_ = 0, requeues_ = 0, node_failures_ = 0, timeouts_ = 0;
  int64_t node_fail_jobs_ = 0;
  struct Acct {
    double gpu_seconds = 0;
    double wait_sum = 0;
    int64_t jobs = 0;
    double share = 0;
    double fairshare = 0;
  };
  std::map<std::string, Acct> accounts_;
  SimSeries series_;
};

// One JSON object, keys in a fixed order (docs/performance.md lists them).
std::string MetricsToJson(const SimMetrics& m);
// A human table: one column per run.
std::string MetricsTable(const std::vector<SimMetrics>& runs);

}  // namespace canopy::sim
