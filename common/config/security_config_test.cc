#include "common/config/security_config.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "common/config/cluster_config.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

absl::StatusOr<ClusterConfig> SecurityYaml(const std::string& text) {
  return ParseCanopyYaml(text + "nodes:\n  - names: n[1-2]\n    addr: 198.18.0.[2-3]\n",
                         "/etc/canopy/canopy.yaml", /*read_topology=*/false);
}

absl::StatusOr<ClusterConfig> SecuritySlurmConf(const std::string& text) {
  return ParseSlurmConf(text, "/etc/slurm/slurm.conf", /*read_topology=*/false);
}

TEST(SecurityConfigTest, SlurmConfKeys) {
  absl::StatusOr<ClusterConfig> config = SecuritySlurmConf(
      "AuthType=auth/munge\n"
      "AuthInfo=socket=/run/munge/other.socket,ttl=60\n"
      "SlurmdUser=canopy\n"
      "NodeName=gpu[1-3] NodeAddr=198.18.0.[2-4]\n"
      "NodeName=v[1-2] NodeAddr=198.18.0.9\n");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->security.auth_type, AuthType::kMunge);
  EXPECT_EQ(config->security.munge_socket, "/run/munge/other.socket");
  EXPECT_EQ(config->security.slurmd_user, "canopy");
  EXPECT_EQ(config->nodes[2].addr, "198.18.0.4");
  EXPECT_EQ(config->nodes[4].addr, "198.18.0.9");
  EXPECT_EQ(SecuritySlurmConf("NodeName=n").value().security.auth_type, AuthType::kNone);

  EXPECT_THAT(SecuritySlurmConf("AuthType=auth/jwt\nNodeName=n").status().message(),
              HasSubstr(":1: AuthType: expected auth/munge or auth/none (Canopy supports no "
                        "other), got 'auth/jwt'"));
  EXPECT_THAT(SecuritySlurmConf("AuthInfo=socket=relative\nNodeName=n").status().message(),
              HasSubstr("AuthInfo: expected socket=ABSOLUTE_PATH"));
  EXPECT_THAT(SecuritySlurmConf("NodeName=n[1-3] NodeAddr=a,b\n").status().message(),
              HasSubstr("NodeAddr: expected one address, or one per node (3), got 2"));
}

TEST(SecurityConfigTest, TheYamlTwinsOfSlurmsKeys) {
  absl::StatusOr<ClusterConfig> c = SecurityYaml(
      "auth_type: auth/munge\nmunge_socket: /run/munge/x.socket\nslurmd_user: canopy\n"
      "submit_for_others: portal, jupyter\n");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->security.auth_type, AuthType::kMunge);
  EXPECT_EQ(c->security.munge_socket, "/run/munge/x.socket");
  EXPECT_EQ(c->security.slurmd_user, "canopy");
  EXPECT_THAT(c->security.submit_for_others, ElementsAre("portal", "jupyter"));
  EXPECT_EQ(c->nodes[1].addr, "198.18.0.3");

  EXPECT_EQ(SecurityYaml("auth_type: kerberos\n").status().message(),
            "/etc/canopy/canopy.yaml:1: auth_type: expected auth/munge or auth/none (Canopy "
            "supports no other), got 'kerberos'");
  EXPECT_THAT(ParseCanopyYaml("nodes:\n  - names: n[1-3]\n    addr: a[1-2]\n", "c.yaml", false)
                  .status()
                  .message(),
              HasSubstr("nodes[0].addr: expected one address, or one per node (3), got 2"));
}

TEST(SecurityConfigTest, CanopyConfAndYamlApplyTheSameChecks) {
  const std::string dir =
      std::filesystem::temp_directory_path() / absl::StrCat("canopy-security-", getpid());
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/slurm.conf") << "AuthType=auth/munge\nNodeName=n1\n";
  std::ofstream(dir + "/canopy.conf") << "tls_cert: /etc/canopy/tls/canopyd.crt\n"
                                         "tls_key: /etc/canopy/tls/canopyd.key\n"
                                         "tls_ca: /etc/canopy/tls/ca.crt\n"
                                         "require_agent_certs: yes\n";
  absl::StatusOr<ClusterConfig> conf = LoadClusterConfig(dir + "/slurm.conf");
  ASSERT_TRUE(conf.ok()) << conf.status();
  EXPECT_EQ(conf->security.auth_type, AuthType::kMunge);
  EXPECT_EQ(conf->security.tls_ca, "/etc/canopy/tls/ca.crt");
  EXPECT_TRUE(conf->security.require_agent_certs);
  EXPECT_TRUE(conf->security.tls_enabled());

  std::ofstream(dir + "/canopy.conf") << "require_agent_certs: sometimes\n";
  EXPECT_EQ(LoadClusterConfig(dir + "/slurm.conf").status().message(),
            absl::StrCat(dir,
                         "/canopy.conf:1: require_agent_certs: expected true or false, got "
                         "'sometimes'"));
  EXPECT_EQ(SecurityYaml("require_agent_certs: sometimes\n").status().message(),
            "/etc/canopy/canopy.yaml:1: require_agent_certs: expected true or false, got "
            "'sometimes'");
  std::filesystem::remove_all(dir);
}

TEST(SecurityConfigTest, AuthNoneStaysOnLoopbackUnlessTheOperatorSaysSo) {
  SecurityConfig none;
  EXPECT_TRUE(CheckSecurity(none, "127.0.0.1").ok());
  EXPECT_TRUE(CheckSecurity(none, "localhost").ok());
  const absl::Status remote = CheckSecurity(none, "198.18.0.1");
  EXPECT_EQ(remote.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(remote.message(),
              HasSubstr("AuthType=auth/none with canopyd listening on 198.18.0.1"));
  EXPECT_THAT(remote.message(), HasSubstr("allow_insecure_remote: true"));
  none.allow_insecure_remote = true;
  EXPECT_TRUE(CheckSecurity(none, "0.0.0.0").ok());

  SecurityConfig munge;
  munge.auth_type = AuthType::kMunge;
  EXPECT_TRUE(CheckSecurity(munge, "0.0.0.0").ok());
}

TEST(SecurityConfigTest, TlsSettingsMustBeWhole) {
  SecurityConfig s;
  s.auth_type = AuthType::kMunge;
  s.tls_cert = "/x.crt";
  EXPECT_THAT(CheckSecurity(s, "0.0.0.0").message(), HasSubstr("tls_cert and tls_key"));
  s.tls_key = "/x.key";
  EXPECT_THAT(CheckSecurity(s, "0.0.0.0").message(), HasSubstr("tls_ca: expected the site CA"));
  s.tls_ca = "/nonexistent/ca.crt";
  EXPECT_THAT(CheckSecurity(s, "0.0.0.0").message(), HasSubstr("tls_cert: cannot read /x.crt"));
  SecurityConfig certs_without_tls;
  certs_without_tls.require_agent_certs = true;
  EXPECT_THAT(CheckSecurity(certs_without_tls, "127.0.0.1").message(),
              HasSubstr("require_agent_certs: needs TLS"));
}

}  // namespace
}  // namespace canopy::config
