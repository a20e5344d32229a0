// Faults of a node rather than of a job, on a real canopyd and agent: a launch that fails for a
// reason of the node's drains the node and runs the job elsewhere; an agent cut off from the
// controller for nearly its node timeout kills its jobs (fencing), and the requeued run never
// overlaps the fenced one; after kill -9 of canopyd, GPUs whose old processes are still dying
// are not given to another job.
#include <signal.h>

#include <cerrno>
#include <filesystem>
#include <fstream>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/front_end_test.h"

namespace canopy::testing {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;

// Fencing after node_timeout - 2 x heartbeat = 3 s without an acknowledged heartbeat. KillWait
// is long enough that a requeued job's processes outlive a restart of canopyd.
constexpr char kConfig[] = R"(
cluster_name: itfaults
node_timeout: 4s
heartbeat_interval: 500ms
kill_wait: 8s
launch_timeout: 10s
min_job_age: 300s
nodes:
  - names: gpu[1-2]
    cpus: 8
    memory_mib: 64000
    gpus: {type: h100, count: 4}
partitions:
  - name: gpu
    nodes: ALL
    default: true
)";

class NodeFaultsTest : public FrontEndTest {
 protected:
  NodeFaultsTest() : FrontEndTest(kConfig) {}

  // The pid written to work/NAME, or 0.
  pid_t PidIn(const std::string& name) {
    pid_t pid = 0;
    return absl::SimpleAtoi(absl::StripAsciiWhitespace(Work(name)), &pid) ? pid : 0;
  }
  static bool Gone(pid_t pid) { return kill(pid, 0) != 0 && errno == ESRCH; }
};

TEST_F(NodeFaultsTest, ALaunchThatFailsOnTheNodeDrainsItAndHoldsTheJobUntilReleased) {
  // gpu1's spool is a regular file: the agent cannot write any batch script there.
  std::filesystem::create_directories(cluster_.dir() + "/spool");
  std::ofstream(cluster_.dir() + "/spool/gpu1").close();
  ASSERT_TRUE(StartCluster("gpu[1-2]", 2, 4));

  // Two one-node jobs: one of them is placed on gpu1 first, fails there and is held, as Slurm
  // holds it ("launch failed requeued held"), until its owner releases it.
  const uint32_t a = Sbatch({"-o", "a.txt", "--wrap", "echo ran on $SLURMD_NODENAME"});
  const uint32_t b = Sbatch({"-o", "b.txt", "--wrap", "echo ran on $SLURMD_NODENAME"});
  uint32_t held = 0;
  ASSERT_TRUE(WaitUntil(
      [&] {
        for (uint32_t id : {a, b}) {
          if (Squeue(id, "%T %r") == "PENDING JobHeldUser") {
            held = id;
          }
        }
        return held != 0;
      },
      absl::Seconds(60)))
      << Diagnostics();
  EXPECT_THAT(Scontrol({"show", "job", absl::StrCat(held)}).out, HasSubstr(" Priority=0 "));
  // When both jobs were placed in the same pass, both failed on gpu1 and both are held: release
  // each one found held until both have run.
  ASSERT_TRUE(WaitUntil(
      [&] {
        for (uint32_t id : {a, b}) {
          if (Squeue(id, "%T %r") == "PENDING JobHeldUser") {
            EXPECT_EQ(Scontrol({"release", absl::StrCat(id)}).exit_code, 0);
          }
        }
        return State(a) == "COMPLETED" && State(b) == "COMPLETED";
      },
      absl::Seconds(60)))
      << State(a) << " " << State(b) << "\n"
      << Diagnostics();
  EXPECT_EQ(Work("a.txt"), "ran on gpu2\n");
  EXPECT_EQ(Work("b.txt"), "ran on gpu2\n");
  const CommandResult node = Scontrol({"show", "node", "gpu1"});
  EXPECT_THAT(node.out, HasSubstr("State=IDLE+DRAIN "));
  EXPECT_THAT(node.out, HasSubstr("Reason=batch job complete failure [canopyd@"));
  EXPECT_THAT(cluster_.ControllerLog(), HasSubstr("for a reason of the node: spool"));
  // Neither job ran on gpu1, so neither was restarted.
  EXPECT_THAT(Scontrol({"show", "job", absl::StrCat(a)}).out, HasSubstr(" Restarts=0 "));
  EXPECT_THAT(Scontrol({"show", "job", absl::StrCat(b)}).out, HasSubstr(" Restarts=0 "));
}

TEST_F(NodeFaultsTest, AnAgentCutOffFromTheControllerFencesItsJobsAndTheRequeueNeverOverlaps) {
  ASSERT_TRUE(StartCluster("gpu[1-2]", 2, 4));
  // A two-node gang: one task per node. Each task first looks for a live task of another run
  // (which would be the same gang running twice), then waits for "go".
  const uint32_t id = Sbatch(
      {"-N2", "-o", "out.txt", "--wrap",
       "srun -N2 -n2 sh -c 'for f in pid.*; do case $f in pid.\\*|pid.${SLURM_RESTART_COUNT:-0}.*) "
       "continue;; esac; kill -0 $(cat $f) 2>/dev/null && echo \"run ${SLURM_RESTART_COUNT:-0} "
       "overlaps $f\" >> overlap.txt; done; echo $$ > pid.${SLURM_RESTART_COUNT:-0}.$SLURM_NODEID; "
       "while [ ! -e go ]; do sleep 0.1; done'"});
  ASSERT_TRUE(
      WaitUntil([&] { return PidIn("pid.0.0") > 0 && PidIn("pid.0.1") > 0; }, absl::Seconds(30)))
      << Work("out.txt") << Diagnostics();
  const pid_t first[2] = {PidIn("pid.0.0"), PidIn("pid.0.1")};

  // The controller stops answering (as if cut off): the agent fences both nodes' tasks.
  const pid_t canopyd = cluster_.controller_pid();
  ASSERT_EQ(kill(canopyd, SIGSTOP), 0);
  absl::Cleanup resume = [canopyd] { kill(canopyd, SIGCONT); };
  EXPECT_TRUE(WaitUntil([&] { return Gone(first[0]) && Gone(first[1]); }, absl::Seconds(20)))
      << cluster_.AgentLog();
  EXPECT_THAT(cluster_.AgentLog(), HasSubstr("fenced 1 job(s)"));
  // Past the node timeout, then the controller is back: the run is requeued (by the fenced
  // reports or by the node timeout, whichever it sees first) and runs again, alone. Usually as
  // restart 1; on a slow machine (the TSan build) the controller can relaunch it on a node
  // before it has caught up on that node's heartbeats, the agent fences that run too, and the
  // job comes back once more. What must hold is that no two runs overlap.
  absl::SleepFor(absl::Seconds(2));
  std::move(resume).Invoke();
  ASSERT_TRUE(WaitUntil(
      [&] {
        for (int run = 1; run <= 5; ++run) {
          const pid_t a = PidIn(absl::StrCat("pid.", run, ".0"));
          const pid_t b = PidIn(absl::StrCat("pid.", run, ".1"));
          if (a > 0 && b > 0 && !Gone(a) && !Gone(b)) {
            return true;
          }
        }
        return false;
      },
      absl::Seconds(60)))
      << State(id) << "\n"
      << Diagnostics();
  std::ofstream(work_ + "/go").close();
  ASSERT_TRUE(WaitUntil([&] { return State(id) == "COMPLETED"; }, absl::Seconds(30)))
      << State(id) << Diagnostics();
  EXPECT_EQ(Work("overlap.txt"), "");
  EXPECT_THAT(Scontrol({"show", "job", absl::StrCat(id)}).out,
              ContainsRegex(" Restarts=[1-9][0-9]* "));
  // Both nodes serve again.
  EXPECT_THAT(cluster_.FrontEnd("sinfo", {"-h", "-o", "%t %D"}).out, HasSubstr("idle 2"));
}

TEST_F(NodeFaultsTest, GpusStillCleaningUpAreNotGivenAwayAfterAControllerCrash) {
  ASSERT_TRUE(StartCluster("gpu1", 1, 4));
  // A ignores SIGTERM, so after its requeue it lives on for KillWait (8 s) until SIGKILL.
  const uint32_t a = Sbatch({"-G", "4", "-o", "a.txt", "--wrap",
                             "trap '' TERM; echo $$ > a.pid; while true; do sleep 0.1; done"});
  ASSERT_TRUE(WaitUntil([&] { return PidIn("a.pid") > 0; }, absl::Seconds(30))) << Diagnostics();
  // B wants the same four GPUs and looks, when it starts, whether A is still alive.
  const uint32_t b = Sbatch({"-G", "4", "-o", "b.txt", "--wrap",
                             "if kill -0 $(cat a.pid) 2>/dev/null; then echo overlap; "
                             "else echo alone; fi"});
  ASSERT_EQ(Scontrol({"requeuehold", absl::StrCat(a)}).exit_code, 0);
  // canopyd dies while A's processes are dying, and comes back: it has forgotten the hold on
  // gpu1, but the agent lists A when it registers again.
  cluster_.CrashController();
  ASSERT_TRUE(cluster_.StartController().ok()) << cluster_.ControllerLog();
  // Otherwise B would find A gone whatever canopyd does, and the test would show nothing.
  ASSERT_EQ(kill(PidIn("a.pid"), 0), 0) << "A ended before canopyd was back";
  ASSERT_TRUE(WaitUntil([&] { return State(b) == "COMPLETED"; }, absl::Seconds(60)))
      << State(b) << Diagnostics();
  EXPECT_EQ(Work("b.txt"), "alone\n");
  EXPECT_EQ(State(a), "PENDING");
}

// kill -9 of canopyd under a running srun: the restarted canopyd knows the step again (squeue
// -s), and records its end when its parts report, the one that ended before the crash too (its
// agent lists it when it registers again). Before, the step was forgotten, and sacct showed it
// RUNNING for ever after its job had ended.
TEST_F(NodeFaultsTest, ARunningStepIsKnownAgainAfterAControllerCrash) {
  ASSERT_TRUE(StartCluster("gpu[1-2]", 2, 4));
  // gpu1's part ends after 1 s, gpu2's after 12 s.
  std::ofstream(work_ + "/step.sh")
      << "#!/bin/sh\nsrun -N 2 sh -c 'sleep $((1 + 11 * SLURM_NODEID))'\necho srun $?\n";
  const uint32_t job = Sbatch({"-N", "2", "-o", "step.txt", "step.sh"});
  const std::string step = absl::StrCat(job, ".0");
  auto listed = [&] {
    return absl::StrContains(cluster_.FrontEnd("squeue", {"-s", "-h", "-o", "%i"}).out, step);
  };
  ASSERT_TRUE(WaitUntil(listed, absl::Seconds(30))) << Diagnostics();
  absl::SleepFor(absl::Seconds(3));  // gpu1's part has ended (canopyd heard it, saved nothing)
  cluster_.CrashController();
  ASSERT_TRUE(cluster_.StartController().ok()) << cluster_.ControllerLog();
  EXPECT_TRUE(listed()) << cluster_.FrontEnd("squeue", {"-s"}).out;
  ASSERT_TRUE(WaitUntil([&] { return State(job) == "COMPLETED"; }, absl::Seconds(60)))
      << State(job) << Diagnostics();
  EXPECT_EQ(Work("step.txt"), "srun 0\n");
  const CommandResult sacct =
      cluster_.FrontEnd("sacct", {"-j", absl::StrCat(job), "-n", "-P", "-o", "JobID,State"});
  EXPECT_THAT(sacct.out, HasSubstr(absl::StrCat(step, "|COMPLETED\n"))) << sacct.out;
}

}  // namespace
}  // namespace canopy::testing
