// Issue #15: canopyd and canopy-agent write --log-file and reopen it on SIGUSR2, so logrotate
// (deploy/logrotate) can move the file away: the old file keeps what was logged before, the new
// one starts at the reopen, and nothing is lost in between.
#include <signal.h>

#include <filesystem>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/local_cluster.h"

namespace canopy::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kLogFileConfig[] = R"(
heartbeat_interval: 500ms
nodes:
  - names: n1
partitions:
  - name: debug
    nodes: ALL
    default: true
)";

TEST(LogFileTest, SigUsr2ReopensTheLogFileLogrotateMoved) {
  LocalCluster cluster(kLogFileConfig);
  const std::string log = cluster.dir() + "/canopyd.file.log";
  ASSERT_TRUE(cluster.StartController({"--log-file", log}).ok()) << ReadFile(log);
  ASSERT_TRUE(cluster.StartAgent("n1", {"--log-file=" + cluster.dir() + "/agent.file.log"}).ok());
  ASSERT_TRUE(
      WaitUntil([&] { return ReadFile(log).find("node n1 registered") != std::string::npos; },
                absl::Seconds(20)))
      << ReadFile(log);
  EXPECT_THAT(cluster.ControllerLog(), Not(HasSubstr("registered"))) << "stderr has no log lines";

  // logrotate: rename, then SIGUSR2.
  std::filesystem::rename(log, log + ".1");
  ASSERT_EQ(kill(cluster.controller_pid(), SIGUSR2), 0);
  ASSERT_TRUE(WaitUntil([&] { return std::filesystem::exists(log); }, absl::Seconds(10)));
  const CommandResult sbatch = cluster.FrontEnd("sbatch", {"-o", "/dev/null", "--wrap", "true"});
  ASSERT_EQ(sbatch.exit_code, 0) << sbatch.err;
  ASSERT_TRUE(WaitUntil([&] { return ReadFile(log).find("job 1") != std::string::npos; },
                        absl::Seconds(10)))
      << ReadFile(log);
  EXPECT_THAT(ReadFile(log), HasSubstr("log file reopened (SIGUSR2)"));
  EXPECT_THAT(ReadFile(log + ".1"), HasSubstr("node n1 registered"));
  EXPECT_THAT(ReadFile(log + ".1"), Not(HasSubstr("job 1")));

  // The agent the same way.
  const std::string agent_log = cluster.dir() + "/agent.file.log";
  EXPECT_THAT(ReadFile(agent_log), HasSubstr("registered with cluster"));
  std::filesystem::rename(agent_log, agent_log + ".1");
  ASSERT_EQ(kill(cluster.agent_pid(), SIGUSR2), 0);
  EXPECT_TRUE(
      WaitUntil([&] { return ReadFile(agent_log).find("log file reopened") != std::string::npos; },
                absl::Seconds(10)));
}

TEST(LogFileTest, ALogFileThatCannotBeOpenedIsAnErrorOnStderr) {
  LocalCluster cluster(kLogFileConfig);
  EXPECT_FALSE(cluster.StartController({"--log-file", "/nonexistent/dir/canopyd.log"}).ok());
  EXPECT_THAT(cluster.ControllerLog(),
              HasSubstr("canopyd: --log-file: cannot open /nonexistent/dir/canopyd.log: No such "
                        "file or directory"));
}

}  // namespace
}  // namespace canopy::testing
