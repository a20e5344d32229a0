// The heartbeat both loaders derive from the node timeout, and the check they share: agents
// report at a third of the timeout (Slurm pings every SlurmdTimeout/3), at most every 10 s.
// SlurmdTimeout=2 used to leave the heartbeat at 10 s and mark every node DOWN between reports.
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/config/cluster_config.h"
#include "gtest/gtest.h"

namespace canopy::config {
namespace {

constexpr char kYamlNodeN1[] = "nodes:\n  - names: n1\n";

absl::Duration YamlHeartbeat(const std::string& settings) {
  absl::StatusOr<ClusterConfig> config =
      ParseCanopyYaml(absl::StrCat(settings, kYamlNodeN1), "canopy.yaml", /*read_topology=*/false);
  EXPECT_TRUE(config.ok()) << settings << ": " << config.status();
  return config.ok() ? config->heartbeat_interval : absl::ZeroDuration();
}

absl::StatusOr<ClusterConfig> SlurmConfWithTimeout(const std::string& timeout) {
  return ParseSlurmConf(absl::StrCat("SlurmdTimeout=", timeout, "\nNodeName=n1"), "slurm.conf",
                        /*read_topology=*/false);
}

TEST(HeartbeatTest, YamlFollowsNodeTimeoutUnlessGiven) {
  EXPECT_EQ(YamlHeartbeat("node_timeout: 6s\n"), absl::Seconds(2));
  EXPECT_EQ(YamlHeartbeat("node_timeout: 5s\n"), absl::Seconds(5) / 3);
  EXPECT_EQ(YamlHeartbeat("node_timeout: 10m\n"), absl::Seconds(10));
  EXPECT_EQ(YamlHeartbeat("node_timeout: 6s\nheartbeat_interval: 500ms\n"),
            absl::Milliseconds(500));
}

TEST(HeartbeatTest, SlurmConfIsAThirdOfSlurmdTimeout) {
  auto heartbeat = [](const std::string& timeout) {
    absl::StatusOr<ClusterConfig> config = SlurmConfWithTimeout(timeout);
    EXPECT_TRUE(config.ok()) << timeout << ": " << config.status();
    return config.ok() ? config->heartbeat_interval : absl::ZeroDuration();
  };
  EXPECT_EQ(heartbeat("2"), absl::Seconds(2) / 3);
  EXPECT_EQ(heartbeat("9"), absl::Seconds(3));
  EXPECT_EQ(heartbeat("300"), absl::Seconds(10));
  EXPECT_EQ(heartbeat("0"), absl::Seconds(10));
  for (const char* timeout : {"1", "2", "5", "29", "31"}) {
    absl::StatusOr<ClusterConfig> config = SlurmConfWithTimeout(timeout);
    ASSERT_TRUE(config.ok()) << timeout << ": " << config.status();
    EXPECT_GT(config->node_timeout, 2 * config->heartbeat_interval) << timeout;
  }
}

// The check both loaders share, named at the node_timeout field (and its line when written).
TEST(HeartbeatTest, NodeTimeoutMustBeMoreThanTwiceTheHeartbeat) {
  auto error = [](const std::string& settings) {
    absl::StatusOr<ClusterConfig> config = ParseCanopyYaml(absl::StrCat(settings, kYamlNodeN1),
                                                           "canopy.yaml", /*read_topology=*/false);
    return config.ok() ? std::string("accepted") : std::string(config.status().message());
  };
  EXPECT_EQ(error("node_timeout: 5s\nheartbeat_interval: 3s\n"),
            "canopy.yaml:1: node_timeout: must be more than twice the heartbeat interval (3s) so "
            "that one late heartbeat does not mark every node DOWN, got 5s");
  EXPECT_EQ(error("heartbeat_interval: 10m\n"),
            "canopy.yaml: node_timeout: must be more than twice the heartbeat interval (10m) so "
            "that one late heartbeat does not mark every node DOWN, got 5m");
  EXPECT_EQ(error("node_timeout: 2s\nheartbeat_interval: 1s\n").substr(0, 40),
            "canopy.yaml:1: node_timeout: must be mor");
}

}  // namespace
}  // namespace canopy::config
