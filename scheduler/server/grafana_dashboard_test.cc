// deploy/grafana/canopy-cluster.json stays true to the metrics: it is valid JSON, every panel
// has queries, and every metric a query names is one docs/metrics.md documents; every metric
// ControllerMetrics registers is documented too.
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "scheduler/server/controller_metrics.h"

namespace canopy::server {
namespace {

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The metric names documented: the first column of docs/metrics.md's tables.
std::set<std::string> Documented() {
  const std::string doc = Read(CANOPY_SOURCE_DIR "/docs/metrics.md");
  std::set<std::string> names;
  const std::regex row(R"(\n\| `(canopy_[a-z_]+)` \|)");
  for (std::sregex_iterator it(doc.begin(), doc.end(), row), end; it != end; ++it) {
    names.insert((*it)[1]);
  }
  return names;
}

// "canopy_rpc_duration_seconds_bucket" -> "canopy_rpc_duration_seconds".
std::string Family(std::string name) {
  for (const char* suffix : {"_bucket", "_count", "_sum"}) {
    const std::string s = suffix;
    if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) {
      return name.substr(0, name.size() - s.size());
    }
  }
  return name;
}

TEST(GrafanaDashboardTest, EveryQueryNamesDocumentedMetrics) {
  const std::set<std::string> documented = Documented();
  ASSERT_GT(documented.size(), 10u);
  google::protobuf::Struct dashboard;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(
                  Read(CANOPY_SOURCE_DIR "/deploy/grafana/canopy-cluster.json"), &dashboard)
                  .ok());
  const auto& panels = dashboard.fields().at("panels").list_value().values();
  ASSERT_GT(panels.size(), 10);
  const std::regex metric(R"(canopy_[a-z_]+)");
  for (const auto& panel : panels) {
    const auto& fields = panel.struct_value().fields();
    SCOPED_TRACE(fields.at("title").string_value());
    const auto& targets = fields.at("targets").list_value().values();
    ASSERT_FALSE(targets.empty());
    for (const auto& target : targets) {
      const std::string expr = target.struct_value().fields().at("expr").string_value();
      int named = 0;
      for (std::sregex_iterator it(expr.begin(), expr.end(), metric), end; it != end; ++it) {
        EXPECT_TRUE(documented.contains(Family(it->str()))) << it->str() << " in " << expr;
        ++named;
      }
      EXPECT_GT(named, 0) << expr;
    }
  }
}

TEST(GrafanaDashboardTest, WhatTheControllerCountsIsDocumented) {
  const std::set<std::string> documented = Documented();
  ControllerMetrics metrics("/nonexistent-wal");
  for (const prometheus::MetricFamily& family : metrics.registry()->Collect()) {
    EXPECT_TRUE(documented.contains(family.name)) << family.name;
  }
}

}  // namespace
}  // namespace canopy::server
