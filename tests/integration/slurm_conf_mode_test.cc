// canopyd, canopy-agent and the front ends configured only by a Slurm slurm.conf (+ the
// topology.conf beside it), as on a Slurm site: the controller listens on SlurmctldHost's
// SlurmctldPort, keeps its state in StateSaveLocation, and every client finds it through
// SLURM_CONF.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/subprocess.h"

namespace canopy::testing {
namespace {

using ::testing::HasSubstr;

// A port that was free a moment ago (the kernel picks it). slurm.conf needs a fixed number.
int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

class SlurmConfModeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "canopy-slurmconf-XXXXXX").string();
    dir_ = mkdtemp(tmpl.data());
    std::ofstream(dir_ + "/slurm.conf") << absl::StrCat(
        "ClusterName=sc16\nSlurmctldHost=head01(localhost)\nSlurmctldPort=", FreePort(),
        "\nStateSaveLocation=", dir_, "/state\nSlurmdTimeout=2\nTopologyPlugin=topology/tree\n",
        "SelectType=select/cons_tres\nGresTypes=gpu\n",
        "NodeName=gpu[001-016] CPUs=64 RealMemory=512000 Gres=gpu:h100:8 State=UNKNOWN\n",
        "PartitionName=gpu Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n");
    std::ofstream(dir_ + "/topology.conf")
        << "SwitchName=leaf001 Nodes=gpu[001-008]\n"
           "SwitchName=leaf002 Nodes=gpu[009-016] LinkSpeed=100\n"
           "SwitchName=spine001 Switches=leaf[001-002]\n";
    env_ = {{"SLURM_CONF", dir_ + "/slurm.conf"}, {"CANOPY_CONTROLLER", ""}, {"CANOPY_CONFIG", ""}};
  }
  void TearDown() override {
    agent_.reset();
    controller_.reset();
    std::filesystem::remove_all(dir_);
  }

  std::string dir_;
  std::map<std::string, std::string> env_;
  std::optional<Subprocess> controller_, agent_;
};

TEST_F(SlurmConfModeTest, EverythingFindsEachOtherThroughSlurmConf) {
  auto c = Subprocess::Start({CANOPYD_PATH}, env_, dir_ + "/canopyd.log");
  ASSERT_TRUE(c.ok());
  controller_.emplace(*std::move(c));
  ASSERT_TRUE(WaitUntil([&] { return std::filesystem::exists(dir_ + "/state/canopyd.sock"); },
                        absl::Seconds(20)))
      << ReadFile(dir_ + "/canopyd.log");
  auto a = Subprocess::Start({CANOPY_AGENT_PATH, "--virtual_nodes", "gpu[001-016]"}, env_,
                             dir_ + "/agent.log");
  ASSERT_TRUE(a.ok());
  agent_.emplace(*std::move(a));

  auto idle_count = [&] {
    CommandResult r = RunCommand({CANOPYCTL_PATH, "nodes"}, env_);
    int n = 0;
    for (absl::string_view line : absl::StrSplit(r.out, '\n')) {
      n += absl::StrContains(line, " idle ") ? 1 : 0;
    }
    return n;
  };
  ASSERT_TRUE(WaitUntil([&] { return idle_count() == 16; }, absl::Seconds(30)))
      << ReadFile(dir_ + "/canopyd.log") << ReadFile(dir_ + "/agent.log");

  // Unused keys are listed once at start-up.
  EXPECT_THAT(ReadFile(dir_ + "/canopyd.log"),
              HasSubstr("keys Canopy does not use (accepted, ignored): SelectType, GresTypes"));
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/state/canopy.db"));

  const std::string scontrol = absl::StrCat(CANOPYCTL_DIR, "/scontrol");
  CommandResult topo = RunCommand({scontrol, "show", "topology"}, env_);
  EXPECT_EQ(topo.exit_code, 0);
  EXPECT_EQ(topo.out,
            "SwitchName=leaf001 Level=0 LinkSpeed=1 Nodes=gpu[001-008]\n"
            "SwitchName=leaf002 Level=0 LinkSpeed=1 Nodes=gpu[009-016]\n"
            "SwitchName=spine001 Level=1 LinkSpeed=1 Nodes=gpu[001-016] Switches=leaf[001-002]\n");
  topo = RunCommand({scontrol, "show", "topology", "gpu010"}, env_);
  EXPECT_EQ(topo.out,
            "SwitchName=leaf002 Level=0 LinkSpeed=1 Nodes=gpu[009-016]\n"
            "SwitchName=spine001 Level=1 LinkSpeed=1 Nodes=gpu[001-016] Switches=leaf[001-002]\n");
  CommandResult ping = RunCommand({scontrol, "ping"}, env_);
  EXPECT_EQ(ping.exit_code, 0);
  EXPECT_THAT(ping.out, HasSubstr("Slurmctld(primary) at "));
  EXPECT_THAT(ping.out, HasSubstr(" is UP\n"));

  // SlurmdTimeout=2 applies: a killed agent's nodes go down.
  agent_.reset();
  ASSERT_TRUE(WaitUntil([&] { return idle_count() == 0; }, absl::Seconds(30)));
  EXPECT_THAT(RunCommand({CANOPYCTL_PATH, "nodes", "gpu016"}, env_).out, HasSubstr("down*"));
}

TEST_F(SlurmConfModeTest, ConfigErrorsNameFileLineAndField) {
  std::ofstream(dir_ + "/slurm.conf", std::ios::app) << "NodeName=bad[1-2] CPUs=many\n";
  CommandResult r = RunCommand({CANOPYD_PATH}, env_);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("slurm.conf:11: NodeName=bad[1-2]: CPUs: expected a positive "
                               "integer, got 'many'"));
}

}  // namespace
}  // namespace canopy::testing
