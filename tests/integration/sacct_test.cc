// Accounting end to end: a real canopyd and agent on loopback (4 virtual nodes of 4 fake GPUs)
// driven by the real sbatch, srun (inside the batch script), scancel, scontrol and sacct. Jobs,
// their steps and the earlier run of a requeued job are recorded; finished jobs leave the
// controller's memory after MinJobAge (squeue and scontrol no longer know them) while sacct
// still reports them, also after a kill -9 of canopyd and a restart.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/local_cluster.h"

namespace canopy::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kConfig[] = R"(
cluster_name: itsacct
node_timeout: 5s
heartbeat_interval: 500ms
kill_wait: 2s
launch_timeout: 10s
min_job_age: 3s
nodes:
  - names: gpu[1-4]
    cpus: 8
    memory_mib: 64000
    gpus: {type: h100, count: 4}
partitions:
  - name: gpu
    nodes: ALL
    default: true
)";

class SacctTest : public ::testing::Test {
 protected:
  SacctTest() : cluster_(kConfig) {}

  void SetUp() override {
    work_ = cluster_.dir() + "/work";
    std::filesystem::create_directories(work_);
    ASSERT_TRUE(cluster_.StartController().ok()) << cluster_.ControllerLog();
    StartAgent();
  }

  void StartAgent() {
    ASSERT_TRUE(
        cluster_
            .StartAgent("gpu[1-4]", {"--fake_gpus", "4", "--spool_dir", cluster_.dir() + "/spool"})
            .ok());
    ASSERT_TRUE(WaitUntil([&] { return cluster_.IdleNodes() == 4; }, absl::Seconds(30)));
  }

  void WriteScript(const std::string& name, const std::string& text) {
    std::ofstream(work_ + "/" + name) << text;
  }

  uint32_t Sbatch(const std::vector<std::string>& args) {
    std::vector<std::string> all = {"--parsable"};
    all.insert(all.end(), args.begin(), args.end());
    const CommandResult r = cluster_.FrontEndIn("sbatch", all, work_);
    uint32_t id = 0;
    if (r.exit_code != 0 || !absl::SimpleAtoi(absl::StripAsciiWhitespace(r.out), &id)) {
      ADD_FAILURE() << "sbatch failed (" << r.exit_code << "): " << r.out << r.err;
    }
    return id;
  }

  // squeue's state of a job; "gone" once the controller no longer knows it.
  std::string SqueueState(uint32_t id) {
    const CommandResult r =
        cluster_.FrontEnd("squeue", {"-h", "-t", "all", "-j", absl::StrCat(id), "-o", "%T"});
    if (r.exit_code != 0 && absl::StrContains(r.err, "Invalid job id specified")) {
      return "gone";
    }
    return absl::StrCat(absl::StripAsciiWhitespace(r.out), r.err);
  }

  // sacct -P -n with `format` for `ids`: one string per line.
  std::vector<std::string> Sacct(const std::vector<std::string>& extra, const std::string& format,
                                 const std::vector<uint32_t>& ids) {
    std::vector<std::string> args = {"-P", "-n", "--format", format, "-j", absl::StrJoin(ids, ",")};
    args.insert(args.end(), extra.begin(), extra.end());
    const CommandResult r = cluster_.FrontEnd("sacct", args);
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    return absl::StrSplit(r.out, '\n', absl::SkipEmpty());
  }

  std::string Diagnostics() {
    return absl::StrCat("canopyd log:\n", cluster_.ControllerLog(), "\nagent log:\n",
                        cluster_.AgentLog());
  }

  LocalCluster cluster_;
  std::string work_;
};

TEST_F(SacctTest, JobsStepsAndEarlierRunsOutliveMemoryAndARestart) {
  WriteScript("steps.sh", R"(#!/bin/sh
#SBATCH -J steps -N 2
srun -N 2 hostname
srun -N 1 false
exit 0
)");
  WriteScript("fail.sh", "#!/bin/sh\n#SBATCH -J fail\nexit 3\n");
  WriteScript("long.sh", "#!/bin/sh\n#SBATCH -J long\nsleep 300\n");
  // Sleeps in its first run (to be requeued), ends at once in the second.
  WriteScript("again.sh", R"(#!/bin/sh
#SBATCH -J again
if [ "${SLURM_RESTART_COUNT:-0}" = 0 ]; then sleep 300; fi
exit 0
)");
  const uint32_t steps = Sbatch({"steps.sh"});
  const uint32_t fail = Sbatch({"fail.sh"});
  const uint32_t longer = Sbatch({"long.sh"});
  const uint32_t again = Sbatch({"again.sh"});
  ASSERT_TRUE(WaitUntil([&] { return SqueueState(longer) == "RUNNING"; }, absl::Seconds(30)))
      << Diagnostics();
  ASSERT_TRUE(WaitUntil([&] { return SqueueState(again) == "RUNNING"; }, absl::Seconds(30)));
  EXPECT_EQ(cluster_.FrontEnd("scancel", {absl::StrCat(longer)}).exit_code, 0);
  EXPECT_EQ(cluster_.FrontEnd("scontrol", {"requeue", absl::StrCat(again)}).exit_code, 0);
  for (uint32_t id : {steps, fail, longer, again}) {
    // Ended, then forgotten by the controller after MinJobAge (3 s).
    ASSERT_TRUE(WaitUntil([&] { return SqueueState(id) == "gone"; }, absl::Seconds(60)))
        << id << ": " << SqueueState(id) << "\n"
        << Diagnostics();
  }
  const CommandResult gone = cluster_.FrontEnd("scontrol", {"show", "job", absl::StrCat(steps)});
  EXPECT_EQ(gone.exit_code, 1);
  EXPECT_THAT(gone.err, HasSubstr("Invalid job id specified"));

  const std::string uid = absl::StrCat(getuid());
  auto check = [&] {
    EXPECT_THAT(Sacct({}, "JobID,JobName,State,ExitCode,DerivedExitCode,NNodes", {steps}),
                ElementsAre(absl::StrCat(steps, "|steps|COMPLETED|0:0|1:0|2"),
                            absl::StrCat(steps, ".batch|batch|COMPLETED|0:0||1"),
                            absl::StrCat(steps, ".0|hostname|COMPLETED|0:0||2"),
                            absl::StrCat(steps, ".1|false|FAILED|1:0||1")));
    EXPECT_THAT(Sacct({"-X"}, "JobID,State,ExitCode", {fail, longer}),
                ElementsAre(absl::StrCat(fail, "|FAILED|3:0"),
                            absl::StrCat(longer, "|CANCELLED by ", uid, "|0:0")));
    // As Slurm: the job line was written when scancel ended the job (0:0); the batch step
    // shows the signal its shell died of.
    EXPECT_THAT(Sacct({}, "JobID,State,ExitCode", {longer}),
                ElementsAre(absl::StrCat(longer, "|CANCELLED by ", uid, "|0:0"),
                            absl::StrCat(longer, ".batch|CANCELLED|0:15")));
    // -D: the run that was requeued, then the one that completed.
    EXPECT_THAT(
        Sacct({"-X", "-D"}, "JobID,State,Restarts", {again}),
        ElementsAre(absl::StrCat(again, "|REQUEUED|0"), absl::StrCat(again, "|COMPLETED|1")));
    EXPECT_THAT(Sacct({"-X"}, "JobID,State,Restarts", {again}),
                ElementsAre(absl::StrCat(again, "|COMPLETED|1")));
  };
  check();
  if (HasFailure()) {
    ADD_FAILURE() << Diagnostics();
  }

  // kill -9 and a restart: the records are in the database, not in memory.
  cluster_.CrashController();
  ASSERT_TRUE(cluster_.StartController().ok()) << cluster_.ControllerLog();
  check();
}

}  // namespace
}  // namespace canopy::testing
