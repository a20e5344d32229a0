// Issue #14: Prolog, Epilog, TaskProlog, TaskEpilog and PrologFlags=Alloc on a real canopyd and
// canopy-agent (two virtual nodes), as Slurm's slurmd runs them: when, with which environment,
// and what a failure does (the node drained with Slurm's reason, the job requeued held).
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/local_cluster.h"

namespace canopy::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kConfig[] = R"(
cluster_name: itscripts
node_timeout: 5s
heartbeat_interval: 500ms
kill_wait: 2s
nodes:
  - names: gpu[1-2]
    cpus: 4
    memory_mib: 8000
partitions:
  - name: gpu
    nodes: ALL
    default: true
)";

// Writes an executable shell script.
void WriteScript(const std::string& path, const std::string& body) {
  std::ofstream(path) << "#!/bin/sh\n" << body;
  chmod(path.c_str(), 0755);
}

class NodeScriptsTest : public ::testing::Test {
 protected:
  // `settings`: YAML lines added to the config (prolog:, epilog:, prolog_flags: ...), with DIR
  // standing for the test's directory.
  void Start(std::string settings) {
    dir_ = std::filesystem::temp_directory_path() /
           absl::StrCat("canopy-scripts-", getpid(), "-", ++instance_);
    std::filesystem::create_directories(dir_);
    chmod(dir_.c_str(), 0777);
    // Each script records its environment as <what>.<node>.<job>.
    WriteScript(dir_ + "/prolog.sh", "env > " + dir_ +
                                         "/prolog.$SLURMD_NODENAME.$SLURM_JOB_ID\n"
                                         "[ \"$SLURM_JOB_COMMENT\" != hangprolog ] || "
                                         "exec sleep 300\n"
                                         "[ \"$SLURM_JOB_COMMENT\" != failprolog ]\n");
    WriteScript(dir_ + "/epilog.sh", "env > " + dir_ +
                                         "/epilog.$SLURMD_NODENAME.$SLURM_JOB_ID\n"
                                         "[ \"$SLURM_JOB_COMMENT\" != failepilog ]\n");
    WriteScript(dir_ + "/task_prolog.sh",
                "echo export FROM_TASK_PROLOG=$SLURM_SCRIPT_CONTEXT\n"
                "echo print task prolog says hi\n"
                "echo unset DROP_ME\n");
    WriteScript(dir_ + "/task_epilog.sh", "echo \"$SLURM_SCRIPT_CONTEXT $(id -u)\" > " + dir_ +
                                              "/task_epilog.$SLURM_JOB_ID.$SLURM_PROCID\n");
    for (size_t at; (at = settings.find("DIR")) != std::string::npos;) {
      settings.replace(at, 3, dir_);
    }
    cluster_.emplace(absl::StrCat(kConfig, settings));
    ASSERT_TRUE(cluster_->StartController().ok()) << cluster_->ControllerLog();
    // A spool of its own: /var/spool/canopy is shared by every test running as root.
    ASSERT_TRUE(cluster_->StartAgent("gpu[1-2]", {"--spool_dir", cluster_->dir() + "/spool"}).ok());
    ASSERT_TRUE(WaitUntil(
        [&] {
          return cluster_->FrontEnd("sinfo", {"-h", "-t", "idle", "-o", "%D"}).out == "2\n";
        },
        absl::Seconds(20)))
        << cluster_->AgentLog();
  }

  void TearDown() override {
    cluster_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  // sbatch in the test directory; the job's id (0 if the submission failed).
  uint32_t Submit(const std::string& args) {
    const CommandResult r =
        RunCommand({"/bin/sh", "-c", absl::StrCat("cd ", dir_, " && sbatch --parsable ", args)},
                   {{"CANOPY_CONTROLLER", cluster_->socket_target()},
                    {"PATH", absl::StrCat(CANOPYCTL_DIR, ":/usr/bin:/bin")}});
    uint32_t id = 0;
    (void)absl::SimpleAtoi(absl::StripAsciiWhitespace(r.out), &id);
    EXPECT_NE(id, 0u) << r.out << r.err;
    return id;
  }

  std::string Field(const std::string& format, uint32_t job) {
    return std::string(absl::StripAsciiWhitespace(
        cluster_->FrontEnd("squeue", {"-h", "-t", "all", "-j", absl::StrCat(job), "-o", format})
            .out));
  }

  bool WaitForState(uint32_t job, const std::string& state) {
    return WaitUntil([&] { return Field("%T", job) == state; }, absl::Seconds(30));
  }

  std::string Recorded(const std::string& what, const std::string& node, uint32_t job) {
    return ReadFile(absl::StrCat(dir_, "/", what, ".", node, ".", job));
  }

  static inline int instance_ = 0;
  std::string dir_;
  std::optional<LocalCluster> cluster_;
};

// Without PrologFlags=Alloc: the batch host runs the prolog before the script, another node
// only at its first step; every node runs the epilog at the end. Both get slurmd's environment.
TEST_F(NodeScriptsTest, PrologAtFirstUseEpilogEverywhere) {
  Start("prolog: DIR/prolog.sh\nepilog: DIR/epilog.sh\n");
  const uint32_t quiet = Submit("-N2 -o /dev/null --wrap true");
  ASSERT_TRUE(WaitForState(quiet, "COMPLETED")) << cluster_->AgentLog();
  EXPECT_NE(Recorded("prolog", "gpu1", quiet), "");
  EXPECT_EQ(Recorded("prolog", "gpu2", quiet), "");  // no step ran there
  ASSERT_TRUE(
      WaitUntil([&] { return !Recorded("epilog", "gpu2", quiet).empty(); }, absl::Seconds(10)));
  EXPECT_NE(Recorded("epilog", "gpu1", quiet), "");

  const uint32_t stepped = Submit("-N2 -o /dev/null --comment=hello --wrap 'srun -N2 true'");
  ASSERT_TRUE(WaitForState(stepped, "COMPLETED")) << cluster_->AgentLog();
  const std::string env = Recorded("prolog", "gpu2", stepped);
  EXPECT_THAT(env, HasSubstr("SLURM_SCRIPT_CONTEXT=prolog_slurmd\n"));
  EXPECT_THAT(env, HasSubstr(absl::StrCat("SLURM_JOB_ID=", stepped, "\n")));
  EXPECT_THAT(env, HasSubstr("SLURMD_NODENAME=gpu2\n"));
  EXPECT_THAT(env, HasSubstr("SLURM_NODELIST=gpu[1-2]\n"));
  EXPECT_THAT(env, HasSubstr("SLURM_JOB_PARTITION=gpu\n"));
  EXPECT_THAT(env, HasSubstr("SLURM_JOB_COMMENT=hello\n"));
  EXPECT_THAT(env, HasSubstr(absl::StrCat("SLURM_JOB_UID=", getuid(), "\n")));
  EXPECT_THAT(env, HasSubstr("SLURM_CLUSTER_NAME=itscripts\n"));
  ASSERT_TRUE(
      WaitUntil([&] { return !Recorded("epilog", "gpu2", stepped).empty(); }, absl::Seconds(10)));
  EXPECT_THAT(Recorded("epilog", "gpu2", stepped), HasSubstr("SLURM_SCRIPT_CONTEXT=epilog_slurmd"));
}

// PrologFlags=Alloc: every node of the allocation runs the prolog at launch.
TEST_F(NodeScriptsTest, PrologFlagsAllocRunsItOnEveryNodeAtLaunch) {
  Start("prolog: DIR/prolog.sh\nprolog_flags: Alloc\n");
  const uint32_t id = Submit("-N2 -o /dev/null --wrap true");
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << cluster_->AgentLog();
  EXPECT_NE(Recorded("prolog", "gpu1", id), "");
  EXPECT_NE(Recorded("prolog", "gpu2", id), "");
}

// A failing prolog: the node is drained with Slurm's reason and the job goes back to the queue
// held; the script never ran; the node's epilog still ran for it, as slurmd runs it.
TEST_F(NodeScriptsTest, AFailingPrologDrainsTheNodeAndHoldsTheJob) {
  Start("prolog: DIR/prolog.sh\nepilog: DIR/epilog.sh\n");
  const uint32_t id = Submit("-N1 -w gpu1 --comment=failprolog -o ran.out --wrap 'echo ran'");
  ASSERT_TRUE(WaitUntil([&] { return Field("%T", id) == "PENDING"; }, absl::Seconds(30)))
      << cluster_->AgentLog() << cluster_->ControllerLog();
  ASSERT_TRUE(WaitUntil(
      [&] {
        return cluster_->FrontEnd("sinfo", {"-h", "-R", "-o", "%E|%N"}).out ==
               "Prolog error|gpu1\n";
      },
      absl::Seconds(10)))
      << cluster_->FrontEnd("sinfo", {"-R"}).out;
  EXPECT_THAT(Field("%r", id), HasSubstr("JobHeldUser"));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/ran.out"));
  EXPECT_THAT(cluster_->AgentLog(), HasSubstr("prolog failed status=1:0"));
  EXPECT_TRUE(
      WaitUntil([&] { return !Recorded("epilog", "gpu1", id).empty(); }, absl::Seconds(10)));
}

// PrologEpilogTimeout: a prolog still running after it is killed and fails as any failing
// prolog does.
TEST_F(NodeScriptsTest, APrologPastPrologEpilogTimeoutIsKilledAndFails) {
  Start("prolog: DIR/prolog.sh\nprolog_epilog_timeout: 1s\n");
  const uint32_t id = Submit("-N1 -w gpu2 --comment=hangprolog -o ran.out --wrap 'echo ran'");
  ASSERT_TRUE(WaitUntil(
      [&] {
        return cluster_->FrontEnd("sinfo", {"-h", "-R", "-o", "%E|%N"}).out ==
               "Prolog error|gpu2\n";
      },
      absl::Seconds(20)))
      << cluster_->AgentLog();
  EXPECT_TRUE(
      WaitUntil([&] { return Field("%T %r", id) == "PENDING JobHeldUser"; }, absl::Seconds(10)));
  EXPECT_THAT(cluster_->AgentLog(),
              HasSubstr("prolog still running after PrologEpilogTimeout (1s): killing it"));
  EXPECT_THAT(cluster_->AgentLog(), HasSubstr("prolog failed status=0:9"));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/ran.out"));
}

// A failing epilog drains the node ("Epilog error"); the job still completes as it ran.
TEST_F(NodeScriptsTest, AFailingEpilogDrainsTheNode) {
  Start("epilog: DIR/epilog.sh\n");
  const uint32_t id = Submit("-N1 -w gpu2 --comment=failepilog -o /dev/null --wrap true");
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << cluster_->AgentLog();
  EXPECT_TRUE(WaitUntil(
      [&] {
        return cluster_->FrontEnd("sinfo", {"-h", "-R", "-o", "%E|%N"}).out ==
               "Epilog error|gpu2\n";
      },
      absl::Seconds(10)))
      << cluster_->FrontEnd("sinfo", {"-R"}).out;
}

// TaskProlog's output changes the task's environment and prints; TaskEpilog runs after each
// task as the job's user.
TEST_F(NodeScriptsTest, TaskPrologAndTaskEpilog) {
  Start("task_prolog: DIR/task_prolog.sh\ntask_epilog: DIR/task_epilog.sh\n");
  const uint32_t id = Submit(
      "-N1 -o task.out --export=ALL,DROP_ME=1 "
      "--wrap 'echo \"var=$FROM_TASK_PROLOG drop=${DROP_ME:-gone}\"'");
  ASSERT_TRUE(WaitForState(id, "COMPLETED")) << cluster_->AgentLog();
  EXPECT_EQ(ReadFile(dir_ + "/task.out"), "task prolog says hi\nvar=prolog_task drop=gone\n");
  ASSERT_TRUE(
      WaitUntil([&] { return !ReadFile(absl::StrCat(dir_, "/task_epilog.", id, ".0")).empty(); },
                absl::Seconds(10)));
  EXPECT_EQ(ReadFile(absl::StrCat(dir_, "/task_epilog.", id, ".0")),
            absl::StrCat("epilog_task ", getuid(), "\n"));
}

}  // namespace
}  // namespace canopy::testing
