// Issue #4: real jobs end to end on loopback. canopyd and one agent hosting 4 virtual nodes
// (two leaves of two, 4 fake GPUs each); jobs submitted with the real sbatch/srun/scancel front
// ends; states and exit codes read back over the API. Checks a 4-node x 2-task srun step inside
// an sbatch job (8 ranks, the right SLURM_* values), the batch environment, output files and
// patterns, exit codes, the time-limit kill, cancel (nothing survives), and that a queued job
// survives kill -9 of canopyd.
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/rpc/status_convert.h"
#include "ctl/client/controller_client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/local_cluster.h"

namespace canopy::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kConfig[] = R"(
cluster_name: itjobs
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
topology_plugin: topology/tree
topology:
  switches:
    - name: leaf1
      nodes: gpu[1-2]
    - name: leaf2
      nodes: gpu[3-4]
    - name: spine
      switches: leaf[1-2]
)";

// True while `pid` runs (a zombie, waiting for whoever adopted it to reap it, counts as gone).
bool Alive(int pid) {
  if (kill(pid, 0) != 0) {
    return false;
  }
  const std::string stat = ReadFile(absl::StrCat("/proc/", pid, "/stat"));
  const size_t paren = stat.rfind(')');
  return paren == std::string::npos || paren + 2 >= stat.size() || stat[paren + 2] != 'Z';
}

std::map<std::string, std::string> ParseEnv(const std::string& text) {
  std::map<std::string, std::string> env;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    const size_t eq = line.find('=');
    if (eq != absl::string_view::npos) {
      env[std::string(line.substr(0, eq))] = std::string(line.substr(eq + 1));
    }
  }
  return env;
}

class JobsTest : public ::testing::Test {
 protected:
  JobsTest() : cluster_(kConfig) {}

  void SetUp() override {
    work_ = cluster_.dir() + "/work";
    std::filesystem::create_directories(work_);
    ASSERT_TRUE(cluster_.StartController().ok()) << cluster_.ControllerLog();
    ASSERT_TRUE(StartAgent());
  }

  // Starts the agent; with `wait_idle`, waits until all four nodes are idle.
  bool StartAgent(bool wait_idle = true) {
    if (!cluster_
             .StartAgent("gpu[1-4]", {"--fake_gpus", "4", "--spool_dir", cluster_.dir() + "/spool",
                                      "--fake_gpu_faults", cluster_.dir() + "/faults"})
             .ok()) {
      return false;
    }
    if (!wait_idle) {
      return true;
    }
    return WaitUntil(
        [&] {
          const CommandResult r = cluster_.FrontEnd("sinfo", {"-h", "-o", "%t %D"});
          return absl::StrContains(r.out, "idle 4");
        },
        absl::Seconds(30));
  }

  ctl::client::ControllerClient Client() {
    absl::StatusOr<ctl::client::ControllerClient> c =
        ctl::client::ControllerClient::Connect(cluster_.socket_target());
    EXPECT_TRUE(c.ok()) << c.status();
    return *std::move(c);
  }

  canopy::v1::Job GetJob(uint32_t id) {
    absl::StatusOr<canopy::v1::Job> job = Client().GetJob(id);
    return job.ok() ? *job : canopy::v1::Job();
  }

  bool WaitForState(uint32_t id, canopy::v1::JobState state, absl::Duration timeout) {
    return WaitUntil([&] { return GetJob(id).state() == state; }, timeout);
  }

  // sbatch in the work directory; returns the job id (0 on failure, with the output logged).
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

  int ReadPid(const std::string& file) {
    int pid = 0;
    (void)absl::SimpleAtoi(absl::StripAsciiWhitespace(ReadFile(work_ + "/" + file)), &pid);
    return pid;
  }

  std::string WriteScript(const std::string& name, const std::string& text) {
    const std::string path = work_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }

  std::string Diagnostics(uint32_t id) {
    const canopy::v1::Job job = GetJob(id);
    return absl::StrCat("job: ", job.DebugString(), "\ncanopyd log:\n", cluster_.ControllerLog(),
                        "\nagent log:\n", cluster_.AgentLog());
  }

  LocalCluster cluster_;
  std::string work_;
};

TEST_F(JobsTest, SrunStepInsideSbatchRunsEightRanksWithSlurmEnvironment) {
  WriteScript("step.sh", R"(#!/bin/sh
#SBATCH -J ranks
#SBATCH -N 4 --ntasks-per-node=2 --gpus-per-node=2
#SBATCH -o step-%j.out
env | grep -E '^(SLURM|SLURMD|CUDA)_' | sort > batch-env-$SLURM_JOB_ID.txt
srun -l sh -c 'echo rank=$SLURM_PROCID local=$SLURM_LOCALID node=$SLURM_NODEID ntasks=$SLURM_NTASKS step=$SLURM_STEP_ID host=$SLURMD_NODENAME nodes=$SLURM_STEP_NODELIST job=$SLURM_JOB_ID gtids=$SLURM_GTIDS own=$([ "$SLURM_TASK_PID" = $$ ] && echo y) gpus=$CUDA_VISIBLE_DEVICES'
echo "srun exit $?"
)");
  const uint32_t id = Sbatch({"step.sh"});
  ASSERT_NE(id, 0u);
  ASSERT_TRUE(WaitForState(id, canopy::v1::JOB_STATE_COMPLETED, absl::Seconds(60)))
      << Diagnostics(id);
  const canopy::v1::Job job = GetJob(id);
  EXPECT_EQ(job.exit_code(), 0);
  EXPECT_EQ(job.nodes_size(), 4);

  const std::string out = ReadFile(absl::StrCat(work_, "/step-", id, ".out"));
  std::vector<std::string> lines;
  for (absl::string_view line : absl::StrSplit(out, '\n', absl::SkipEmpty())) {
    if (absl::StrContains(line, "rank=")) {
      lines.emplace_back(line);
    }
  }
  ASSERT_EQ(lines.size(), 8u) << out << Diagnostics(id);
  const char* hosts[] = {"gpu1", "gpu1", "gpu2", "gpu2", "gpu3", "gpu3", "gpu4", "gpu4"};
  for (int rank = 0; rank < 8; ++rank) {
    const std::string want =
        absl::StrCat(rank, ": rank=", rank, " local=", rank % 2, " node=", rank / 2,
                     " ntasks=8 step=0 host=", hosts[rank], " nodes=gpu[1-4] job=", id,
                     " gtids=", rank / 2 * 2, ",", rank / 2 * 2 + 1, " own=y gpus=");
    EXPECT_TRUE(std::any_of(lines.begin(), lines.end(),
                            [&](const std::string& l) { return absl::StartsWith(l, want); }))
        << "no line starting with '" << want << "' in:\n"
        << out;
  }
  EXPECT_THAT(out, HasSubstr("srun exit 0"));

  const std::map<std::string, std::string> env =
      ParseEnv(ReadFile(absl::StrCat(work_, "/batch-env-", id, ".txt")));
  EXPECT_EQ(env.at("SLURM_JOB_ID"), absl::StrCat(id));
  EXPECT_EQ(env.at("SLURM_JOBID"), absl::StrCat(id));
  EXPECT_EQ(env.at("SLURM_JOB_NAME"), "ranks");
  EXPECT_EQ(env.at("SLURM_JOB_NODELIST"), "gpu[1-4]");
  EXPECT_EQ(env.at("SLURM_NODELIST"), "gpu[1-4]");
  EXPECT_EQ(env.at("SLURM_JOB_NUM_NODES"), "4");
  EXPECT_EQ(env.at("SLURM_NNODES"), "4");
  EXPECT_EQ(env.at("SLURM_NTASKS"), "8");
  EXPECT_EQ(env.at("SLURM_NTASKS_PER_NODE"), "2");
  EXPECT_EQ(env.at("SLURM_JOB_PARTITION"), "gpu");
  EXPECT_EQ(env.at("SLURM_CLUSTER_NAME"), "itjobs");
  EXPECT_EQ(env.at("SLURM_SUBMIT_DIR"), work_);
  EXPECT_FALSE(env.contains("SLURM_RESTART_COUNT"));  // a first run has none, as in Slurm
  EXPECT_EQ(env.at("SLURM_GTIDS"), "0");
  EXPECT_EQ(env.at("SLURM_JOB_QOS"), "normal");
  EXPECT_EQ(env.at("SLURM_GPUS_PER_NODE"), "2");  // what sbatch itself adds (job_variables.h)
  EXPECT_TRUE(env.contains("SLURM_PRIO_PROCESS"));
  EXPECT_TRUE(env.contains("SLURM_TASK_PID"));  // the script's own pid (`env`'s parent)
  EXPECT_EQ(env.at("SLURMD_NODENAME"), "gpu1");
  EXPECT_EQ(env.at("SLURM_TOPOLOGY_ADDR"), "spine.leaf1.gpu1");
  EXPECT_EQ(env.at("SLURM_TOPOLOGY_ADDR_PATTERN"), "switch.switch.node");
  EXPECT_EQ(env.at("SLURM_GPUS_ON_NODE"), "2");
  EXPECT_EQ(env.at("CUDA_VISIBLE_DEVICES"), "0,1");
  EXPECT_EQ(env.at("SLURM_JOB_UID"), absl::StrCat(getuid()));
  EXPECT_TRUE(env.contains("SLURM_JOB_USER"));
  EXPECT_TRUE(env.contains("SLURM_SUBMIT_HOST"));
  EXPECT_TRUE(env.contains("SLURM_CPUS_ON_NODE"));
}

TEST_F(JobsTest, ExitCodesOutputPatternsAndWorkingDirectory) {
  std::filesystem::create_directories(work_ + "/sub");
  const uint32_t ok = Sbatch({"-J", "pat", "-D", "sub", "-o", "%x-%j.out", "-e", "%x-%j.err",
                              "--wrap", "pwd; echo to-stderr >&2"});
  const uint32_t bad = Sbatch({"-o", "fail-%j.out", "--wrap", "exit 3"});
  ASSERT_TRUE(WaitForState(ok, canopy::v1::JOB_STATE_COMPLETED, absl::Seconds(30)))
      << Diagnostics(ok);
  ASSERT_TRUE(WaitForState(bad, canopy::v1::JOB_STATE_FAILED, absl::Seconds(30)))
      << Diagnostics(bad);
  EXPECT_EQ(GetJob(bad).exit_code(), 3);
  EXPECT_EQ(GetJob(bad).exit_signal(), 0);
  EXPECT_EQ(absl::StripAsciiWhitespace(ReadFile(absl::StrCat(work_, "/sub/pat-", ok, ".out"))),
            work_ + "/sub");
  EXPECT_EQ(absl::StripAsciiWhitespace(ReadFile(absl::StrCat(work_, "/sub/pat-", ok, ".err"))),
            "to-stderr");

  // A finished job is still in the controller (MinJobAge): squeue -j lists it only with -t, as
  // Slurm's does, so that a loop polling `squeue -h -j ID` ends with the job.
  CommandResult q = cluster_.FrontEnd("squeue", {"-h", "-j", absl::StrCat(bad)});
  EXPECT_EQ(q.exit_code, 0) << q.err;
  EXPECT_EQ(q.out, "");
  q = cluster_.FrontEnd("squeue",
                        {"-h", "-t", "all", "-j", absl::StrCat(bad), "-o", "%i %T %t %D %j"});
  EXPECT_EQ(absl::StripAsciiWhitespace(q.out), absl::StrCat(bad, " FAILED F 1 wrap")) << q.err;

  // SLURM_TIME_FORMAT reaches every command's timestamps, as in Slurm: seconds since the epoch
  // (what scripts that do arithmetic on times ask for), and an invalid value is named once on
  // stderr while the standard format is printed.
  const std::string submitted = absl::StrCat(GetJob(bad).submit_time().seconds());
  cluster_.SetFrontEndVariable("SLURM_TIME_FORMAT", "%s");
  q = cluster_.FrontEnd("squeue", {"-h", "-t", "all", "-j", absl::StrCat(bad), "-o", "%V"});
  EXPECT_EQ(q.out, submitted + "\n") << q.err;
  q = cluster_.FrontEnd("scontrol", {"show", "job", absl::StrCat(bad)});
  EXPECT_THAT(q.out, HasSubstr(" SubmitTime=" + submitted + " ")) << q.err;
  cluster_.SetFrontEndVariable("SLURM_TIME_FORMAT", "bogus");
  q = cluster_.FrontEnd("squeue", {"-h", "-t", "all", "-j", absl::StrCat(bad), "-o", "%V"});
  EXPECT_EQ(q.err, "squeue: error: invalid SLURM_TIME_FORMAT = 'bogus'\n");
  EXPECT_THAT(q.out, ::testing::MatchesRegex("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}\n"));
  cluster_.SetFrontEndVariable("SLURM_TIME_FORMAT", "standard");
}

TEST_F(JobsTest, TimeLimitSendsTermThenKill) {
  // Through the API: sbatch's --time has minute granularity, too slow for a test.
  canopy::v1::SubmitJobRequest req;
  canopy::v1::JobSpec* spec = req.mutable_spec();
  spec->set_name("limit");
  spec->set_script(
      "#!/bin/sh\ntrap 'echo got-TERM; sleep 30' TERM\necho started\nwhile :; do sleep 1; done\n");
  spec->set_work_dir(work_);
  spec->set_submit_dir(work_);
  spec->set_stdout_path("limit-%j.out");
  *spec->mutable_time_limit() = rpc::ToProtoDuration(absl::Seconds(3));
  absl::StatusOr<canopy::v1::SubmitJobResponse> r = Client().SubmitJob(req);
  ASSERT_TRUE(r.ok()) << r.status();
  const uint32_t id = r->job_id();
  ASSERT_TRUE(WaitForState(id, canopy::v1::JOB_STATE_TIMEOUT, absl::Seconds(30)))
      << Diagnostics(id);
  const std::string out = ReadFile(absl::StrCat(work_, "/limit-", id, ".out"));
  EXPECT_THAT(out, HasSubstr("started"));
  EXPECT_THAT(out, HasSubstr("got-TERM"));  // SIGTERM first; SIGKILL after KillWait (2 s)
  EXPECT_EQ(GetJob(id).exit_signal(), SIGKILL) << Diagnostics(id);
}

TEST_F(JobsTest, ScancelKillsEveryProcessOfTheJob) {
  const uint32_t id = Sbatch({"-o", "cancel.out", "--wrap",
                              "sleep 1000 & echo $! > child.pid; echo $$ > shell.pid; wait"});
  ASSERT_TRUE(WaitForState(id, canopy::v1::JOB_STATE_RUNNING, absl::Seconds(30)))
      << Diagnostics(id);
  ASSERT_TRUE(
      WaitUntil([&] { return std::filesystem::exists(work_ + "/child.pid"); }, absl::Seconds(10)));
  absl::SleepFor(absl::Milliseconds(200));
  int child = 0;
  ASSERT_TRUE(absl::SimpleAtoi(absl::StripAsciiWhitespace(ReadFile(work_ + "/child.pid")), &child));
  const CommandResult c = cluster_.FrontEnd("scancel", {absl::StrCat(id)});
  EXPECT_EQ(c.exit_code, 0) << c.out << c.err;
  ASSERT_TRUE(WaitForState(id, canopy::v1::JOB_STATE_CANCELLED, absl::Seconds(30)))
      << Diagnostics(id);
  EXPECT_TRUE(WaitUntil([&] { return !Alive(child); }, absl::Seconds(5)))
      << "the job's background sleep " << child << " survived";

  // Cancelling it again, or an unknown job, is quiet and exits 0 as in Slurm; -v says why.
  const CommandResult again = cluster_.FrontEnd("scancel", {"-v", absl::StrCat(id)});
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_THAT(again.err, HasSubstr("already completing or completed"));
  const CommandResult unknown = cluster_.FrontEnd("scancel", {"-v", "4242"});
  EXPECT_THAT(unknown.err, HasSubstr("Invalid job id specified"));
}

TEST_F(JobsTest, QueuedJobSurvivesKillNineOfTheController) {
  // Ask for more GPUs per node than are free while another job holds the cluster.
  const uint32_t blocker =
      Sbatch({"-N", "4", "--exclusive", "-o", "/dev/null", "--wrap", "sleep 1000"});
  ASSERT_TRUE(WaitForState(blocker, canopy::v1::JOB_STATE_RUNNING, absl::Seconds(30)))
      << Diagnostics(blocker);
  const uint32_t queued =
      Sbatch({"-J", "survivor", "-o", "survivor-%j.out", "--wrap", "echo survived"});
  ASSERT_TRUE(WaitForState(queued, canopy::v1::JOB_STATE_PENDING, absl::Seconds(10)));

  cluster_.CrashController();
  ASSERT_TRUE(cluster_.StartController().ok()) << cluster_.ControllerLog();
  canopy::v1::Job job = GetJob(queued);
  EXPECT_EQ(job.state(), canopy::v1::JOB_STATE_PENDING) << Diagnostics(queued);
  EXPECT_EQ(job.spec().name(), "survivor");
  // The running blocker is still known and still holds its nodes once the agent reconnects.
  EXPECT_EQ(GetJob(blocker).state(), canopy::v1::JOB_STATE_RUNNING) << Diagnostics(blocker);

  const CommandResult c = cluster_.FrontEnd("scancel", {absl::StrCat(blocker)});
  EXPECT_EQ(c.exit_code, 0) << c.out << c.err;
  ASSERT_TRUE(WaitForState(queued, canopy::v1::JOB_STATE_COMPLETED, absl::Seconds(60)))
      << Diagnostics(queued);
  EXPECT_EQ(absl::StripAsciiWhitespace(ReadFile(absl::StrCat(work_, "/survivor-", queued, ".out"))),
            "survived");
  // A new job gets a fresh id: the counter was durable too.
  const uint32_t next = Sbatch({"-o", "/dev/null", "--wrap", "true"});
  EXPECT_GT(next, queued);
}

TEST_F(JobsTest, LostNodeRequeuesTheJobAndItRunsAgainWhenTheNodeReturns) {
  const uint32_t id = Sbatch({"-o", "requeue.out", "--wrap",
                              "echo run ${SLURM_RESTART_COUNT:-0} >> runs.txt; echo $$ > run.pid; "
                              "exec sleep 1000"});
  ASSERT_TRUE(WaitForState(id, canopy::v1::JOB_STATE_RUNNING, absl::Seconds(30)))
      << Diagnostics(id);
  ASSERT_TRUE(WaitUntil([&] { return ReadPid("run.pid") > 0; }, absl::Seconds(10)));
  const int first_run = ReadPid("run.pid");

  // The node's agent dies (kill -9): after node_timeout (5 s) the node is DOWN and the job is
  // requeued. Its process outlives the agent, as on a real node whose slurmd died; the restarted
  // agent kills it (through the dead agent's cgroup) where cgroups are available.
  cluster_.KillAgent();
  ASSERT_TRUE(WaitUntil([&] { return GetJob(id).restart_count() == 1; }, absl::Seconds(30)))
      << Diagnostics(id);
  EXPECT_EQ(GetJob(id).state(), canopy::v1::JOB_STATE_PENDING);
  EXPECT_THAT(GetJob(id).state_message(), HasSubstr("down"));
  ASSERT_TRUE(StartAgent(/*wait_idle=*/false));
  ASSERT_TRUE(WaitUntil([&] { return absl::StrContains(ReadFile(work_ + "/runs.txt"), "run 1"); },
                        absl::Seconds(30)))
      << Diagnostics(id);
  EXPECT_EQ(ReadFile(work_ + "/runs.txt"), "run 0\nrun 1\n");
  if (absl::StrContains(cluster_.AgentLog(), "job cgroups: under")) {
    EXPECT_TRUE(WaitUntil([&] { return !Alive(first_run); }, absl::Seconds(5)))
        << "the first run outlived the agent restart";
  }
  kill(first_run, SIGKILL);  // without cgroups nothing can find it; do not leak it
  // The script of run 1 writes runs.txt before the agent's LAUNCHED reaches canopyd: under TSan
  // the job was still CONFIGURING here (2026-12-06), so wait for RUNNING rather than expect it.
  EXPECT_TRUE(WaitForState(id, canopy::v1::JOB_STATE_RUNNING, absl::Seconds(30)))
      << Diagnostics(id);
  EXPECT_EQ(cluster_.FrontEnd("scancel", {absl::StrCat(id)}).exit_code, 0);
  EXPECT_TRUE(WaitForState(id, canopy::v1::JOB_STATE_CANCELLED, absl::Seconds(30)));
}

TEST_F(JobsTest, BrokenGpuRequeuesTheJobOntoAnotherNode) {
  const uint32_t id = Sbatch({"--gpus-per-node=4", "-o", "gpu.out", "--wrap",
                              "echo $SLURMD_NODENAME >> hosts.txt; exec sleep 1000"});
  ASSERT_TRUE(WaitForState(id, canopy::v1::JOB_STATE_RUNNING, absl::Seconds(30)))
      << Diagnostics(id);
  const std::string first = GetJob(id).nodes(0);
  // Inject an XID on one of its GPUs through the fake provider's faults file.
  std::ofstream(cluster_.dir() + "/faults") << first << " 2 XID 79: GPU has fallen off the bus\n";
  ASSERT_TRUE(WaitUntil(
      [&] {
        const canopy::v1::Job job = GetJob(id);
        return job.restart_count() == 1 && job.state() == canopy::v1::JOB_STATE_RUNNING;
      },
      absl::Seconds(30)))
      << Diagnostics(id);
  EXPECT_NE(GetJob(id).nodes(0), first);
  EXPECT_THAT(GetJob(id).state_message(), HasSubstr("GPU"));
  // The old run was killed on the node with the broken GPU; the new one runs elsewhere.
  EXPECT_TRUE(WaitUntil(
      [&] {
        std::vector<std::string> hosts =
            absl::StrSplit(ReadFile(work_ + "/hosts.txt"), '\n', absl::SkipEmpty());
        return hosts.size() == 2 && hosts[0] == first && hosts[1] != first;
      },
      absl::Seconds(10)));
  const CommandResult topo = cluster_.Canopyctl({"topology"});
  EXPECT_THAT(topo.out, HasSubstr(absl::StrCat("jobs ", id))) << topo.out;
  EXPECT_EQ(cluster_.FrontEnd("scancel", {absl::StrCat(id)}).exit_code, 0);
  EXPECT_TRUE(WaitForState(id, canopy::v1::JOB_STATE_CANCELLED, absl::Seconds(30)));
}

TEST_F(JobsTest, SrunOutsideAnAllocationReturnsTheHighestTaskExitCode) {
  const CommandResult r = cluster_.FrontEndIn(
      "srun",
      {"-N", "2", "-n", "3", "-l", "sh", "-c", "echo hi from $SLURM_PROCID; exit $SLURM_PROCID"},
      work_);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("0: hi from 0"));
  EXPECT_THAT(r.out, HasSubstr("1: hi from 1"));
  EXPECT_THAT(r.out, HasSubstr("2: hi from 2"));
  EXPECT_THAT(r.err, HasSubstr("Exited with exit code 2"));
  // The nodes were free: the allocation started at once, and srun says nothing of it, as
  // Slurm's (a script capturing `srun ... 2>&1` gets only the tasks' output).
  EXPECT_THAT(r.err, Not(HasSubstr("queued and waiting")));
  EXPECT_THAT(r.err, Not(HasSubstr("allocated resources")));
  // The allocation srun made for itself ended with the step, as FAILED (exit 2).
  canopy::v1::ListJobsRequest list;
  absl::StatusOr<canopy::v1::ListJobsResponse> jobs = Client().ListJobs(list);
  ASSERT_TRUE(jobs.ok());
  ASSERT_EQ(jobs->jobs_size(), 1);
  EXPECT_TRUE(
      WaitForState(jobs->jobs(0).job_id(), canopy::v1::JOB_STATE_FAILED, absl::Seconds(10)));
  EXPECT_EQ(GetJob(jobs->jobs(0).job_id()).exit_code(), 2);
  EXPECT_EQ(GetJob(jobs->jobs(0).job_id()).nodes_size(), 2);
}

TEST_F(JobsTest, KillingSrunKillsItsStep) {
  const uint32_t alloc = Sbatch({"-N", "2", "-o", "/dev/null", "--wrap", "sleep 1000"});
  ASSERT_TRUE(WaitForState(alloc, canopy::v1::JOB_STATE_RUNNING, absl::Seconds(30)));
  absl::StatusOr<Subprocess> srun = Subprocess::Start(
      {"/bin/sh", "-c",
       absl::StrCat("cd ", work_, " && exec ", CANOPYCTL_DIR, "/srun --jobid ", alloc,
                    " -N 2 sh -c 'echo $$ > task-$SLURM_PROCID.pid; exec sleep 1000'")},
      {{"CANOPY_CONTROLLER", cluster_.socket_target()}}, cluster_.dir() + "/srun.log");
  ASSERT_TRUE(srun.ok());
  ASSERT_TRUE(WaitUntil([&] { return ReadPid("task-0.pid") > 0 && ReadPid("task-1.pid") > 0; },
                        absl::Seconds(20)))
      << ReadFile(cluster_.dir() + "/srun.log") << Diagnostics(alloc);
  const int task0 = ReadPid("task-0.pid");
  const int task1 = ReadPid("task-1.pid");
  // A list that asks for the steps alone gets them (found by the job, not by the record's id).
  canopy::v1::ListJobsRequest steps_only;
  steps_only.add_job_ids(alloc);
  steps_only.mutable_read_mask()->add_paths("steps");
  absl::StatusOr<canopy::v1::ListJobsResponse> listed = Client().ListJobs(steps_only);
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_EQ(listed->jobs_size(), 1);
  EXPECT_EQ(listed->jobs(0).job_id(), 0u);
  ASSERT_EQ(listed->jobs(0).steps_size(), 1);
  EXPECT_EQ(listed->jobs(0).steps(0).nodes_size(), 2);
  srun->Kill();  // kill -9: srun cannot even say goodbye
  EXPECT_TRUE(WaitUntil([&] { return !Alive(task0) && !Alive(task1); }, absl::Seconds(15)))
      << "step tasks outlived srun";
  // The job itself goes on.
  EXPECT_EQ(GetJob(alloc).state(), canopy::v1::JOB_STATE_RUNNING);
  EXPECT_EQ(cluster_.FrontEnd("scancel", {absl::StrCat(alloc)}).exit_code, 0);
}

TEST_F(JobsTest, JobsRunAsTheSubmitterAndOnlyTheOwnerMayCancel) {
  if (geteuid() != 0) {
    GTEST_SKIP() << "submitting as another user needs root";
  }
  // Let other users reach the controller's socket and the agent's spool, as on a real head node.
  chmod(cluster_.dir().c_str(), 0755);
  chmod((cluster_.dir() + "/state").c_str(), 0755);
  const std::string home = cluster_.dir() + "/nobody";
  std::filesystem::create_directories(home);
  chmod(home.c_str(), 0777);
  // Runs a front end as uid/gid `id` (no supplementary groups) in `home`.
  auto as_user = [&](int id, const std::string& command) {
    return RunCommand(
        {"/usr/bin/setpriv", absl::StrCat("--reuid=", id), absl::StrCat("--regid=", id),
         "--clear-groups", "/bin/sh", "-c", absl::StrCat("cd ", home, " && ", command)},
        {{"CANOPY_CONTROLLER", cluster_.socket_target()},
         {"PATH", absl::StrCat(CANOPYCTL_DIR, ":/usr/bin:/bin")}});
  };
  const CommandResult submitted =
      as_user(65534, "sbatch --parsable -o id.out --wrap 'id -u; id -g; exec sleep 1000'");
  uint32_t id = 0;
  ASSERT_TRUE(absl::SimpleAtoi(absl::StripAsciiWhitespace(submitted.out), &id))
      << submitted.out << submitted.err;
  ASSERT_TRUE(WaitForState(id, canopy::v1::JOB_STATE_RUNNING, absl::Seconds(30)))
      << Diagnostics(id);
  EXPECT_EQ(GetJob(id).user_name(), "nobody");
  EXPECT_EQ(GetJob(id).user_id(), 65534u);
  // Both lines: the script writes them one `id` after the other.
  ASSERT_TRUE(WaitUntil(
      [&] {
        const std::string written = ReadFile(home + "/id.out");
        return std::count(written.begin(), written.end(), '\n') >= 2;
      },
      absl::Seconds(10)))
      << ReadFile(home + "/id.out");
  EXPECT_EQ(ReadFile(home + "/id.out"), "65534\n65534\n");  // never as root

  // Another user may neither cancel the job nor drain a node.
  const CommandResult other = as_user(1, absl::StrCat("scancel -v ", id));
  EXPECT_THAT(other.err, HasSubstr("Access/permission denied")) << other.out;
  EXPECT_EQ(GetJob(id).state(), canopy::v1::JOB_STATE_RUNNING);
  const CommandResult drain = as_user(1, "scontrol update nodename=gpu1 state=drain reason=x");
  EXPECT_NE(drain.exit_code, 0);
  EXPECT_THAT(drain.err, HasSubstr("not an operator")) << drain.out;
  // Refused before canopyd reads the hostlist at all (it used to expand it first).
  const CommandResult bad_list =
      as_user(1, "scontrol update nodename='gpu[1-' state=drain reason=x");
  EXPECT_THAT(bad_list.err, HasSubstr("not an operator")) << bad_list.out;

  // The owner may.
  const CommandResult own = as_user(65534, absl::StrCat("scancel ", id));
  EXPECT_EQ(own.exit_code, 0) << own.err;
  EXPECT_TRUE(WaitForState(id, canopy::v1::JOB_STATE_CANCELLED, absl::Seconds(30)));
}

// A job's script and environment may hold secrets: an anonymous caller (TCP) gets the job
// without them; its owner (unix socket, SO_PEERCRED) gets them whole.
TEST_F(JobsTest, ScriptAndEnvironmentOnlyForTheOwnerAndOperators) {
  const uint32_t id = Sbatch({"-H", "-o", "/dev/null", "--export=ALL,API_TOKEN=s3cret", "--wrap",
                              "echo s3cret-in-script"});
  const canopy::v1::Job mine = GetJob(id);
  EXPECT_THAT(mine.spec().script(), HasSubstr("s3cret-in-script"));
  EXPECT_EQ(mine.spec().environment().at("API_TOKEN"), "s3cret");
  absl::StatusOr<ctl::client::ControllerClient> anonymous =
      ctl::client::ControllerClient::Connect(cluster_.address());
  ASSERT_TRUE(anonymous.ok()) << anonymous.status();
  absl::StatusOr<canopy::v1::Job> seen = anonymous->GetJob(id);
  ASSERT_TRUE(seen.ok()) << seen.status();
  EXPECT_EQ(seen->spec().script(), "");
  EXPECT_TRUE(seen->spec().environment().empty());
  EXPECT_EQ(seen->spec().name(), mine.spec().name());  // the rest is there
  absl::StatusOr<canopy::v1::ListJobsResponse> listed = anonymous->ListJobs({});
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_EQ(listed->jobs_size(), 1);
  EXPECT_EQ(listed->jobs(0).spec().script(), "");
  EXPECT_TRUE(listed->jobs(0).spec().environment().empty());
  EXPECT_EQ(cluster_.FrontEnd("scancel", {absl::StrCat(id)}).exit_code, 0);
}

// An array's pending tasks come as one record when the list asks
// (ListJobsRequest.fold_pending_array_tasks), and squeue, which asks, prints the same row.
TEST_F(JobsTest, PendingArrayTasksFoldIntoOneRecordWhenTheListAsks) {
  const uint32_t array =
      Sbatch({"-H", "-J", "folded", "--array=1-5", "-o", "/dev/null", "--wrap", "true"});
  const uint32_t single = Sbatch({"-H", "-J", "single", "-o", "/dev/null", "--wrap", "true"});
  canopy::v1::ListJobsRequest list;
  list.add_states(canopy::v1::JOB_STATE_PENDING);
  for (const char* path : {"job_id", "array_job_id", "array_task_id"}) {
    list.mutable_read_mask()->add_paths(path);
  }
  absl::StatusOr<canopy::v1::ListJobsResponse> unfolded = Client().ListJobs(list);
  ASSERT_TRUE(unfolded.ok()) << unfolded.status();
  EXPECT_EQ(unfolded->jobs_size(), 6);
  EXPECT_TRUE(unfolded->pending_arrays().empty());

  list.set_fold_pending_array_tasks(true);
  absl::StatusOr<canopy::v1::ListJobsResponse> folded = Client().ListJobs(list);
  ASSERT_TRUE(folded.ok()) << folded.status();
  ASSERT_EQ(folded->jobs_size(), 2) << folded->DebugString();
  EXPECT_EQ(folded->jobs(0).array_job_id(), array);
  EXPECT_EQ(folded->jobs(0).array_task_id(), 1u);
  EXPECT_EQ(folded->jobs(1).job_id(), single);
  ASSERT_EQ(folded->pending_arrays_size(), 1);
  EXPECT_EQ(folded->pending_arrays(0).array_job_id(), array);
  EXPECT_THAT(folded->pending_arrays(0).task_ids(), ::testing::ElementsAre(1, 2, 3, 4, 5));

  // Asked for by id, only the tasks asked for are folded: task 3 alone (looked up, no walk) is
  // its own record standing for itself.
  const uint32_t task3 = unfolded->jobs(2).job_id();
  ASSERT_EQ(unfolded->jobs(2).array_task_id(), 3u);
  list.add_job_ids(task3);
  folded = Client().ListJobs(list);
  ASSERT_TRUE(folded.ok()) << folded.status();
  ASSERT_EQ(folded->jobs_size(), 1);
  EXPECT_EQ(folded->jobs(0).job_id(), task3);
  ASSERT_EQ(folded->pending_arrays_size(), 1);
  EXPECT_THAT(folded->pending_arrays(0).task_ids(), ::testing::ElementsAre(3));

  const CommandResult squeue = cluster_.FrontEnd("squeue", {"-h", "-S", "i", "-o", "%i %j"});
  EXPECT_EQ(squeue.exit_code, 0) << squeue.err;
  EXPECT_EQ(squeue.out, absl::StrCat(array, "_[1-5] folded\n", single, " single\n"));
  EXPECT_EQ(cluster_.FrontEnd("scancel", {absl::StrCat(array), absl::StrCat(single)}).exit_code, 0);
}

// A list for a screen or a poll asks for the fields it shows (ListJobsRequest.read_mask).
TEST_F(JobsTest, AReadMaskFillsOnlyTheFieldsItNamesAndAnUnknownPathIsRefused) {
  const uint32_t id = Sbatch({"-H", "-J", "masked", "-N", "2", "-o", "/dev/null",
                              "--export=ALL,"
                              "API_TOKEN=s3cret",
                              "--wrap", "echo s3cret-in-script"});
  canopy::v1::ListJobsRequest list;
  list.add_job_ids(id);
  for (const char* path : {"job_id", "state", "reason"}) {
    list.mutable_read_mask()->add_paths(path);
  }
  absl::StatusOr<canopy::v1::ListJobsResponse> jobs = Client().ListJobs(list);
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->jobs_size(), 1);
  canopy::v1::Job want;
  want.set_job_id(id);
  want.set_state(canopy::v1::JOB_STATE_PENDING);
  want.set_reason("JobHeldUser");
  EXPECT_EQ(jobs->jobs(0).DebugString(), want.DebugString()) << "nothing else, no spec";
  EXPECT_TRUE(jobs->has_server_time());

  list.mutable_read_mask()->add_paths("spec.name");
  list.mutable_read_mask()->add_paths("spec.min_nodes");
  jobs = Client().ListJobs(list);
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->jobs_size(), 1);
  EXPECT_EQ(jobs->jobs(0).spec().name(), "masked");
  EXPECT_EQ(jobs->jobs(0).spec().min_nodes(), 2);
  EXPECT_EQ(jobs->jobs(0).spec().script(), "");
  EXPECT_TRUE(jobs->jobs(0).spec().environment().empty());
  EXPECT_FALSE(jobs->jobs(0).has_submit_time());

  // Naming the script does not show it to whoever may not read it.
  absl::StatusOr<ctl::client::ControllerClient> anonymous =
      ctl::client::ControllerClient::Connect(cluster_.address());
  ASSERT_TRUE(anonymous.ok()) << anonymous.status();
  list.mutable_read_mask()->add_paths("spec.script");
  list.mutable_read_mask()->add_paths("spec.environment");
  jobs = anonymous->ListJobs(list);
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->jobs_size(), 1);
  EXPECT_EQ(jobs->jobs(0).spec().script(), "");
  EXPECT_TRUE(jobs->jobs(0).spec().environment().empty());

  list.mutable_read_mask()->add_paths("spec.nmae");
  jobs = Client().ListJobs(list);
  ASSERT_FALSE(jobs.ok());
  EXPECT_EQ(jobs.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(jobs.status().message(), HasSubstr("'spec.nmae' is not a field of canopy.v1.Job"));
  EXPECT_EQ(cluster_.FrontEnd("scancel", {absl::StrCat(id)}).exit_code, 0);
}

TEST_F(JobsTest, SignalsBeforeTheLimitAndOnRequest) {
  // --signal=B:USR1@2 with a 4 s limit (through the API: sbatch's --time counts minutes), and
  // scancel --signal=USR2 while it runs.
  canopy::v1::SubmitJobRequest req;
  canopy::v1::JobSpec* spec = req.mutable_spec();
  spec->set_script(
      "#!/bin/sh\ntrap 'echo got-USR1' USR1\ntrap 'echo got-USR2' USR2\n"
      "echo started\nwhile :; do sleep 0.2; done\n");
  spec->set_work_dir(work_);
  spec->set_stdout_path("signals.out");
  *spec->mutable_time_limit() = rpc::ToProtoDuration(absl::Seconds(4));
  spec->set_warn_signal(SIGUSR1);
  *spec->mutable_warn_time() = rpc::ToProtoDuration(absl::Seconds(2));
  spec->set_warn_batch_only(true);
  absl::StatusOr<canopy::v1::SubmitJobResponse> r = Client().SubmitJob(req);
  ASSERT_TRUE(r.ok()) << r.status();
  const uint32_t id = r->job_id();
  ASSERT_TRUE(
      WaitUntil([&] { return absl::StrContains(ReadFile(work_ + "/signals.out"), "started"); },
                absl::Seconds(10)));
  const CommandResult c = cluster_.FrontEnd("scancel", {"--signal=USR2", absl::StrCat(id)});
  EXPECT_EQ(c.exit_code, 0) << c.err;
  ASSERT_TRUE(WaitForState(id, canopy::v1::JOB_STATE_TIMEOUT, absl::Seconds(30)))
      << Diagnostics(id);
  const std::string out = ReadFile(work_ + "/signals.out");
  EXPECT_THAT(out, HasSubstr("got-USR2"));
  EXPECT_THAT(out, HasSubstr("got-USR1"));
  EXPECT_LT(out.find("got-USR2"), out.find("got-USR1")) << out;
}

}  // namespace
}  // namespace canopy::testing
