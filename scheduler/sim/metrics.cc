// Metric computation and output (metrics.h).
#include "scheduler/sim/metrics.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace canopy::sim {
namespace {

double Secs(absl::Duration d) { return absl::ToDoubleSeconds(d); }

std::string Num(double v) {
  if (!std::isfinite(v)) {
    return "null";
  }
  return absl::StrFormat("%.6g", v);
}

std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += absl::StrFormat("\\u%04x", c);
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace

void MetricsCollector::JobSubmitted(absl::Time t) { first_submit_ = std::min(first_submit_, t); }

void MetricsCollector::GpusChanged(absl::Time t, int64_t delta) {
  if (last_change_ != absl::InfinitePast()) {
    busy_gpu_seconds_ += static_cast<double>(busy_) * Secs(t - last_change_);
  }
  last_change_ = t;
  busy_ += delta;
  const double x = Secs(t - origin_);
  if (!series_.busy_gpus.empty() && series_.busy_gpus.back().first == x) {
    series_.busy_gpus.back().second = busy_;
  } else {
    series_.busy_gpus.push_back({x, busy_});
  }
}

void MetricsCollector::MultiNodeStart(int32_t leaves, int32_t min_leaves, double stretch) {
  ++multi_;
  leaves_sum_ += leaves;
  stretch_sum_ += stretch;
  if (min_leaves >= 0 && leaves <= min_leaves) {
    ++at_min_;
  }
  series_.leaf_switches.push_back(leaves);
}

void MetricsCollector::CutOff(absl::Time t) {
  GpusChanged(t, 0);
  cutoff_ = t;
}

void MetricsCollector::AccountShare(const std::string& account, double share, double fairshare) {
  accounts_[account].share = share;
  accounts_[account].fairshare = fairshare;
}

void MetricsCollector::Delivered(const std::string& account, double gpu_seconds) {
  accounts_[account].gpu_seconds += gpu_seconds;
}

void MetricsCollector::JobFinished(const std::string& account, absl::Time submit,
                                   absl::Time first_start, absl::Time end,
                                   absl::Duration duration) {
  last_end_ = std::max(last_end_, end);
  const double wait =
      first_start == absl::InfinitePast() ? Secs(end - submit) : Secs(first_start - submit);
  series_.waits_s.push_back(wait);
  const double response = Secs(end - submit);
  slowdown_sum_ += std::max(1.0, response / std::max(Secs(duration), 10.0));
  Acct& a = accounts_[account];
  a.wait_sum += wait;
  ++a.jobs;
}

SimMetrics MetricsCollector::Finish(std::string policy, int64_t passes, int64_t events) const {
  SimMetrics m;
  m.policy = std::move(policy);
  m.jobs = static_cast<int64_t>(series_.waits_s.size());
  m.unschedulable = unschedulable_;
  m.passes = passes;
  m.events = events;
  if (cutoff_ != absl::InfiniteFuture()) {
    m.makespan_s = Secs(cutoff_ - origin_);
    m.gpu_utilization = total_gpus_ > 0 && m.makespan_s > 0
                            ? busy_gpu_seconds_ / (static_cast<double>(total_gpus_) * m.makespan_s)
                            : 0;
  } else if (m.jobs > 0 && last_end_ > first_submit_) {
    m.makespan_s = Secs(last_end_ - first_submit_);
    m.gpu_utilization =
        total_gpus_ > 0 ? busy_gpu_seconds_ / (static_cast<double>(total_gpus_) * m.makespan_s) : 0;
  }
  if (m.jobs > 0) {
    std::vector<double> w = series_.waits_s;
    double sum = 0;
    for (double x : w) {
      sum += x;
    }
    m.mean_wait_s = sum / static_cast<double>(w.size());
    // Nearest-rank percentile: the smallest wait with at least 95% of jobs at or below it.
    const size_t rank = static_cast<size_t>(std::ceil(0.95 * static_cast<double>(w.size())));
    std::nth_element(w.begin(), w.begin() + (rank - 1), w.end());
    m.p95_wait_s = w[rank - 1];
    m.mean_bounded_slowdown = slowdown_sum_ / static_cast<double>(m.jobs);
  }
  m.multi_node_jobs = multi_;
  m.min_switch_frac = multi_ > 0 ? static_cast<double>(at_min_) / static_cast<double>(multi_) : 1;
  m.mean_leaf_switches =
      multi_ > 0 ? static_cast<double>(leaves_sum_) / static_cast<double>(multi_) : 0;
  m.mean_stretch = multi_ > 0 ? stretch_sum_ / static_cast<double>(multi_) : 1;
  m.requeues = requeues_;
  m.node_failures = node_failures_;
  m.timeouts = timeouts_;
  m.node_fail_jobs = node_fail_jobs_;
  for (const auto& [name, a] : accounts_) {
    AccountMetrics& out = m.accounts[name];
    out.gpu_hours = a.gpu_seconds / 3600.0;
    out.jobs = a.jobs;
    out.mean_wait_s = a.jobs > 0 ? a.wait_sum / static_cast<double>(a.jobs) : 0;
    out.share = a.share;
    out.fairshare = a.fairshare;
  }
  return m;
}

std::string MetricsToJson(const SimMetrics& m) {
  std::string out = absl::StrCat(
      "{\"policy\":", Quote(m.policy), ",\"jobs\":", m.jobs, ",\"unschedulable\":", m.unschedulable,
      ",\"makespan_s\":", Num(m.makespan_s), ",\"gpu_utilization\":", Num(m.gpu_utilization),
      ",\"mean_wait_s\":", Num(m.mean_wait_s), ",\"p95_wait_s\":", Num(m.p95_wait_s),
      ",\"mean_bounded_slowdown\":", Num(m.mean_bounded_slowdown),
      ",\"multi_node_jobs\":", m.multi_node_jobs, ",\"min_switch_frac\":", Num(m.min_switch_frac),
      ",\"mean_leaf_switches\":", Num(m.mean_leaf_switches),
      ",\"mean_stretch\":", Num(m.mean_stretch), ",\"requeues\":", m.requeues,
      ",\"node_failures\":", m.node_failures, ",\"timeouts\":", m.timeouts,
      ",\"node_fail_jobs\":", m.node_fail_jobs);
  absl::StrAppend(&out, ",\"passes\":", m.passes, ",\"events\":", m.events,
                  ",\"sim_wall_s\":", Num(m.sim_wall_s), ",\"events_per_s\":", Num(m.events_per_s),
                  ",\"accounts\":{");
  bool first = true;
  for (const auto& [name, a] : m.accounts) {
    absl::StrAppend(&out, first ? "" : ",", Quote(name), ":{\"gpu_hours\":", Num(a.gpu_hours),
                    ",\"mean_wait_s\":", Num(a.mean_wait_s), ",\"jobs\":", a.jobs,
                    ",\"share\":", Num(a.share), ",\"fairshare\":", Num(a.fairshare), "}");
    first = false;
  }
  absl::StrAppend(&out, "}}");
  return out;
}

std::string MetricsTable(const std::vector<SimMetrics>& runs) {
  struct Row {
    const char* name;
    std::string (*get)(const SimMetrics&);
  };
  static const Row kRows[] = {
      {"jobs", [](const SimMetrics& m) { return absl::StrCat(m.jobs); }},
      {"unschedulable", [](const SimMetrics& m) { return absl::StrCat(m.unschedulable); }},
      {"makespan_s", [](const SimMetrics& m) { return absl::StrFormat("%.0f", m.makespan_s); }},
      {"gpu_utilization",
       [](const SimMetrics& m) { return absl::StrFormat("%.4f", m.gpu_utilization); }},
      {"mean_wait_s", [](const SimMetrics& m) { return absl::StrFormat("%.1f", m.mean_wait_s); }},
      {"p95_wait_s", [](const SimMetrics& m) { return absl::StrFormat("%.1f", m.p95_wait_s); }},
      {"mean_bounded_slowdown",
       [](const SimMetrics& m) { return absl::StrFormat("%.3f", m.mean_bounded_slowdown); }},
      {"multi_node_jobs", [](const SimMetrics& m) { return absl::StrCat(m.multi_node_jobs); }},
      {"min_switch_frac",
       [](const SimMetrics& m) { return absl::StrFormat("%.4f", m.min_switch_frac); }},
      {"mean_leaf_switches",
       [](const SimMetrics& m) { return absl::StrFormat("%.3f", m.mean_leaf_switches); }},
      {"mean_stretch", [](const SimMetrics& m) { return absl::StrFormat("%.4f", m.mean_stretch); }},
      {"requeues", [](const SimMetrics& m) { return absl::StrCat(m.requeues); }},
      {"node_failures", [](const SimMetrics& m) { return absl::StrCat(m.node_failures); }},
      {"passes", [](const SimMetrics& m) { return absl::StrCat(m.passes); }},
      {"sim_wall_s", [](const SimMetrics& m) { return absl::StrFormat("%.2f", m.sim_wall_s); }},
      {"events_per_s", [](const SimMetrics& m) { return absl::StrFormat("%.0f", m.events_per_s); }},
  };
  std::string out = absl::StrFormat("%-22s", "metric");
  for (const SimMetrics& m : runs) {
    absl::StrAppend(&out, absl::StrFormat(" %20s", m.policy));
  }
  out += "\n";
  for (const Row& r : kRows) {
    absl::StrAppend(&out, absl::StrFormat("%-22s", r.name));
    for (const SimMetrics& m : runs) {
      absl::StrAppend(&out, absl::StrFormat(" %20s", r.get(m)));
    }
    out += "\n";
  }
  return out;
}

}  // namespace canopy::sim
