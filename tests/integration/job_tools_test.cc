// The tools that reach into running jobs and the controller, on a real canopyd and agent:
// scontrol notify (batch stderr, srun), scontrol listpids inside a job, sattach (replay, live
// output, --layout), and scontrol reconfigure (a good file restarts canopyd on it without
// losing the running job; a bad one changes nothing).
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/front_end_test.h"

namespace canopy::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kConfig[] = R"(
cluster_name: ittools
node_timeout: 30s
heartbeat_interval: 500ms
kill_wait: 2s
launch_timeout: 10s
min_job_age: 60s
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

class JobToolsTest : public FrontEndTest {
 protected:
  // listpids reads /proc, where it tells clusters apart by SLURM_CLUSTER_NAME. ctest runs each
  // test in its own process, side by side: one cluster name per process keeps a concurrent
  // test's gpu1 tasks out of this test's listing.
  JobToolsTest()
      : FrontEndTest(
            absl::StrReplaceAll(kConfig, {{"ittools", absl::StrCat("ittools", getpid())}})) {}
  void SetUp() override { ASSERT_TRUE(StartCluster("gpu[1-2]", 2, 4)); }
};

TEST_F(JobToolsTest, NotifyReachesTheBatchScriptsStderrAndSrun) {
  const uint32_t batch = Sbatch({"-o", "out.txt", "-e", "err.txt", "--wrap",
                                 "echo start; while [ ! -e go ]; do sleep 0.1; done; echo end"});
  ASSERT_TRUE(WaitUntil([&] { return State(batch) == "RUNNING"; }, absl::Seconds(30)));
  CommandResult r =
      cluster_.FrontEnd("scontrol", {"notify", absl::StrCat(batch), "hello", "there"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(WaitUntil([&] { return absl::StrContains(Work("err.txt"), "hello there"); },
                        absl::Seconds(10)))
      << Diagnostics();
  EXPECT_EQ(Work("err.txt"), "slurmstepd-gpu1: error: hello there\n");
  std::ofstream(work_ + "/go").close();
  ASSERT_TRUE(WaitUntil([&] { return State(batch) == "COMPLETED"; }, absl::Seconds(30)));
  EXPECT_EQ(Work("out.txt"), "start\nend\n");

  // Slurm's refusals.
  r = cluster_.FrontEnd("scontrol", {"notify", absl::StrCat(batch), "late"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "job notify failure: Job/step already completing or completed\n");
  const uint32_t held = Sbatch({"-H", "-o", "/dev/null", "--wrap", "true"});
  r = cluster_.FrontEnd("scontrol", {"notify", absl::StrCat(held), "early"});
  EXPECT_EQ(r.err, "job notify failure: Requested operation is presently disabled\n");
  EXPECT_EQ(cluster_.FrontEnd("scontrol", {"notify", "abc", "x"}).err,
            "Invalid job_id abcjob notify failure: No error\n");
  EXPECT_EQ(cluster_.FrontEnd("scontrol", {"notify", "5"}).err,
            "too few arguments for keyword:notify\n");

  // A job srun allocated: srun prints the message.
  const std::string log = cluster_.dir() + "/srun.log";
  absl::StatusOr<Subprocess> srun = cluster_.StartFrontEnd(
      "srun", {"-N1", "bash", "-c", "while [ ! -e go2 ]; do sleep 0.1; done"}, work_, log);
  ASSERT_TRUE(srun.ok()) << srun.status();
  uint32_t job = 0;
  ASSERT_TRUE(WaitUntil(
      [&] {
        const std::string ids = cluster_.FrontEnd("squeue", {"-h", "-s", "-o", "%i"}).out;
        return absl::SimpleAtoi(absl::StripSuffix(absl::StripAsciiWhitespace(ids), ".0"), &job);
      },
      absl::Seconds(30)))
      << ReadFile(log);
  r = cluster_.FrontEnd("scontrol", {"notify", absl::StrCat(job), "to srun"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(WaitUntil([&] { return absl::StrContains(ReadFile(log), "srun: to srun\n"); },
                        absl::Seconds(10)))
      << ReadFile(log) << Diagnostics();
  std::ofstream(work_ + "/go2").close();
  absl::StatusOr<int> status = srun->Wait(absl::Seconds(30));
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(*status, 0) << ReadFile(log);
}

TEST_F(JobToolsTest, ListPidsInsideAJobShowsItsTasks) {
  // The batch shell is the batch step's task 0; scontrol, run from it, is one of its other
  // processes; step 0's single task waits for the script to let it end.
  const uint32_t id = Sbatch(
      {"-o", "out.txt", "--wrap",
       "echo $$ > shell.pid; "
       "srun -n1 sh -c 'while [ ! -e stop ]; do sleep 0.1; done' & "
       "until scontrol listpids $SLURM_JOB_ID.0 > /dev/null 2>&1; do sleep 0.2; done; "
       "scontrol listpids $SLURM_JOB_ID > all.txt; scontrol listpids $SLURM_JOB_ID.0 > step.txt; "
       "scontrol listpids $SLURM_JOB_ID.7 > none.txt 2>&1; echo rc=$? >> none.txt; "
       "touch stop; wait"});
  ASSERT_TRUE(WaitUntil([&] { return State(id) == "COMPLETED" || State(id) == "FAILED"; },
                        absl::Seconds(60)))
      << Diagnostics();
  const std::string shell = std::string(absl::StripAsciiWhitespace(Work("shell.pid")));
  const std::string header = "PID      JOBID    STEPID   LOCALID GLOBALID";
  const std::string all = Work("all.txt");
  EXPECT_THAT(all, HasSubstr(header + "\n")) << Work("out.txt");
  EXPECT_THAT(all, HasSubstr(absl::StrFormat("%-8s %-8u batch    0       0       \n", shell, id)))
      << all;
  EXPECT_THAT(all, HasSubstr(absl::StrFormat("%-8u batch    -       -       \n", id))) << all;
  const std::string step = Work("step.txt");
  std::vector<std::string> lines = absl::StrSplit(step, '\n', absl::SkipEmpty());
  // The task first, then what it runs (its sleep) with "-".
  ASSERT_GE(lines.size(), 2u) << step;
  EXPECT_THAT(lines[1], HasSubstr(absl::StrFormat(" %-8u 0        0       0       ", id)));
  for (size_t i = 2; i < lines.size(); ++i) {
    EXPECT_THAT(lines[i], HasSubstr(absl::StrFormat(" %-8u 0        -       -       ", id)));
  }
  EXPECT_EQ(Work("none.txt"),
            header + "\nStepId=" + absl::StrCat(id) + ".7 does not exist on node (null).\nrc=1\n");
}

TEST_F(JobToolsTest, SattachReplaysThenFollowsAStepAndShowsItsLayout) {
  const std::string log = cluster_.dir() + "/srun.log";
  absl::StatusOr<Subprocess> srun =
      cluster_.StartFrontEnd("srun",
                             {"-N2", "-n3", "bash", "-c",
                              "echo first $SLURM_PROCID; echo oops $SLURM_PROCID >&2; "
                              "while [ ! -e go ]; do sleep 0.1; done; echo last $SLURM_PROCID"},
                             work_, log);
  ASSERT_TRUE(srun.ok()) << srun.status();
  std::string step_id;
  ASSERT_TRUE(WaitUntil(
      [&] {
        step_id = std::string(
            absl::StripAsciiWhitespace(cluster_.FrontEnd("squeue", {"-h", "-s", "-o", "%i"}).out));
        return !step_id.empty() && absl::StrContains(ReadFile(log), "first 2");
      },
      absl::Seconds(30)))
      << ReadFile(log);

  CommandResult layout = cluster_.FrontEnd("sattach", {"--layout", step_id});
  EXPECT_EQ(layout.exit_code, 0) << layout.err;
  EXPECT_EQ(layout.out,
            "Job step layout:\n\t3 tasks, 2 nodes (gpu[1-2])\n\n"
            "\tNode 0 (gpu1), 2 task(s): 0 1 \n\tNode 1 (gpu2), 1 task(s): 2 \n");

  const std::string attach_log = cluster_.dir() + "/sattach.log";
  absl::StatusOr<Subprocess> sattach =
      cluster_.StartFrontEnd("sattach", {"-l", "--error-filter=1", step_id}, work_, attach_log);
  ASSERT_TRUE(sattach.ok());
  // What the tasks wrote before sattach came is replayed.
  EXPECT_TRUE(WaitUntil(
      [&] {
        const std::string seen = ReadFile(attach_log);
        return absl::StrContains(seen, "0: first 0\n") && absl::StrContains(seen, "2: first 2\n");
      },
      absl::Seconds(15)))
      << ReadFile(attach_log) << Diagnostics();
  std::ofstream(work_ + "/go").close();
  absl::StatusOr<int> done = sattach->Wait(absl::Seconds(30));
  ASSERT_TRUE(done.ok()) << ReadFile(attach_log);
  EXPECT_EQ(*done, 0);
  const std::string seen = ReadFile(attach_log);
  EXPECT_THAT(seen, HasSubstr("1: last 1\n"));
  EXPECT_THAT(seen, HasSubstr("1: oops 1\n"));
  EXPECT_THAT(seen, Not(HasSubstr("oops 0")));  // stderr of task 1 only
  // The step was srun's all along: sattach going away did not end it early, and srun saw all.
  absl::StatusOr<int> srun_done = srun->Wait(absl::Seconds(30));
  ASSERT_TRUE(srun_done.ok());
  EXPECT_EQ(*srun_done, 0);
  EXPECT_THAT(ReadFile(log), HasSubstr("last 2"));

  CommandResult gone = cluster_.FrontEnd("sattach", {step_id});
  EXPECT_EQ(gone.exit_code, 1);
  EXPECT_THAT(gone.err, HasSubstr("sattach: error: Could not get job step info: "));
}

TEST_F(JobToolsTest, AnArraysIdNamesEveryTaskItsTaskIdOne) {
  const uint32_t array = Sbatch({"-H", "--array=1-3", "-o", "/dev/null", "--wrap", "true"});
  const std::string id = absl::StrCat(array);
  auto limits = [&] {
    return cluster_.FrontEnd("squeue", {"-h", "-r", "-j", id, "-o", "%i %l"}).out;
  };
  CommandResult r = cluster_.FrontEnd("scontrol", {"update", "JobId=" + id, "TimeLimit=10"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = cluster_.FrontEnd("scontrol", {"update", "JobId=" + id + "_2", "TimeLimit=5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(limits(), absl::StrCat(id, "_1 10:00\n", id, "_2 5:00\n", id, "_3 10:00\n"));
  r = cluster_.FrontEnd("scontrol", {"update", "JobId=" + id + "_9", "TimeLimit=5"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("Invalid job id specified"));
  // release: every task.
  ASSERT_EQ(cluster_.FrontEnd("scontrol", {"release", id}).exit_code, 0);
  EXPECT_TRUE(WaitUntil(
      [&] {
        return cluster_.FrontEnd("squeue", {"-h", "-r", "-t", "all", "-j", id, "-o", "%T"}).out ==
               "COMPLETED\nCOMPLETED\nCOMPLETED\n";
      },
      absl::Seconds(30)))
      << Diagnostics();
}

TEST_F(JobToolsTest, SallocImmediateBeginDependencyAndKillCommand) {
  // Both nodes busy: -I gives up and cancels the request.
  const uint32_t busy = Sbatch(
      {"-N2", "--exclusive", "-o", "/dev/null", "--wrap", "while [ ! -e go ]; do sleep 0.1; done"});
  ASSERT_TRUE(WaitUntil([&] { return State(busy) == "RUNNING"; }, absl::Seconds(30)));
  CommandResult r = cluster_.FrontEndIn("salloc", {"-I1", "-N1", "true"}, work_);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("salloc: job "));
  EXPECT_THAT(r.err, HasSubstr("salloc: error: Unable to allocate resources: Connection timed out\n"
                               "salloc: Job allocation "));
  EXPECT_THAT(r.err, HasSubstr(" has been revoked.\n"));
  r = cluster_.FrontEndIn("salloc", {"--immediate", "-N1", "true"}, work_);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "salloc: error: Unable to allocate resources: Requested nodes are busy\n");
  EXPECT_EQ(cluster_.FrontEnd("squeue", {"-h", "-t", "PD"}).out, "");  // nothing left queued

  // -d afterok: waits for the busy job, then runs.
  const std::string log = cluster_.dir() + "/salloc.log";
  absl::StatusOr<Subprocess> waiting = cluster_.StartFrontEnd(
      "salloc", {"-d", absl::StrCat("afterok:", busy), "-N1", "true"}, work_, log);
  ASSERT_TRUE(waiting.ok());
  EXPECT_TRUE(WaitUntil([&] { return absl::StrContains(ReadFile(log), "queued and waiting"); },
                        absl::Seconds(15)));
  std::ofstream(work_ + "/go").close();
  absl::StatusOr<int> done = waiting->Wait(absl::Seconds(30));
  ASSERT_TRUE(done.ok()) << ReadFile(log);
  EXPECT_EQ(*done, 0) << ReadFile(log);
  EXPECT_THAT(ReadFile(log), HasSubstr("has been allocated resources"));
  r = cluster_.FrontEndIn("salloc", {"-d", "afterok:abc", "true"}, work_);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err,
              HasSubstr("salloc: error: Job submit/allocate failed: Job dependency problem"));

  // --begin in the future: pending with reason BeginTime.
  const std::string begin_log = cluster_.dir() + "/begin.log";
  absl::StatusOr<Subprocess> later = cluster_.StartFrontEnd(
      "salloc", {"--begin=now+1hour", "-J", "later", "-N1", "true"}, work_, begin_log);
  ASSERT_TRUE(later.ok());
  EXPECT_TRUE(WaitUntil(
      [&] {
        return cluster_.FrontEnd("squeue", {"-h", "-n", "later", "-o", "%r"}).out == "BeginTime\n";
      },
      absl::Seconds(15)))
      << ReadFile(begin_log);
  later->Signal(SIGINT);
  ASSERT_TRUE(later->Wait(absl::Seconds(15)).ok());
  EXPECT_THAT(ReadFile(begin_log),
              HasSubstr("has been revoked.\nsalloc: Job aborted due to signal\n"));

  // -K: a revoked allocation's command gets the signal; without -K it would run on.
  const std::string k_log = cluster_.dir() + "/k.log";
  absl::StatusOr<Subprocess> k =
      cluster_.StartFrontEnd("salloc",
                             {"-KUSR1", "-J", "ktest", "-N1", "sh", "-c",
                              "trap 'echo got usr1; exit 7' USR1; echo trap set; "
                              "while :; do sleep 0.1; done"},
                             work_, k_log);
  ASSERT_TRUE(k.ok());
  // The command runs (and has its trap) only once salloc was granted the allocation.
  ASSERT_TRUE(
      WaitUntil([&] { return absl::StrContains(ReadFile(k_log), "trap set"); }, absl::Seconds(30)))
      << ReadFile(k_log);
  const std::string id = std::string(absl::StripAsciiWhitespace(
      cluster_.FrontEnd("squeue", {"-h", "-n", "ktest", "-o", "%i"}).out));
  ASSERT_EQ(cluster_.FrontEnd("scancel", {id}).exit_code, 0);
  absl::StatusOr<int> k_done = k->Wait(absl::Seconds(30));
  ASSERT_TRUE(k_done.ok()) << ReadFile(k_log);
  EXPECT_EQ(WEXITSTATUS(*k_done), 7) << ReadFile(k_log);  // the trap's exit status, as Slurm
  EXPECT_THAT(ReadFile(k_log), HasSubstr("has been revoked.\n"));
  EXPECT_THAT(ReadFile(k_log), HasSubstr("got usr1"));
}

TEST_F(JobToolsTest, ReconfigureRestartsOnTheNewFileAndKeepsTheRunningJob) {
  const uint32_t running =
      Sbatch({"-o", "out.txt", "--wrap", "while [ ! -e go ]; do sleep 0.1; done; echo done"});
  ASSERT_TRUE(WaitUntil([&] { return State(running) == "RUNNING"; }, absl::Seconds(30)));
  const pid_t pid = cluster_.controller_pid();
  const std::string original = ReadFile(cluster_.config_path());

  // A bad file: refused with the loader's words; canopyd runs on.
  std::ofstream(cluster_.config_path()) << original << "  - name: broken\n    nodes: gpu9\n";
  CommandResult r = cluster_.FrontEnd("scontrol", {"reconfigure"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("slurm_reconfigure error: the configuration was not changed: "));
  EXPECT_THAT(r.err, HasSubstr("gpu9"));
  EXPECT_EQ(cluster_.FrontEnd("scontrol", {"ping"}).exit_code, 0);

  // A good one: a new partition and a new MinJobAge, served after the restart.
  std::ofstream(cluster_.config_path())
      << absl::StrReplaceAll(original, {{"min_job_age: 60s", "min_job_age: 90s"}})
      << "  - name: small\n    nodes: gpu2\n";
  r = cluster_.FrontEnd("scontrol", {"-v", "reconfigure"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("partition added: small"));
  EXPECT_THAT(r.err, HasSubstr("MinJobAge: 60 sec -> 90 sec"));
  EXPECT_TRUE(WaitUntil(
      [&] {
        return absl::StrContains(cluster_.FrontEnd("scontrol", {"show", "partition", "small"}).out,
                                 "PartitionName=small");
      },
      absl::Seconds(30)))
      << Diagnostics();
  // The same process, exec'ed again: alive under its pid, and it started a second time.
  EXPECT_EQ(kill(pid, 0), 0);
  const std::string log = cluster_.ControllerLog();
  EXPECT_THAT(log, HasSubstr("reconfigure: restarting on "));
  size_t starts = 0;
  for (size_t at = log.find(" listening on "); at != std::string::npos;
       at = log.find(" listening on ", at + 1)) {
    ++starts;
  }
  EXPECT_EQ(starts, 2u) << log;
  EXPECT_THAT(cluster_.FrontEnd("scontrol", {"show", "config"}).out,
              HasSubstr("MinJobAge               = 90 sec"));
  EXPECT_EQ(State(running), "RUNNING");
  // The agent found the restarted controller; the job finishes as if nothing happened.
  std::ofstream(work_ + "/go").close();
  EXPECT_TRUE(WaitUntil([&] { return State(running) == "COMPLETED"; }, absl::Seconds(60)))
      << State(running) << Diagnostics();
  EXPECT_EQ(Work("out.txt"), "done\n");
  const uint32_t after = Sbatch({"-p", "small", "-o", "/dev/null", "--wrap", "true"});
  EXPECT_TRUE(WaitUntil([&] { return State(after) == "COMPLETED"; }, absl::Seconds(30)));
}

}  // namespace
}  // namespace canopy::testing
