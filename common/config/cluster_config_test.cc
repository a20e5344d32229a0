// Tests for LoadClusterConfig (file reading, format detection) and ControllerAddress.
#include "common/config/cluster_config.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::config {
namespace {

// A fresh directory under the test's temp dir.
std::string MakeDir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "/canopy_config_" + name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

void WriteFile(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

TEST(LoadClusterConfigTest, DetectsFormatByExtension) {
  const std::string dir = MakeDir("formats");
  const std::string yaml = "nodes:\n  - names: y1\n";
  const std::string conf = "NodeName=s1\n";
  for (const std::string name : {"c.yaml", "c.yml", "C.YAML"}) {
    WriteFile(dir + "/" + name, yaml);
    absl::StatusOr<ClusterConfig> config = LoadClusterConfig(dir + "/" + name);
    ASSERT_TRUE(config.ok()) << name << ": " << config.status();
    EXPECT_EQ(config->format, ConfigFormat::kCanopyYaml);
    EXPECT_EQ(config->path, dir + "/" + name);
    EXPECT_EQ(config->nodes[0].name, "y1");
  }
  for (const std::string name : {"slurm.conf", "cluster.cfg", "noext"}) {
    WriteFile(dir + "/" + name, conf);
    absl::StatusOr<ClusterConfig> config = LoadClusterConfig(dir + "/" + name);
    ASSERT_TRUE(config.ok()) << name << ": " << config.status();
    EXPECT_EQ(config->format, ConfigFormat::kSlurmConf);
    EXPECT_EQ(config->nodes[0].name, "s1");
  }
}

TEST(LoadClusterConfigTest, ClientsSkipTheTopologyButNotTheControllerOrSecurity) {
  const std::string dir = MakeDir("client");
  WriteFile(dir + "/slurm.conf",
            "SlurmctldHost=head(10.0.0.5)\nSlurmctldPort=7817\nTopologyPlugin=topology/tree\n"
            "AuthType=auth/munge\nNodeName=n[1-2]\n");
  WriteFile(dir + "/topology.conf", "SwitchName=leaf Nodes=n[1-2]\n");
  WriteFile(dir + "/canopy.conf", "tls_ca: /etc/canopy/ca.pem\n");
  absl::StatusOr<ClusterConfig> full = LoadClusterConfig(dir + "/slurm.conf");
  absl::StatusOr<ClusterConfig> client = LoadClusterConfigWithoutTopology(dir + "/slurm.conf");
  ASSERT_TRUE(full.ok()) << full.status();
  ASSERT_TRUE(client.ok()) << client.status();
  EXPECT_NE(full->topology.kind, TopologySource::Kind::kNone);
  EXPECT_EQ(client->topology.kind, TopologySource::Kind::kNone);
  EXPECT_EQ(ControllerAddress(*client).value(), ControllerAddress(*full).value());
  EXPECT_EQ(client->unix_socket, full->unix_socket);
  EXPECT_EQ(client->security.auth_type, full->security.auth_type);
  EXPECT_EQ(client->security.tls_ca, "/etc/canopy/ca.pem");
  // Still the same checks for what it reads.
  WriteFile(dir + "/slurm.conf", "SlurmctldPort=x\nNodeName=n1\n");
  EXPECT_EQ(LoadClusterConfigWithoutTopology(dir + "/slurm.conf").status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(LoadClusterConfigTest, ErrorsNameTheFile) {
  const std::string dir = MakeDir("errors");
  WriteFile(dir + "/bad.yaml", "nodes:\n  - names: a\n    cpus: abc\n");
  absl::StatusOr<ClusterConfig> bad = LoadClusterConfig(dir + "/bad.yaml");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message(),
            dir + "/bad.yaml:3: nodes[0].cpus: expected a positive integer, got \"abc\"");
}

TEST(LoadClusterConfigTest, MissingFileIsNotFound) {
  const std::string path = MakeDir("missing") + "/slurm.conf";
  absl::StatusOr<ClusterConfig> config = LoadClusterConfig(path);
  EXPECT_EQ(config.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(config.status().message(), "cannot open " + path + ": No such file or directory");
}

TEST(LoadClusterConfigTest, DirectoryIsFailedPrecondition) {
  const std::string dir = MakeDir("isdir");
  absl::StatusOr<ClusterConfig> config = LoadClusterConfig(dir);
  EXPECT_EQ(config.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(config.status().message(), "cannot read " + dir + ": Is a directory");
}

TEST(LoadClusterConfigTest, UnreadableFileIsPermissionDenied) {
  if (::geteuid() == 0) {
    GTEST_SKIP() << "root can read any file";
  }
  const std::string path = MakeDir("unreadable") + "/slurm.conf";
  WriteFile(path, "NodeName=n\n");
  std::filesystem::permissions(path, std::filesystem::perms::none);
  absl::StatusOr<ClusterConfig> config = LoadClusterConfig(path);
  EXPECT_EQ(config.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(config.status().message(), "cannot open " + path + ": Permission denied");
}

TEST(ControllerAddressTest, HostAndPort) {
  ClusterConfig config;
  config.controller_host = "head01";
  config.controller_port = 7001;
  EXPECT_EQ(ControllerAddress(config).value(), "head01:7001");
  config.controller_host = "fd00::1";
  EXPECT_EQ(ControllerAddress(config).value(), "[fd00::1]:7001");
  config.controller_host = "[fd00::1]";
  EXPECT_EQ(ControllerAddress(config).value(), "[fd00::1]:7001");
}

TEST(ControllerAddressTest, NoHostIsFailedPrecondition) {
  ClusterConfig config;
  config.path = "/etc/slurm/slurm.conf";
  absl::StatusOr<std::string> address = ControllerAddress(config);
  EXPECT_EQ(address.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(address.status().message(),
            "/etc/slurm/slurm.conf names no controller host (set SlurmctldHost in slurm.conf or "
            "controller.host in Canopy YAML)");
}

}  // namespace
}  // namespace canopy::config
