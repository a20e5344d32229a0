// FamilyBuilder: one Prometheus metric family built at scrape time from values the caller
// computes (a snapshot's counts, an agent's GPU figures): samples with the same labels add up;
// samples come out in label order, so scrapes are stable. Not thread-safe; one per scrape.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "prometheus/metric_family.h"
#include "prometheus/metric_type.h"

namespace canopy::metrics {

using LabelPairs = std::vector<std::pair<std::string, std::string>>;

class FamilyBuilder {
 public:
  FamilyBuilder(std::string name, std::string help,
                prometheus::MetricType type = prometheus::MetricType::Gauge)
      : name_(std::move(name)), help_(std::move(help)), type_(type) {}

  void Add(const LabelPairs& labels, double value) { values_[labels] += value; }

  prometheus::MetricFamily Take() {
    prometheus::MetricFamily family;
    family.name = name_;
    family.help = help_;
    family.type = type_;
    for (const auto& [labels, value] : values_) {
      prometheus::ClientMetric& metric = family.metric.emplace_back();
      for (const auto& [name, label_value] : labels) {
        metric.label.push_back({name, label_value});
      }
      if (type_ == prometheus::MetricType::Counter) {
        metric.counter.value = value;
      } else {
        metric.gauge.value = value;
      }
    }
    values_.clear();
    return family;
  }

 private:
  std::string name_;
  std::string help_;
  prometheus::MetricType type_;
  std::map<LabelPairs, double> values_;
};

}  // namespace canopy::metrics
