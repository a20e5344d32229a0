// The Slurm drop-in end to end: a real canopyd and agent on loopback (4 virtual nodes of 4 fake
// GPUs, two partitions) driven by the real sbatch, salloc, srun, squeue and scontrol.
// `scontrol update job` moves a pending job between partitions, renames it, changes its node
// count and clears its dependency; running srun steps show in `squeue -s` and `scontrol show
// steps`; `scontrol show config|partition|node|reservation` answer; salloc runs a command in
// an allocation where srun starts steps, and relinquishes it with the command's exit code.
#include <pwd.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "canopy/v1/controller.grpc.pb.h"
#include "gmock/gmock.h"
#include "grpcpp/create_channel.h"
#include "gtest/gtest.h"
#include "tests/integration/front_end_test.h"

namespace canopy::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kConfig[] = R"(
cluster_name: itdropin
node_timeout: 5s
heartbeat_interval: 500ms
kill_wait: 2s
launch_timeout: 10s
min_job_age: 60s
nodes:
  - names: gpu[1-4]
    cpus: 8
    memory_mib: 64000
    gpus: {type: h100, count: 4}
partitions:
  - name: gpu
    nodes: ALL
    default: true
  - name: small
    nodes: gpu[1-2]
)";

class DropInTest : public FrontEndTest {
 protected:
  DropInTest() : FrontEndTest(kConfig) {}
  void SetUp() override { ASSERT_TRUE(StartCluster("gpu[1-4]", 4, 4)); }

  // Output to /dev/null unless the arguments say otherwise.
  uint32_t Sbatch(const std::vector<std::string>& args) {
    std::vector<std::string> all = {"-o", "/dev/null"};
    all.insert(all.end(), args.begin(), args.end());
    return FrontEndTest::Sbatch(all);
  }
};

TEST_F(DropInTest, UpdatePendingJobPartitionNameNodesAndDependency) {
  const uint32_t held = Sbatch({"-H", "-J", "first", "--wrap", "sleep 1"});
  const std::string id = absl::StrCat(held);

  CommandResult r =
      Scontrol({"update", "job", id, "Partition=small", "Name=renamed", "Comment=moved"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(Squeue(held, "%P %j"), "small renamed");
  EXPECT_THAT(Scontrol({"show", "job", id}).out, HasSubstr("Comment=moved"));

  r = Scontrol({"update", "job", id, "Partition=nosuch"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("Invalid partition name specified"));
  EXPECT_EQ(Squeue(held, "%P"), "small");  // refused: nothing changed

  // More nodes than the partition has: the job pends on the partition limit once released.
  ASSERT_EQ(Scontrol({"update", "JobId=" + id, "NumNodes=3"}).exit_code, 0);
  ASSERT_EQ(Scontrol({"release", id}).exit_code, 0);
  EXPECT_TRUE(WaitUntil([&] { return Squeue(held, "%T %r") == "PENDING PartitionNodeLimit"; },
                        absl::Seconds(10)))
      << Squeue(held, "%T %r");
  ASSERT_EQ(Scontrol({"update", "job", id, "Partition=gpu"}).exit_code, 0);
  EXPECT_TRUE(WaitUntil([&] { return Squeue(held, "%T %D") == "COMPLETED 3"; }, absl::Seconds(30)))
      << Squeue(held, "%T %D") << Diagnostics();

  // A dependency that can never be met, cleared by an update.
  const uint32_t failing = Sbatch({"--wrap", "exit 1"});
  const uint32_t waiting = Sbatch(
      {"-d", absl::StrCat("afterok:", failing), "--kill-on-invalid-dep=no", "--wrap", "true"});
  EXPECT_TRUE(WaitUntil([&] { return Squeue(waiting, "%r") == "DependencyNeverSatisfied"; },
                        absl::Seconds(30)))
      << Squeue(waiting, "%T %r");
  r = Scontrol({"update", "job", absl::StrCat(waiting), "Dependency="});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(WaitUntil([&] { return Squeue(waiting, "%T") == "COMPLETED"; }, absl::Seconds(30)))
      << Squeue(waiting, "%T %r") << Diagnostics();

  // A running job keeps its partition.
  const uint32_t running = Sbatch({"--wrap", "sleep 30"});
  ASSERT_TRUE(WaitUntil([&] { return Squeue(running, "%T") == "RUNNING"; }, absl::Seconds(30)));
  r = Scontrol({"update", "job", absl::StrCat(running), "Partition=small"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("Job is no longer pending execution"));
  EXPECT_EQ(cluster_.FrontEnd("scancel", {absl::StrCat(running)}).exit_code, 0);
}

TEST_F(DropInTest, SqueueByIdListsJobsArraysAndTasksAsAWalkWould) {
  // canopyd looks ids up rather than walking the queue, except for arrays' ids and ids it does
  // not find: every case lists what the whole-queue walk listed.
  const uint32_t single = Sbatch({"-H", "-J", "single", "--wrap", "true"});
  const uint32_t array = Sbatch({"-H", "-J", "arr", "--array=1-3", "--wrap", "true"});
  const uint32_t other = Sbatch({"-H", "-J", "other", "--wrap", "true"});
  auto ids = [&](const std::string& which) {
    CommandResult r = cluster_.FrontEnd("squeue", {"-h", "-r", "-j", which, "-o", "%i %j"});
    return absl::StrCat(r.exit_code, ": ", r.out, r.err);
  };
  EXPECT_EQ(ids(absl::StrCat(single)), absl::StrCat("0: ", single, " single\n"));
  // The array's id: every task. A task's own id: that task.
  EXPECT_EQ(ids(absl::StrCat(array)),
            absl::StrCat("0: ", array, "_1 arr\n", array, "_2 arr\n", array, "_3 arr\n"));
  EXPECT_EQ(ids(absl::StrCat(array + 1)), absl::StrCat("0: ", array, "_2 arr\n"));
  // Several ids, given out of order and twice: each job once, in id order (asked directly:
  // squeue would sort and drop repeats itself).
  auto stub = canopy::v1::Controller::NewStub(
      grpc::CreateChannel(cluster_.socket_target(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  canopy::v1::ListJobsRequest request;
  for (uint32_t id : {other, single, other}) {
    request.add_job_ids(id);
  }
  canopy::v1::ListJobsResponse listed;
  ASSERT_TRUE(stub->ListJobs(&context, request, &listed).ok());
  ASSERT_EQ(listed.jobs_size(), 2);
  EXPECT_EQ(listed.jobs(0).job_id(), single);
  EXPECT_EQ(listed.jobs(1).job_id(), other);
  // An id nobody has, with one that exists: the one that exists; alone: squeue's error.
  EXPECT_EQ(ids(absl::StrCat(single, ",", other + 100)), absl::StrCat("0: ", single, " single\n"));
  EXPECT_THAT(ids(absl::StrCat(other + 100)), HasSubstr("Invalid job id specified"));
  EXPECT_THAT(ids(absl::StrCat(other + 100)), ::testing::StartsWith("1: "));
}

TEST_F(DropInTest, RunningStepsShowInSqueueAndScontrol) {
  std::ofstream(work_ + "/steps.sh") << "#!/bin/sh\nsrun -N 2 sleep 60\n";
  const uint32_t job = Sbatch({"-N", "2", "--gpus-per-node=2", "steps.sh"});
  const std::string step = absl::StrCat(job, ".0");
  ASSERT_TRUE(WaitUntil(
      [&] {
        return absl::StrContains(cluster_.FrontEnd("squeue", {"-s", "-h"}).out, step);
      },
      absl::Seconds(30)))
      << cluster_.FrontEnd("squeue", {"-s"}).out << Diagnostics();
  const std::string steps = cluster_.FrontEnd("squeue", {"-s", "-h"}).out;
  EXPECT_THAT(steps, HasSubstr("sleep"));
  const CommandResult shown = Scontrol({"show", "steps", absl::StrCat(job)});
  EXPECT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_THAT(shown.out, HasSubstr(absl::StrCat("StepId=", step)));
  EXPECT_THAT(shown.out, HasSubstr("State=RUNNING"));
  // The batch script's step comes last, as Slurm lists it; `show steps N.batch` names it alone.
  EXPECT_THAT(shown.out, HasSubstr(absl::StrCat("\nStepId=", job, ".batch UserId=")));
  EXPECT_LT(shown.out.find(absl::StrCat("StepId=", step)),
            shown.out.find(absl::StrCat("StepId=", job, ".batch")));
  const CommandResult batch = Scontrol({"show", "steps", absl::StrCat(job, ".batch")});
  EXPECT_EQ(batch.exit_code, 0) << batch.err;
  EXPECT_THAT(batch.out, ::testing::StartsWith(absl::StrCat("StepId=", job, ".batch")));
  EXPECT_THAT(batch.out, Not(HasSubstr(absl::StrCat("StepId=", step))));
  // -d: the GPUs' indexes on each node, as scripts that map GPUs to jobs read them.
  const CommandResult detailed = Scontrol({"show", "job", "-d", absl::StrCat(job)});
  EXPECT_THAT(detailed.out, HasSubstr("   JOB_GRES=gpu:4\n     Nodes=")) << detailed.out;
  EXPECT_THAT(detailed.out, HasSubstr(" GRES=gpu:2(IDX:0-1)\n")) << detailed.out;
  EXPECT_THAT(Scontrol({"show", "job", absl::StrCat(job)}).out, Not(HasSubstr("JOB_GRES")));
  EXPECT_EQ(cluster_.FrontEnd("scancel", {absl::StrCat(job)}).exit_code, 0);
  EXPECT_TRUE(WaitUntil(
      [&] {
        return !absl::StrContains(cluster_.FrontEnd("squeue", {"-s", "-h"}).out, step);
      },
      absl::Seconds(30)));
}

TEST_F(DropInTest, ShowConfigPartitionNodeAndReservation) {
  CommandResult r = Scontrol({"show", "config"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Configuration data as of "));
  EXPECT_THAT(r.out, HasSubstr("\nClusterName             = itdropin\n"));
  EXPECT_THAT(r.out, HasSubstr("\nMinJobAge               = 60 sec\n"));
  EXPECT_THAT(r.out, HasSubstr("is UP\n"));

  r = Scontrol({"show", "partition", "small"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("PartitionName=small"));
  EXPECT_THAT(r.out, HasSubstr("Nodes=gpu[1-2]"));
  EXPECT_THAT(r.out, HasSubstr("TotalNodes=2"));
  EXPECT_THAT(r.out, Not(HasSubstr("PartitionName=gpu\n")));

  r = Scontrol({"show", "node", "gpu3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("NodeName=gpu3"));
  EXPECT_THAT(r.out, HasSubstr("CPUTot=8"));
  EXPECT_THAT(r.out, HasSubstr("RealMemory=64000"));
  EXPECT_THAT(r.out, HasSubstr("Partitions=gpu"));

  r = Scontrol({"show", "reservation"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("No reservations in the system"));
}

TEST_F(DropInTest, SallocRunsACommandInAnAllocationWithSteps) {
  const CommandResult r = cluster_.FrontEndIn(
      "salloc",
      {"-N", "2", "-J", "interactive", "-c", "3", "--mem=100", "sh", "-c",
       "echo job=$SLURM_JOB_ID nodes=$SLURM_JOB_NODELIST n=$SLURM_JOB_NUM_NODES; "
       "echo cpt=$SLURM_CPUS_PER_TASK mem=$SLURM_MEM_PER_NODE qos=$SLURM_JOB_QOS "
       "ntasks=${SLURM_NTASKS-unset}; srun -N 2 -l echo step; exit 3"},
      work_);
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err << Diagnostics();
  EXPECT_THAT(r.err, HasSubstr("salloc: Granted job allocation "));
  EXPECT_THAT(r.err, Not(HasSubstr("Pending job allocation")));  // it started at once
  EXPECT_THAT(r.err, HasSubstr("salloc: Relinquishing job allocation "));
  EXPECT_THAT(r.out, HasSubstr("n=2"));
  // salloc's options and the job's QOS, as Slurm's salloc gives them; no -n, no SLURM_NTASKS.
  EXPECT_THAT(r.out, HasSubstr("cpt=3 mem=100 qos=normal ntasks=unset"));
  EXPECT_THAT(r.out, HasSubstr("0: step"));
  EXPECT_THAT(r.out, HasSubstr("1: step"));
  // The allocation is the job the command saw, and it ended with the command's exit code.
  const size_t at = r.out.find("job=");
  ASSERT_NE(at, std::string::npos);
  uint32_t job = 0;
  ASSERT_TRUE(absl::SimpleAtoi(r.out.substr(at + 4, r.out.find(' ', at) - at - 4), &job));
  EXPECT_TRUE(WaitUntil([&] { return Squeue(job, "%T") == "FAILED"; }, absl::Seconds(30)))
      << Squeue(job, "%T %j");
  EXPECT_EQ(Squeue(job, "%j"), "interactive");

  // --no-shell leaves the allocation running until scancel.
  const CommandResult kept = cluster_.FrontEndIn("salloc", {"--no-shell", "-N", "1"}, work_);
  ASSERT_EQ(kept.exit_code, 0) << kept.err;
  const std::string granted = "salloc: Granted job allocation ";
  const size_t g = kept.err.find(granted);
  ASSERT_NE(g, std::string::npos) << kept.err;
  uint32_t kept_id = 0;
  ASSERT_TRUE(
      absl::SimpleAtoi(absl::StripAsciiWhitespace(kept.err.substr(
                           g + granted.size(), kept.err.find('\n', g) - g - granted.size())),
                       &kept_id));
  EXPECT_EQ(Squeue(kept_id, "%T"), "RUNNING");
  EXPECT_EQ(cluster_.FrontEnd("scancel", {absl::StrCat(kept_id)}).exit_code, 0);
}

// What submitit's Slurm executor sends, command for command (its submission file, sacct
// --parsable2 polling, and `scontrol requeue $SLURM_JOB_ID` from inside the job, as its
// checkpointing does on preemption), and dask-jobqueue's submit line parsed from sbatch's
// "Submitted batch job N".
// sbatch passes the submitting shell's umask on (SLURM_UMASK), as Slurm's does: the output file
// and the files the job makes get it, not the agent's, and the job does not see the variable
// (Slurm 22.05 on this machine: umask 077 gave the job 0077, an -rw------- output file and an
// unset SLURM_UMASK).
TEST_F(DropInTest, TheJobsFilesGetTheSubmittersUmask) {
  const mode_t before = umask(077);
  const uint32_t job = Sbatch(
      {"-o", work_ + "/umask.out", "--wrap", "umask; : > " + work_ + "/made; echo $SLURM_UMASK"});
  umask(before);
  ASSERT_NE(job, 0u);
  EXPECT_TRUE(WaitUntil([&] { return State(job) == "COMPLETED"; }, absl::Seconds(30)))
      << State(job) << Diagnostics();
  // Applied, then unset, as slurmstepd does.
  EXPECT_EQ(Work("umask.out"), "0077\n\n");
  const auto owner_only = std::filesystem::perms::owner_read | std::filesystem::perms::owner_write;
  EXPECT_EQ(
      std::filesystem::status(work_ + "/umask.out").permissions() & std::filesystem::perms::all,
      owner_only);
  EXPECT_EQ(std::filesystem::status(work_ + "/made").permissions() & std::filesystem::perms::all,
            owner_only);
}

// --export=NONE and --export=<list> jobs start from the user's login environment, as Slurm
// 22.05's did on this machine (HOME, PATH, USER from `su - user`, SLURM_EXPORT_ENV and
// SLURM_GET_USER_ENV set, nothing else of the submitter's); the default exports everything.
TEST_F(DropInTest, ExportNoneAndListsStartFromTheLoginEnvironment) {
  if (geteuid() != 0) {
    GTEST_SKIP() << "the agent loads login environments with su, as root";
  }
  const passwd* me = getpwuid(geteuid());
  ASSERT_NE(me, nullptr);
  setenv("CANOPY_TEST_SUBMITTER_ONLY", "1", 1);
  const std::string print =
      "echo HOME=$HOME USER=$USER MINE=${CANOPY_TEST_SUBMITTER_ONLY:-unset} "
      "FOO=${FOO:-unset} EXPORT=${SLURM_EXPORT_ENV:-unset} GET=${SLURM_GET_USER_ENV:-unset}; "
      "[ -n \"$PATH\" ] && echo path";
  const uint32_t none = Sbatch({"-o", work_ + "/none.out", "--export=NONE", "--wrap", print});
  const uint32_t list = Sbatch({"-o", work_ + "/list.out", "--export=FOO=1", "--wrap", print});
  const uint32_t all = Sbatch({"-o", work_ + "/all.out", "--wrap", print});
  unsetenv("CANOPY_TEST_SUBMITTER_ONLY");
  for (uint32_t job : {none, list, all}) {
    ASSERT_NE(job, 0u);
    EXPECT_TRUE(WaitUntil([&] { return State(job) == "COMPLETED"; }, absl::Seconds(30)))
        << job << ": " << State(job) << Diagnostics();
  }
  const std::string home = absl::StrCat("HOME=", me->pw_dir, " USER=", me->pw_name);
  EXPECT_EQ(Work("none.out"),
            absl::StrCat(home, " MINE=unset FOO=unset EXPORT=NONE GET=1\npath\n"));
  EXPECT_EQ(Work("list.out"), absl::StrCat(home, " MINE=unset FOO=1 EXPORT=FOO=1 GET=1\npath\n"));
  EXPECT_THAT(Work("all.out"), HasSubstr("MINE=1 FOO=unset EXPORT=unset GET=unset\npath\n"));
}

// -Q: nothing on stdout or stderr, not even the job id (with --parsable either), as Slurm
// 22.05's sbatch; the job is submitted all the same.
TEST_F(DropInTest, QuietSubmitsWithoutPrintingTheJobId) {
  const std::string before = cluster_.FrontEnd("squeue", {"-h", "-t", "all", "-o", "%i"}).out;
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"-Q", "-H", "-o", "/dev/null", "--wrap", "true"},
        std::vector<std::string>{"--quiet", "--parsable", "-H", "-o", "/dev/null", "--wrap",
                                 "true"}}) {
    const CommandResult r = cluster_.FrontEndIn("sbatch", args, work_);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "");
  }
  const std::string after = cluster_.FrontEnd("squeue", {"-h", "-t", "all", "-o", "%i"}).out;
  EXPECT_EQ(
      std::count(after.begin(), after.end(), '\n') - std::count(before.begin(), before.end(), '\n'),
      2)
      << before << "---\n"
      << after;
}

TEST_F(DropInTest, ExecutorShapedSubmissionsRunToTheEnd) {
  const std::string dir = work_;
  std::ofstream(work_ + "/submission_file.sh")
      << "#!/bin/bash\n"
         "\n"
         "# Parameters\n"
         "#SBATCH --cpus-per-task=2\n"
         "#SBATCH --error="
      << dir
      << "/%j_0_log.err\n"
         "#SBATCH --gpus-per-node=1\n"
         "#SBATCH --job-name=submitit\n"
         "#SBATCH --nodes=1\n"
         "#SBATCH --ntasks-per-node=1\n"
         "#SBATCH --open-mode=append\n"
         "#SBATCH --output="
      << dir
      << "/%j_0_log.out\n"
         "#SBATCH --signal=USR2@90\n"
         "#SBATCH --time=5\n"
         "#SBATCH --wckey=submitit\n"
         "\n"
         "# command\n"
         "export SUBMITIT_EXECUTOR=slurm\n"
         "srun --unbuffered --output "
      << dir << "/%j_%t_log.out --error " << dir
      << "/%j_%t_log.err sh -c 'echo running restart=${SLURM_RESTART_COUNT:-0}; "
         "if [ \"${SLURM_RESTART_COUNT:-0}\" = 0 ]; then scontrol requeue $SLURM_JOB_ID; sleep 60; "
         "fi; echo done'\n";
  const CommandResult submitted = cluster_.FrontEndIn("sbatch", {"submission_file.sh"}, work_);
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  const std::string prefix = "Submitted batch job ";
  ASSERT_TRUE(absl::StartsWith(submitted.out, prefix)) << submitted.out;
  uint32_t job = 0;
  ASSERT_TRUE(
      absl::SimpleAtoi(absl::StripAsciiWhitespace(submitted.out.substr(prefix.size())), &job));
  const std::string id = absl::StrCat(job);

  std::string polled;
  EXPECT_TRUE(WaitUntil(
      [&] {
        polled =
            cluster_.FrontEnd("sacct", {"-o", "JobID,State,NodeList", "--parsable2", "-j", id}).out;
        return absl::StrContains(polled, absl::StrCat("\n", id, "|COMPLETED|gpu"));
      },
      absl::Seconds(60)))
      << polled << Diagnostics();
  EXPECT_THAT(polled, HasSubstr("JobID|State|NodeList\n"));
  const std::string log = ReadFile(absl::StrCat(work_, "/", id, "_0_log.out"));
  EXPECT_THAT(log, HasSubstr("running restart=0"));
  EXPECT_THAT(log, HasSubstr("running restart=1"));  // appended to, not truncated, on requeue
  EXPECT_THAT(log, HasSubstr("done"));
  EXPECT_EQ(Squeue(job, "%j"), "submitit");

  // dask-jobqueue: plain `sbatch script`, the id taken from the first number printed.
  std::ofstream(work_ + "/dask.sh") << "#!/usr/bin/env bash\n"
                                       "#SBATCH -J dask-worker\n"
                                       "#SBATCH -n 1\n"
                                       "#SBATCH --cpus-per-task=1\n"
                                       "#SBATCH --mem=1G\n"
                                       "#SBATCH -t 00:30:00\n"
                                       "sleep 60\n";
  const CommandResult dask = cluster_.FrontEndIn("sbatch", {"dask.sh"}, work_);
  ASSERT_EQ(dask.exit_code, 0) << dask.err;
  uint32_t worker = 0;
  ASSERT_TRUE(
      absl::SimpleAtoi(absl::StripAsciiWhitespace(absl::StripPrefix(dask.out, prefix)), &worker))
      << dask.out;
  EXPECT_TRUE(WaitUntil([&] { return Squeue(worker, "%T") == "RUNNING"; }, absl::Seconds(30)));
  EXPECT_EQ(cluster_.FrontEnd("scancel", {absl::StrCat(worker)}).exit_code, 0);
  EXPECT_TRUE(WaitUntil([&] { return Squeue(worker, "%T") == "CANCELLED"; }, absl::Seconds(30)));
}

}  // namespace
}  // namespace canopy::testing
