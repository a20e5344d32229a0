// Issue #10 (QOS, limits and preemption) end to end: a real canopyd and agent, driven with the real
// sbatch, squeue and scontrol. A job of a higher-tier partition takes one leaf from running jobs
// of a lower one (PreemptType=preempt/partition_prio, REQUEUE): they are requeued and it runs;
// an account's GrpTRES makes a job wait with AssocGrpGRES and a job over it is refused at submit.
#include <pwd.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/local_cluster.h"

namespace canopy::testing {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;

std::string Me() {
  const passwd* pw = getpwuid(getuid());
  return pw != nullptr ? pw->pw_name : absl::StrCat(getuid());
}

// `preempt` is the config's preempt: section.
std::string Config(const std::string& preempt) {
  return absl::StrCat(R"(
cluster_name: itpreempt
node_timeout: 5s
heartbeat_interval: 500ms
kill_wait: 2s
nodes:
  - names: gpu[1-4]
    cpus: 8
    memory_mib: 64000
    gpus: {type: h100, count: 4}
partitions:
  - name: low
    nodes: ALL
    default: true
    priority_tier: 1
  - name: high
    nodes: ALL
    priority_tier: 2
topology_plugin: topology/tree
topology:
  switches:
    - name: leaf1
      nodes: gpu[1-2]
    - name: leaf2
      nodes: gpu[3-4]
    - name: spine
      switches: leaf[1-2]
scheduler:
  parameters: {bf_interval: 1}
preempt:
)",
                      preempt, R"(
accounting:
  storage_enforce: associations,limits
accounts:
  - name: vision
    grp_tres: gres/gpu=8
    users: [{name: )",
                      Me(), R"(, default_account: nlp}]
  - name: nlp
    users: [)",
                      Me(), R"(]
)");
}

class PreemptionIntegrationTest : public ::testing::Test {
 protected:
  explicit PreemptionIntegrationTest(
      const std::string& preempt = "  type: preempt/partition_prio\n  mode: REQUEUE")
      : cluster_(Config(preempt)) {}

  void SetUp() override {
    work_ = cluster_.dir() + "/work";
    std::filesystem::create_directories(work_);
    ASSERT_TRUE(cluster_.StartController().ok()) << cluster_.ControllerLog();
    ASSERT_TRUE(
        cluster_
            .StartAgent("gpu[1-4]", {"--fake_gpus", "4", "--spool_dir", cluster_.dir() + "/spool"})
            .ok());
    ASSERT_TRUE(WaitUntil(
        [&] {
          return absl::StrContains(cluster_.FrontEnd("sinfo", {"-h", "-o", "%t %D"}).out, "idle 4");
        },
        absl::Seconds(30)))
        << cluster_.ControllerLog();
  }

  CommandResult Run(const std::string& command, const std::vector<std::string>& args) {
    return cluster_.FrontEndIn(command, args, work_);
  }

  uint32_t Sbatch(const std::vector<std::string>& args) {
    std::vector<std::string> all = {"--parsable"};
    all.insert(all.end(), args.begin(), args.end());
    const CommandResult r = Run("sbatch", all);
    uint32_t id = 0;
    if (r.exit_code != 0 || !absl::SimpleAtoi(absl::StripAsciiWhitespace(r.out), &id)) {
      ADD_FAILURE() << "sbatch failed (" << r.exit_code << "): " << r.out << r.err;
    }
    return id;
  }

  // squeue's `format` field of a job, trimmed ("" once it is gone).
  std::string Field(uint32_t id, const std::string& format) {
    return std::string(absl::StripAsciiWhitespace(
        Run("squeue", {"-h", "-j", absl::StrCat(id), "-o", format}).out));
  }

  LocalCluster cluster_;
  std::string work_;
};

TEST_F(PreemptionIntegrationTest, HigherTierJobTakesALeafAndTheVictimsAreRequeued) {
  std::vector<uint32_t> low;
  for (int i = 0; i < 4; ++i) {
    low.push_back(Sbatch({"-p", "low", "--gpus-per-node=4", "-t", "30", "--wrap", "sleep 600"}));
  }
  for (uint32_t id : low) {
    ASSERT_TRUE(WaitUntil([&] { return Field(id, "%T") == "RUNNING"; }, absl::Seconds(30)))
        << id << "\n"
        << cluster_.ControllerLog();
  }
  const uint32_t high =
      Sbatch({"-p", "high", "-N", "2", "--gpus-per-node=4", "-t", "5", "--wrap", "sleep 600"});
  ASSERT_TRUE(WaitUntil([&] { return Field(high, "%T") == "RUNNING"; }, absl::Seconds(30)))
      << Run("squeue", {}).out << cluster_.ControllerLog();
  // Under one leaf switch.
  EXPECT_THAT(Field(high, "%N"), AnyOf("gpu[1-2]", "gpu[3-4]"));
  // Exactly the two jobs of that leaf were requeued: pending again, restarted once.
  int requeued = 0;
  for (uint32_t id : low) {
    const std::string state = Field(id, "%T");
    if (state == "PENDING") {
      ++requeued;
      EXPECT_THAT(Run("scontrol", {"show", "job", absl::StrCat(id)}).out, HasSubstr("Restarts=1"));
    } else {
      EXPECT_EQ(state, "RUNNING") << id;
    }
  }
  EXPECT_EQ(requeued, 2) << Run("squeue", {}).out;
  EXPECT_THAT(cluster_.ControllerLog(), HasSubstr(absl::StrCat("preempted by job ", high)));
  EXPECT_EQ(Run("scancel", {"-u", Me()}).exit_code, 0);
}

TEST_F(PreemptionIntegrationTest, AccountLimitMakesJobsWaitAndRefusesWhatCanNeverRun) {
  const uint32_t a =
      Sbatch({"-A", "vision", "--gpus-per-node=4", "-t", "30", "--wrap", "sleep 600"});
  const uint32_t b =
      Sbatch({"-A", "vision", "--gpus-per-node=4", "-t", "30", "--wrap", "sleep 600"});
  const uint32_t c =
      Sbatch({"-A", "vision", "--gpus-per-node=4", "-t", "30", "--wrap", "sleep 600"});
  ASSERT_TRUE(WaitUntil([&] { return Field(a, "%T") == "RUNNING" && Field(b, "%T") == "RUNNING"; },
                        absl::Seconds(30)))
      << Run("squeue", {}).out << cluster_.ControllerLog();
  ASSERT_TRUE(WaitUntil([&] { return Field(c, "%r") == "AssocGrpGRES"; }, absl::Seconds(10)))
      << Run("squeue", {}).out;
  EXPECT_EQ(Field(c, "%T"), "PENDING");
  // nlp has no such limit.
  const uint32_t d = Sbatch({"-A", "nlp", "--gpus-per-node=4", "-t", "30", "--wrap", "sleep 600"});
  ASSERT_TRUE(WaitUntil([&] { return Field(d, "%T") == "RUNNING"; }, absl::Seconds(30)));
  // Once a vision job ends, the waiting one runs.
  ASSERT_EQ(Run("scancel", {absl::StrCat(a)}).exit_code, 0);
  ASSERT_TRUE(WaitUntil([&] { return Field(c, "%T") == "RUNNING"; }, absl::Seconds(30)))
      << Run("squeue", {}).out << cluster_.ControllerLog();

  const CommandResult never =
      Run("sbatch", {"-A", "vision", "-N", "3", "--gpus-per-node=4", "--wrap", "true"});
  EXPECT_EQ(never.exit_code, 1);
  EXPECT_EQ(never.err,
            "sbatch: error: account 'vision' GrpTRES gres/gpu=8: the job asks for 12 GPUs "
            "(AssocGrpGRES)\n"
            "sbatch: error: Batch job submission failed: Job violates accounting/QOS policy (job "
            "submit limit, user's size and/or time limits)\n");
  EXPECT_EQ(Run("scancel", {"-u", Me()}).exit_code, 0);
}

// QOS through sacctmgr: a per-user GPU limit shows QOSMaxGRESPerUser; an inference QOS that may
// preempt normal takes a node from a normal job, which gets SIGTERM, its GraceTime, and is
// requeued; the QOS table survives kill -9 of canopyd.
class QosIntegrationTest : public PreemptionIntegrationTest {
 protected:
  QosIntegrationTest() : PreemptionIntegrationTest("  type: preempt/qos\n  mode: REQUEUE") {}
};

TEST_F(QosIntegrationTest, QosLimitsPreemptionAndRestart) {
  CommandResult r =
      Run("sacctmgr", {"-i", "add", "qos", "inference", "Priority=100", "Preempt=normal"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  r = Run("sacctmgr",
          {"-i", "modify", "qos", "normal", "set", "MaxTRESPerUser=gres/gpu=12", "GraceTime=2"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(Run("sacctmgr", {"show", "qos", "format=name,priority,preempt", "-P", "-n"}).out,
            "normal|0|\ninference|100|normal\n");

  std::vector<uint32_t> normal;
  for (int i = 0; i < 3; ++i) {
    normal.push_back(Sbatch({"--gpus-per-node=4", "-t", "30", "--wrap", "sleep 600"}));
  }
  for (uint32_t id : normal) {
    ASSERT_TRUE(WaitUntil([&] { return Field(id, "%T") == "RUNNING"; }, absl::Seconds(30)))
        << id << "\n"
        << cluster_.ControllerLog();
  }
  const uint32_t over = Sbatch({"--gpus-per-node=4", "-t", "30", "--wrap", "sleep 600"});
  ASSERT_TRUE(
      WaitUntil([&] { return Field(over, "%r") == "QOSMaxGRESPerUser"; }, absl::Seconds(10)))
      << Run("squeue", {}).out;
  EXPECT_EQ(Field(over, "%T %q"), "PENDING normal");

  // One node is free; the 2-node inference job takes the busy node on the same leaf.
  const uint32_t inf =
      Sbatch({"-q", "inference", "-N", "2", "--gpus-per-node=4", "-t", "5", "--wrap", "sleep 600"});
  EXPECT_EQ(Field(inf, "%q"), "inference");
  ASSERT_TRUE(WaitUntil([&] { return Field(inf, "%T") == "RUNNING"; }, absl::Seconds(30)))
      << Run("squeue", {}).out << cluster_.ControllerLog();
  EXPECT_THAT(Field(inf, "%N"), AnyOf("gpu[1-2]", "gpu[3-4]"));
  int requeued = 0;
  for (uint32_t id : normal) {
    requeued += Field(id, "%T") == "PENDING" ? 1 : 0;
  }
  EXPECT_EQ(requeued, 1) << Run("squeue", {}).out << cluster_.ControllerLog();
  EXPECT_THAT(cluster_.ControllerLog(),
              HasSubstr(absl::StrCat("preempted by job ", inf, "; requeued after GraceTime 2 s")));

  cluster_.CrashController();
  ASSERT_TRUE(cluster_.StartController().ok()) << cluster_.ControllerLog();
  EXPECT_EQ(Run("sacctmgr", {"show", "qos", "format=name,priority,preempt", "-P", "-n"}).out,
            "normal|0|\ninference|100|normal\n");
  EXPECT_EQ(Field(inf, "%q"), "inference");
  EXPECT_EQ(Run("scancel", {"-u", Me()}).exit_code, 0);
}

}  // namespace
}  // namespace canopy::testing
