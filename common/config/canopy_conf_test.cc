// Settings Slurm has no key for: the YAML's own keys, and canopy.conf beside a slurm.conf, with
// the same checks.
#include "common/config/canopy_conf.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(CanopyConfTest, ListenAddresses) {
  EXPECT_TRUE(CheckListenAddress("f", "127.0.0.1:9464").ok());
  EXPECT_TRUE(CheckListenAddress("f", "0.0.0.0:0").ok());
  EXPECT_TRUE(CheckListenAddress("f", "head-1.example.org:9464").ok());
  EXPECT_TRUE(CheckListenAddress("f", "[::1]:9464").ok());
  for (const char* bad :
       {"", "9464", ":9464", "host:", "host:http", "host:65536", "::1:9464", "[]:1", "a b:1"}) {
    EXPECT_FALSE(CheckListenAddress("f", bad).ok()) << bad;
  }
  EXPECT_EQ(CheckListenAddress("metrics_listen", "9464").message(),
            "metrics_listen: expected HOST:PORT (a host name or address, [v6 address], and a port "
            "0-65535), got '9464'");
}

TEST(CanopyConfTest, TheYamlHasTheKeysItself) {
  absl::StatusOr<ClusterConfig> yaml =
      ParseCanopyYaml("metrics_listen: 127.0.0.1:9464\nnodes:\n  - names: n1\n",
                      "/etc/canopy/canopy.yaml", /*read_topology=*/false);
  ASSERT_TRUE(yaml.ok()) << yaml.status();
  EXPECT_EQ(yaml->metrics_listen, "127.0.0.1:9464");
  EXPECT_EQ(yaml->agent_metrics_listen, "");
  yaml = ParseCanopyYaml("metrics_listen: 9464\nnodes:\n  - names: n1\n", "/etc/canopy/canopy.yaml",
                         /*read_topology=*/false);
  EXPECT_EQ(yaml.status().message(),
            "/etc/canopy/canopy.yaml:1: metrics_listen: expected HOST:PORT (a host name or "
            "address, [v6 address], and a port 0-65535), got '9464'");
}

class CanopyConfFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / absl::StrCat("canopy-conf-", getpid());
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ + "/slurm.conf") << "ClusterName=c\nNodeName=n1 CPUs=2\n";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(CanopyConfFileTest, SlurmConfWithoutCanopyConfHasNoMetrics) {
  absl::StatusOr<ClusterConfig> config = LoadClusterConfig(dir_ + "/slurm.conf");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->metrics_listen, "");
}

TEST_F(CanopyConfFileTest, CanopyConfBesideSlurmConfIsRead) {
  std::ofstream(dir_ + "/canopy.conf") << "# Canopy's settings Slurm has no key for\n"
                                       << "metrics_listen: \"[::1]:9464\"\nweb_lisen: x\n"
                                       << "agent_metrics_listen: 0.0.0.0:9465\n";
  absl::StatusOr<ClusterConfig> config = LoadClusterConfig(dir_ + "/slurm.conf");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->metrics_listen, "[::1]:9464");
  EXPECT_EQ(config->agent_metrics_listen, "0.0.0.0:9465");
  EXPECT_THAT(config->unused_keys, ElementsAre("web_lisen"));  // listed at start-up
}

TEST_F(CanopyConfFileTest, TheWebViewKeysHaveOneCheckThroughBothDoors) {
  std::ofstream(dir_ + "/canopy.conf") << "web_listen: 0.0.0.0:8080\nweb_allow_remote: true\n";
  absl::StatusOr<ClusterConfig> conf = LoadClusterConfig(dir_ + "/slurm.conf");
  ASSERT_TRUE(conf.ok()) << conf.status();
  EXPECT_EQ(conf->web_listen, "0.0.0.0:8080");
  EXPECT_TRUE(conf->web_allow_remote);
  absl::StatusOr<ClusterConfig> yaml =
      ParseCanopyYaml("web_listen: 0.0.0.0:8080\nweb_allow_remote: true\nnodes:\n  - names: n1\n",
                      "/etc/canopy/canopy.yaml", /*read_topology=*/false);
  ASSERT_TRUE(yaml.ok()) << yaml.status();
  EXPECT_EQ(yaml->web_listen, conf->web_listen);
  EXPECT_EQ(yaml->web_allow_remote, conf->web_allow_remote);

  std::ofstream(dir_ + "/canopy.conf") << "web_allow_remote: maybe\n";
  EXPECT_EQ(
      LoadClusterConfig(dir_ + "/slurm.conf").status().message(),
      absl::StrCat(dir_, "/canopy.conf:1: web_allow_remote: expected true or false, got 'maybe'"));
  EXPECT_EQ(ParseCanopyYaml("web_allow_remote: maybe\nnodes:\n  - names: n1\n",
                            "/etc/canopy/canopy.yaml", /*read_topology=*/false)
                .status()
                .message(),
            "/etc/canopy/canopy.yaml:1: web_allow_remote: expected true or false, got 'maybe'");

  EXPECT_TRUE(IsLoopbackListenAddress("127.0.0.1:8080"));
  EXPECT_TRUE(IsLoopbackListenAddress("localhost:0"));
  EXPECT_TRUE(IsLoopbackListenAddress("[::1]:8080"));
  EXPECT_FALSE(IsLoopbackListenAddress("0.0.0.0:8080"));
  EXPECT_FALSE(IsLoopbackListenAddress("head-1:8080"));
}

TEST_F(CanopyConfFileTest, GrpcReflectionHasOneCheckThroughBothDoors) {
  using Access = ClusterConfig::ReflectionAccess;
  EXPECT_EQ(ParseCanopyYaml("nodes:\n  - names: n1\n", "/etc/canopy/canopy.yaml",
                            /*read_topology=*/false)
                ->grpc_reflection,
            Access::kOff);
  for (const auto& [text, access] :
       {std::pair{"off", Access::kOff}, std::pair{"authenticated", Access::kAuthenticated},
        std::pair{"everyone", Access::kEveryone}}) {
    std::ofstream(dir_ + "/canopy.conf") << "grpc_reflection: " << text << "\n";
    absl::StatusOr<ClusterConfig> conf = LoadClusterConfig(dir_ + "/slurm.conf");
    ASSERT_TRUE(conf.ok()) << conf.status();
    EXPECT_EQ(conf->grpc_reflection, access) << text;
    absl::StatusOr<ClusterConfig> yaml =
        ParseCanopyYaml(absl::StrCat("grpc_reflection: ", text, "\nnodes:\n  - names: n1\n"),
                        "/etc/canopy/canopy.yaml", /*read_topology=*/false);
    ASSERT_TRUE(yaml.ok()) << yaml.status();
    EXPECT_EQ(yaml->grpc_reflection, access) << text;
  }
  std::ofstream(dir_ + "/canopy.conf") << "grpc_reflection: yes\n";
  EXPECT_EQ(LoadClusterConfig(dir_ + "/slurm.conf").status().message(),
            absl::StrCat(dir_,
                         "/canopy.conf:1: grpc_reflection: expected off, authenticated or "
                         "everyone, got 'yes'"));
  EXPECT_EQ(ParseCanopyYaml("grpc_reflection: yes\nnodes:\n  - names: n1\n",
                            "/etc/canopy/canopy.yaml", /*read_topology=*/false)
                .status()
                .message(),
            "/etc/canopy/canopy.yaml:1: grpc_reflection: expected off, authenticated or "
            "everyone, got 'yes'");
}

TEST_F(CanopyConfFileTest, HeartbeatIntervalHasOneCheckThroughBothDoors) {
  // slurm.conf has no key for it: agents beat at a third of SlurmdTimeout, at most every 10 s,
  // unless canopy.conf says otherwise (large clusters: fewer heartbeats).
  EXPECT_EQ(LoadClusterConfig(dir_ + "/slurm.conf")->heartbeat_interval, absl::Seconds(10));
  std::ofstream(dir_ + "/canopy.conf") << "heartbeat_interval: 30s\n";
  absl::StatusOr<ClusterConfig> conf = LoadClusterConfig(dir_ + "/slurm.conf");
  ASSERT_TRUE(conf.ok()) << conf.status();
  EXPECT_EQ(conf->heartbeat_interval, absl::Seconds(30));
  absl::StatusOr<ClusterConfig> yaml =
      ParseCanopyYaml("heartbeat_interval: 30s\nnodes:\n  - names: n1\n", "/etc/canopy/canopy.yaml",
                      /*read_topology=*/false);
  ASSERT_TRUE(yaml.ok()) << yaml.status();
  EXPECT_EQ(yaml->heartbeat_interval, conf->heartbeat_interval);
  EXPECT_EQ(yaml->node_timeout, conf->node_timeout);

  // Both refuse a heartbeat that one late beat would turn into every node DOWN.
  std::ofstream(dir_ + "/canopy.conf") << "heartbeat_interval: 200s\n";
  EXPECT_EQ(LoadClusterConfig(dir_ + "/slurm.conf").status().message(),
            absl::StrCat(dir_,
                         "/canopy.conf:1: heartbeat_interval: slurm.conf's SlurmdTimeout must be "
                         "more than twice the heartbeat interval (3m20s) so that one late "
                         "heartbeat does not mark every node DOWN, got 5m"));
  EXPECT_THAT(ParseCanopyYaml("heartbeat_interval: 200s\nnodes:\n  - names: n1\n",
                              "/etc/canopy/canopy.yaml", /*read_topology=*/false)
                  .status()
                  .message(),
              HasSubstr("must be more than twice the heartbeat interval (3m20s)"));
  std::ofstream(dir_ + "/canopy.conf") << "heartbeat_interval: often\n";
  EXPECT_THAT(LoadClusterConfig(dir_ + "/slurm.conf").status().message(),
              HasSubstr("/canopy.conf:1: heartbeat_interval: expected"));
}

TEST_F(CanopyConfFileTest, ABadCanopyConfNamesFileLineAndKey) {
  std::ofstream(dir_ + "/canopy.conf") << "\nmetrics_listen: localhost\n";
  absl::StatusOr<ClusterConfig> config = LoadClusterConfig(dir_ + "/slurm.conf");
  EXPECT_EQ(config.status().message(),
            absl::StrCat(dir_,
                         "/canopy.conf:2: metrics_listen: expected HOST:PORT (a host name or "
                         "address, [v6 address], and a port 0-65535), got 'localhost'"));
  std::ofstream(dir_ + "/canopy.conf") << "metrics_listen: [1, 2\n";
  config = LoadClusterConfig(dir_ + "/slurm.conf");
  EXPECT_THAT(config.status().message(), HasSubstr("/canopy.conf:"));
  EXPECT_THAT(config.status().message(), HasSubstr("not valid YAML"));
  std::ofstream(dir_ + "/canopy.conf") << "- a list\n";
  config = LoadClusterConfig(dir_ + "/slurm.conf");
  EXPECT_THAT(config.status().message(), HasSubstr("expected a mapping"));
}

}  // namespace
}  // namespace canopy::config
