// Dependencies, holds, begin times and requeues end to end: a real canopyd and agent on
// loopback (4 virtual nodes of 4 fake GPUs), driven by the real sbatch, squeue and scontrol.
// Arrays with afterok/afternotok/one-task dependencies, DependencyNeverSatisfied and
// --kill-on-invalid-dep, singleton, the refusal of an unknown job; sbatch -H, --begin, scontrol
// hold/uhold/release/update TimeLimit=/requeue/requeuehold; the squeue and scontrol show job
// lines of the Slurm 22.05 reference transcript.
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "ctl/client/controller_client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/local_cluster.h"

namespace canopy::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kConfig[] = R"(
cluster_name: itdeps
node_timeout: 5s
heartbeat_interval: 500ms
kill_wait: 2s
launch_timeout: 10s
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

class DependenciesTest : public ::testing::Test {
 protected:
  DependenciesTest() : cluster_(kConfig) {}

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
        absl::Seconds(30)));
  }

  // sbatch --parsable in the work directory; the job id (0 and a test failure if refused).
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

  CommandResult Scontrol(const std::vector<std::string>& args) {
    return cluster_.FrontEnd("scontrol", args);
  }

  // squeue -h -j ID -o '%T %r' (state and reason).
  std::string StateAndReason(uint32_t id) {
    const CommandResult r =
        cluster_.FrontEnd("squeue", {"-h", "-t", "all", "-j", absl::StrCat(id), "-o", "%T %r"});
    return std::string(absl::StripAsciiWhitespace(r.out));
  }

  bool WaitFor(uint32_t id, const std::string& state_and_reason,
               absl::Duration timeout = absl::Seconds(30)) {
    return WaitUntil([&] { return StateAndReason(id) == state_and_reason; }, timeout);
  }

  bool WaitForState(uint32_t id, const std::string& state) {
    return WaitUntil([&] { return absl::StartsWith(StateAndReason(id), absl::StrCat(state, " ")); },
                     absl::Seconds(30));
  }

  canopy::v1::Job GetJob(uint32_t id) {
    absl::StatusOr<ctl::client::ControllerClient> c =
        ctl::client::ControllerClient::Connect(cluster_.socket_target());
    if (!c.ok()) {
      return {};
    }
    absl::StatusOr<canopy::v1::Job> job = c->GetJob(id);
    return job.ok() ? *job : canopy::v1::Job();
  }

  std::string Logs() {
    return absl::StrCat("canopyd log:\n", cluster_.ControllerLog(), "\nagent log:\n",
                        cluster_.AgentLog());
  }

  LocalCluster cluster_;
  std::string work_;
};

TEST_F(DependenciesTest, ArraysAndDependenciesThroughSbatchSqueueAndScontrol) {
  // Two tasks that succeed, one whole node each; they hold for a moment so the dependents are
  // seen waiting.
  const uint32_t array =
      Sbatch({"--array=1-2", "--gres=gpu:4", "-o", "/dev/null", "--wrap", "sleep 5"});
  const uint32_t ok =
      Sbatch({"-d", absl::StrCat("afterok:", array), "-o", "/dev/null", "--wrap", "true"});
  const uint32_t notok = Sbatch(
      {"--dependency", absl::StrCat("afternotok:", array), "-o", "/dev/null", "--wrap", "true"});
  const uint32_t task2 = Sbatch(
      {absl::StrCat("--dependency=afterany:", array, "_2"), "-o", "/dev/null", "--wrap", "true"});
  ASSERT_NE(array * ok * notok * task2, 0u);
  EXPECT_EQ(StateAndReason(ok), "PENDING Dependency");
  const CommandResult shown = Scontrol({"show", "job", absl::StrCat(ok)});
  EXPECT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_THAT(shown.out, HasSubstr(absl::StrCat("   JobState=PENDING Reason=Dependency "
                                                "Dependency=afterok:",
                                                array, "_*(unfulfilled)\n")));

  ASSERT_TRUE(WaitForState(ok, "COMPLETED")) << StateAndReason(ok) << Logs();
  ASSERT_TRUE(WaitForState(task2, "COMPLETED")) << StateAndReason(task2);
  // The array succeeded: afternotok can never be satisfied; the job pends for ever.
  EXPECT_TRUE(WaitFor(notok, "PENDING DependencyNeverSatisfied")) << StateAndReason(notok);
  EXPECT_THAT(Scontrol({"show", "job", absl::StrCat(notok)}).out,
              HasSubstr(absl::StrCat("Dependency=afternotok:", array, "_*(failed)\n")));
  // With --kill-on-invalid-dep=yes the same dependency cancels the job at once.
  const uint32_t killed = Sbatch(
      {"--kill-on-invalid-dep=yes", "-d", absl::StrCat("afternotok:", array), "--wrap", "true"});
  EXPECT_EQ(GetJob(killed).state(), canopy::v1::JOB_STATE_CANCELLED);
  EXPECT_THAT(GetJob(killed).state_message(), HasSubstr("can never be satisfied"));

  // A job that does not exist is refused, as Slurm refuses it.
  const CommandResult refused =
      cluster_.FrontEndIn("sbatch", {"-d", "afterok:99999", "--wrap", "true"}, work_);
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_EQ(refused.err,
            "sbatch: error: dependency afterok:99999: job 99999 does not exist\n"
            "sbatch: error: Batch job submission failed: Job dependency problem\n");
  const CommandResult bad =
      cluster_.FrontEndIn("sbatch", {"-d", "afterok:x", "--wrap", "true"}, work_);
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.err, HasSubstr("sbatch: error: --dependency='afterok:x': expected a job id"));
  EXPECT_THAT(bad.err,
              HasSubstr("sbatch: error: Batch job submission failed: Job dependency problem\n"));

  // singleton: one job of the name at a time.
  const uint32_t first = Sbatch({"-J", "solo", "-o", "/dev/null", "--wrap", "sleep 2"});
  const uint32_t second =
      Sbatch({"-J", "solo", "-d", "singleton", "-o", "/dev/null", "--wrap", "true"});
  ASSERT_TRUE(WaitForState(first, "RUNNING"));
  EXPECT_EQ(StateAndReason(second), "PENDING Dependency");
  ASSERT_TRUE(WaitForState(second, "COMPLETED")) << StateAndReason(second) << Logs();
  EXPECT_GE(GetJob(second).start_time().seconds(), GetJob(first).end_time().seconds());
}

TEST_F(DependenciesTest, HoldsBeginTimesAndUpdatesThroughScontrol) {
  const uint32_t held = Sbatch({"-H", "-o", "/dev/null", "--wrap", "true"});
  EXPECT_EQ(StateAndReason(held), "PENDING JobHeldUser");
  CommandResult q = cluster_.FrontEnd("squeue", {"-j", absl::StrCat(held), "-o", "%i %T %r %Q"});
  EXPECT_EQ(q.out, absl::StrCat("JOBID STATE REASON PRIORITY\n", held, " PENDING JobHeldUser 0\n"));
  CommandResult r = Scontrol({"release", absl::StrCat(held)});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(WaitForState(held, "COMPLETED")) << StateAndReason(held) << Logs();

  // --begin an hour ahead: BeginTime. The reference transcript's hold, release and update.
  const uint32_t later = Sbatch({"--begin=now+1hour", "-t", "20", "--wrap", "true"});
  EXPECT_EQ(StateAndReason(later), "PENDING BeginTime");
  r = Scontrol({"hold", absl::StrCat(later)});  // canopyd's own user is an operator
  EXPECT_EQ(r.exit_code, 0) << r.err;
  q = cluster_.FrontEnd("squeue", {"-j", absl::StrCat(later), "-o", "%i %T %r %Q"});
  EXPECT_EQ(q.out,
            absl::StrCat("JOBID STATE REASON PRIORITY\n", later, " PENDING JobHeldAdmin 0\n"));
  r = Scontrol({"release", absl::StrCat(later)});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(StateAndReason(later), "PENDING BeginTime");
  r = Scontrol({"update", "job", absl::StrCat(later), "TimeLimit=30"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = Scontrol({"show", "job", absl::StrCat(later)});
  EXPECT_THAT(r.out, HasSubstr("\n   RunTime=00:00:00 TimeLimit=00:30:00 TimeMin=N/A\n"));
  EXPECT_THAT(r.out, HasSubstr("\n   JobState=PENDING Reason=BeginTime Dependency=(null)\n"));
  r = Scontrol({"uhold", absl::StrCat(later)});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(StateAndReason(later), "PENDING JobHeldUser");
  r = Scontrol({"update", "JobId=" + absl::StrCat(later), "Priority=bogus"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("Priority: expected a number"));
  r = Scontrol({"hold", "999999"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "Invalid job id specified for job 999999\n");
  r = Scontrol({"show", "job", "999999"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "slurm_load_jobs error: Invalid job id specified\n");
  r = Scontrol({"update", "jobid=999999", "TimeLimit=10"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "Invalid job id specified for job 999999\n");
  r = Scontrol({"show", "job", "abc"});  // not an id at all: Slurm 22.05's own words for it
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "scontrol_print_job error: Invalid job id specified\n");
}

TEST_F(DependenciesTest, RequeueAndRequeueHoldThroughScontrol) {
  const uint32_t id = Sbatch({"-o", "requeue-%j.out", "--open-mode=append", "--wrap",
                              "echo restart=${SLURM_RESTART_COUNT:-0}; sleep 60"});
  ASSERT_TRUE(WaitForState(id, "RUNNING")) << StateAndReason(id) << Logs();
  CommandResult r = Scontrol({"requeue", absl::StrCat(id)});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // Killed, queued again with the same id, and started again as its second run.
  ASSERT_TRUE(WaitUntil(
      [&] {
        const canopy::v1::Job job = GetJob(id);
        return job.state() == canopy::v1::JOB_STATE_RUNNING && job.restart_count() == 1;
      },
      absl::Seconds(30)))
      << GetJob(id).DebugString() << Logs();
  ASSERT_TRUE(WaitUntil(
      [&] {
        return absl::StrContains(ReadFile(absl::StrCat(work_, "/requeue-", id, ".out")),
                                 "restart=1");
      },
      absl::Seconds(30)));
  EXPECT_THAT(ReadFile(absl::StrCat(work_, "/requeue-", id, ".out")), HasSubstr("restart=0"));

  r = Scontrol({"requeuehold", absl::StrCat(id)});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(StateAndReason(id), "PENDING JobHeldUser");
  EXPECT_EQ(GetJob(id).restart_count(), 2);
  r = Scontrol({"requeue", absl::StrCat(id)});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, absl::StrCat("Job is pending execution for job ", id, "\n"));
  EXPECT_EQ(cluster_.FrontEnd("scancel", {absl::StrCat(id)}).exit_code, 0);
}

}  // namespace
}  // namespace canopy::testing
