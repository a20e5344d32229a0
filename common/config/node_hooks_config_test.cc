// PlugStackConfig, PluginDir and the node scripts (Prolog, Epilog, TaskProlog, TaskEpilog,
// PrologFlags), through both front doors (slurm.conf and Canopy YAML), which apply the same
// checks and defaults.
#include <string>

#include "absl/strings/str_cat.h"
#include "common/config/cluster_config.h"
#include "gtest/gtest.h"

namespace canopy::config {
namespace {

absl::StatusOr<ClusterConfig> SlurmConfPlusNode(const std::string& lines) {
  return ParseSlurmConf(absl::StrCat(lines, "NodeName=n1\n"), "/etc/slurm/slurm.conf",
                        /*read_topology=*/false);
}

absl::StatusOr<ClusterConfig> YamlPlusNode(const std::string& lines) {
  return ParseCanopyYaml(absl::StrCat(lines, "nodes:\n  - names: n1\n"), "/etc/canopy/canopy.yaml",
                         /*read_topology=*/false);
}

TEST(SpankConfigTest, DefaultIsPlugstackConfBesideTheConfig) {
  absl::StatusOr<ClusterConfig> slurm = SlurmConfPlusNode("");
  ASSERT_TRUE(slurm.ok()) << slurm.status();
  EXPECT_EQ(slurm->plugstack_config, "/etc/slurm/plugstack.conf");
  EXPECT_FALSE(slurm->plugstack_config_explicit);
  absl::StatusOr<ClusterConfig> yaml = YamlPlusNode("");
  ASSERT_TRUE(yaml.ok()) << yaml.status();
  EXPECT_EQ(yaml->plugstack_config, "/etc/canopy/plugstack.conf");
  EXPECT_EQ(yaml->plugin_dir, slurm->plugin_dir);
}

TEST(SpankConfigTest, ExplicitPathsRelativeToTheConfigsDirectory) {
  absl::StatusOr<ClusterConfig> slurm = SlurmConfPlusNode(
      "PlugStackConfig=spank/plugstack.conf\nPluginDir=/opt/spank:/usr/lib/slurm\n");
  ASSERT_TRUE(slurm.ok()) << slurm.status();
  EXPECT_EQ(slurm->plugstack_config, "/etc/slurm/spank/plugstack.conf");
  EXPECT_TRUE(slurm->plugstack_config_explicit);
  EXPECT_EQ(slurm->plugin_dir, "/opt/spank:/usr/lib/slurm");
  absl::StatusOr<ClusterConfig> yaml =
      YamlPlusNode("plugstack_config: /srv/plugstack.conf\nplugin_dir: /opt/spank\n");
  ASSERT_TRUE(yaml.ok()) << yaml.status();
  EXPECT_EQ(yaml->plugstack_config, "/srv/plugstack.conf");
  EXPECT_TRUE(yaml->plugstack_config_explicit);
  EXPECT_EQ(yaml->plugin_dir, "/opt/spank");
}

TEST(SpankConfigTest, EmptyValuesAreRefusedByBoth) {
  EXPECT_EQ(SlurmConfPlusNode("PlugStackConfig=\n").status().message(),
            "/etc/slurm/slurm.conf:1: PlugStackConfig: expected the path of a plugstack.conf, "
            "got ''");
  EXPECT_EQ(SlurmConfPlusNode("PluginDir=\n").status().message(),
            "/etc/slurm/slurm.conf:1: PluginDir: expected one or more directories, separated by "
            "':', got ''");
  absl::StatusOr<ClusterConfig> yaml = YamlPlusNode("plugstack_config: \"\"\n");
  ASSERT_FALSE(yaml.ok());
  EXPECT_NE(yaml.status().message().find("plugstack_config: expected the path of a "
                                         "plugstack.conf"),
            std::string::npos)
      << yaml.status();
  yaml = YamlPlusNode("plugin_dir: \"\"\n");
  ASSERT_FALSE(yaml.ok());
  EXPECT_NE(yaml.status().message().find("plugin_dir: expected one or more directories"),
            std::string::npos)
      << yaml.status();
}

TEST(NodeScriptsConfigTest, BothFrontDoorsReadTheScriptsAndFlags) {
  absl::StatusOr<ClusterConfig> slurm = SlurmConfPlusNode(
      "Prolog=/etc/slurm/prolog.sh\nEpilog=/etc/slurm/epilog.sh\nTaskProlog=/etc/slurm/tp.sh\n"
      "TaskEpilog=/etc/slurm/te.sh\nPrologFlags=Alloc,Contain\n");
  ASSERT_TRUE(slurm.ok()) << slurm.status();
  EXPECT_EQ(slurm->node_scripts.prolog, "/etc/slurm/prolog.sh");
  EXPECT_EQ(slurm->node_scripts.epilog, "/etc/slurm/epilog.sh");
  EXPECT_EQ(slurm->node_scripts.task_prolog, "/etc/slurm/tp.sh");
  EXPECT_EQ(slurm->node_scripts.task_epilog, "/etc/slurm/te.sh");
  EXPECT_TRUE(slurm->node_scripts.prolog_alloc);
  EXPECT_TRUE(slurm->unused_keys.empty());
  absl::StatusOr<ClusterConfig> yaml = YamlPlusNode(
      "prolog: /p.sh\nepilog: /e.sh\ntask_prolog: /tp.sh\ntask_epilog: /te.sh\n"
      "prolog_flags: alloc\n");
  ASSERT_TRUE(yaml.ok()) << yaml.status();
  EXPECT_EQ(yaml->node_scripts.prolog, "/p.sh");
  EXPECT_EQ(yaml->node_scripts.task_epilog, "/te.sh");
  EXPECT_TRUE(yaml->node_scripts.prolog_alloc);
  EXPECT_FALSE(SlurmConfPlusNode("")->node_scripts.prolog_alloc);
}

TEST(NodeScriptsConfigTest, PrologEpilogTimeoutThroughBothFrontDoors) {
  EXPECT_EQ(SlurmConfPlusNode("")->node_scripts.prolog_epilog_timeout, absl::InfiniteDuration());
  absl::StatusOr<ClusterConfig> slurm = SlurmConfPlusNode("PrologEpilogTimeout=90\n");
  ASSERT_TRUE(slurm.ok()) << slurm.status();
  EXPECT_EQ(slurm->node_scripts.prolog_epilog_timeout, absl::Seconds(90));
  absl::StatusOr<ClusterConfig> yaml = YamlPlusNode("prolog_epilog_timeout: 2m\n");
  ASSERT_TRUE(yaml.ok()) << yaml.status();
  EXPECT_EQ(yaml->node_scripts.prolog_epilog_timeout, absl::Minutes(2));
  EXPECT_EQ(SlurmConfPlusNode("PrologEpilogTimeout=0\n").status().message(),
            "/etc/slurm/slurm.conf:1: PrologEpilogTimeout: expected a positive time (leave it "
            "out to wait for the scripts forever), got 0");
  EXPECT_EQ(SlurmConfPlusNode("PrologEpilogTimeout=soon\n").status().message(),
            "/etc/slurm/slurm.conf:1: PrologEpilogTimeout: expected a number of seconds, got "
            "'soon'");
  yaml = YamlPlusNode("prolog_epilog_timeout: 0s\n");
  ASSERT_FALSE(yaml.ok());
  EXPECT_EQ(yaml.status().message(),
            "/etc/canopy/canopy.yaml:1: prolog_epilog_timeout: expected a positive time (leave "
            "it out to wait for the scripts forever), got 0");
}

TEST(NodeScriptsConfigTest, RelativeScriptsAndUnknownFlagsAreRefusedByBoth) {
  EXPECT_EQ(SlurmConfPlusNode("Prolog=prolog.sh\n").status().message(),
            "/etc/slurm/slurm.conf:1: Prolog: expected the absolute path of a script, got "
            "'prolog.sh'");
  EXPECT_EQ(SlurmConfPlusNode("PrologFlags=Alloc,X11\n").status().message(),
            "/etc/slurm/slurm.conf:1: PrologFlags: expected Alloc or Contain (the flags Canopy "
            "supports), got 'X11'");
  absl::StatusOr<ClusterConfig> yaml = YamlPlusNode("task_prolog: tp.sh\n");
  ASSERT_FALSE(yaml.ok());
  EXPECT_NE(yaml.status().message().find(
                "task_prolog: expected the absolute path of a script, got 'tp.sh'"),
            std::string::npos)
      << yaml.status();
  yaml = YamlPlusNode("prolog_flags: Serial\n");
  ASSERT_FALSE(yaml.ok());
  EXPECT_NE(yaml.status().message().find("prolog_flags: expected Alloc or Contain"),
            std::string::npos)
      << yaml.status();
}

}  // namespace
}  // namespace canopy::config
