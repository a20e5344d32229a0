#include "agent/runtime/job_runtime.h"

#include <signal.h>
#include <unistd.h>

#include "absl/strings/numbers.h"
#include "absl/strings/strip.h"
#include "agent/runtime/runtime_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::agent::runtime {
namespace {

using canopy::v1::JobStatus;
using testing::Alive;
using testing::BatchJob;
using testing::ReadFile;
using testing::WaitFor;

class JobRuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<ChildReaper>> reaper = ChildReaper::Create();
    ASSERT_TRUE(reaper.ok());
    reaper_ = *std::move(reaper);
    RuntimeOptions options;
    options.node_name = "n1";
    options.spool_dir = dir_.path() + "/spool";
    // A private cgroup for this test process when cgroup v2 is delegated to us; otherwise the
    // runtime works with process groups alone, and the tests must pass either way.
    if (absl::StatusOr<std::string> root = Cgroup::FindDelegatedRoot(); root.ok()) {
      absl::StatusOr<std::unique_ptr<Cgroup>> cg =
          Cgroup::Create(*root, absl::StrCat("canopy-test-", getpid()));
      if (cg.ok()) {
        cgroup_ = *std::move(cg);
        options.cgroup_parent = cgroup_->path();
      }
    }
    runtime_ = std::make_unique<JobRuntime>(
        options, reaper_.get(), [this](const canopy::v1::AgentMessage& m) { recorder_.Add(m); });
  }
  void TearDown() override {
    runtime_.reset();
    cgroup_.reset();
    reaper_.reset();
  }

  // Kills the job and waits for CLEANED_UP.
  void KillAndWait(uint32_t job_id) {
    canopy::v1::KillJob kill;
    kill.set_job_id(job_id);
    kill.mutable_kill_wait()->set_nanos(200'000'000);
    runtime_->KillJob(kill);
    ASSERT_TRUE(recorder_.WaitJob(job_id, JobStatus::PHASE_CLEANED_UP).has_value());
  }

  testing::TempDir dir_;
  testing::Recorder recorder_;
  std::unique_ptr<ChildReaper> reaper_;
  std::unique_ptr<Cgroup> cgroup_;
  std::unique_ptr<JobRuntime> runtime_;
};

TEST_F(JobRuntimeTest, BatchScriptOutputPatternAndExitCode) {
  canopy::v1::LaunchJob l = BatchJob(7, "#!/bin/sh\necho hello $SLURM_JOB_ID $1\necho oops >&2\nexit 3\n",
                                     dir_.path());
  l.mutable_job()->mutable_spec()->add_argv("arg1");
  l.mutable_job()->mutable_spec()->set_stdout_path("out-%j-%x.txt");
  runtime_->LaunchJob(l);
  ASSERT_TRUE(recorder_.WaitJob(7, JobStatus::PHASE_LAUNCHED).has_value());
  std::optional<JobStatus> exited = recorder_.WaitJob(7, JobStatus::PHASE_EXITED);
  ASSERT_TRUE(exited.has_value());
  EXPECT_EQ(exited->exit_code(), 3);
  EXPECT_EQ(exited->exit_signal(), 0);
  EXPECT_FALSE(exited->out_of_memory());
  EXPECT_EQ(ReadFile(dir_.path() + "/out-7-test.txt"), "hello 7 arg1\noops\n");
  // LAUNCHED was reported before EXITED.
  std::vector<canopy::v1::AgentMessage> all = recorder_.messages();
  ASSERT_GE(all.size(), 2u);
  EXPECT_EQ(all[0].job_status().phase(), JobStatus::PHASE_LAUNCHED);
  KillAndWait(7);
}

TEST_F(JobRuntimeTest, DefaultOutputNoShebangSeparateErrorAndAppend) {
  {
    std::ofstream(dir_.path() + "/err.txt") << "old\n";
  }
  canopy::v1::LaunchJob l = BatchJob(8, "echo plain\necho bad >&2\n", dir_.path());
  l.mutable_job()->mutable_spec()->set_stderr_path("err.txt");
  l.mutable_job()->mutable_spec()->set_open_append(true);
  runtime_->LaunchJob(l);
  std::optional<JobStatus> exited = recorder_.WaitJob(8, JobStatus::PHASE_EXITED);
  ASSERT_TRUE(exited.has_value());
  EXPECT_EQ(exited->exit_code(), 0);
  EXPECT_EQ(ReadFile(dir_.path() + "/slurm-8.out"), "plain\n");
  EXPECT_EQ(ReadFile(dir_.path() + "/err.txt"), "old\nbad\n");
  KillAndWait(8);

  // Without --open-mode=append the file is truncated.
  canopy::v1::LaunchJob again = BatchJob(9, "echo new >&2\n", dir_.path());
  again.mutable_job()->mutable_spec()->set_stderr_path("err.txt");
  runtime_->LaunchJob(again);
  ASSERT_TRUE(recorder_.WaitJob(9, JobStatus::PHASE_EXITED).has_value());
  EXPECT_EQ(ReadFile(dir_.path() + "/err.txt"), "new\n");
  KillAndWait(9);
}

TEST_F(JobRuntimeTest, ExitBySignalIsReported) {
  runtime_->LaunchJob(BatchJob(10, "#!/bin/sh\nkill -USR1 $$\n", dir_.path()));
  std::optional<JobStatus> exited = recorder_.WaitJob(10, JobStatus::PHASE_EXITED);
  ASSERT_TRUE(exited.has_value());
  EXPECT_EQ(exited->exit_signal(), SIGUSR1);
  EXPECT_EQ(exited->exit_code(), 0);
  KillAndWait(10);
}

TEST_F(JobRuntimeTest, BadWorkDirFailsTheLaunch) {
  runtime_->LaunchJob(BatchJob(11, "#!/bin/sh\ntrue\n", "/nope"));
  std::optional<JobStatus> failed = recorder_.WaitJob(11, JobStatus::PHASE_LAUNCH_FAILED);
  ASSERT_TRUE(failed.has_value());
  EXPECT_EQ(failed->message(), "chdir to /nope: No such file or directory");
  EXPECT_TRUE(runtime_->RunningJobIds().empty());
}

TEST_F(JobRuntimeTest, EmptyScriptIsAnAllocationAndNonBatchNodesJustRecord) {
  canopy::v1::LaunchJob alloc = BatchJob(12, "", dir_.path());
  runtime_->LaunchJob(alloc);
  canopy::v1::LaunchJob other = BatchJob(13, "#!/bin/sh\nexit 1\n", dir_.path());
  other.set_is_batch_host(false);
  runtime_->LaunchJob(other);
  ASSERT_TRUE(recorder_.WaitJob(12, JobStatus::PHASE_LAUNCHED).has_value());
  ASSERT_TRUE(recorder_.WaitJob(13, JobStatus::PHASE_LAUNCHED).has_value());
  EXPECT_THAT(runtime_->RunningJobIds(), ::testing::ElementsAre(12, 13));
  KillAndWait(12);
  KillAndWait(13);
  EXPECT_FALSE(std::filesystem::exists(dir_.path() + "/slurm-13.out"));
}

TEST_F(JobRuntimeTest, KillEscalatesToSigkillAfterKillWait) {
  const std::string ready = dir_.path() + "/ready";
  runtime_->LaunchJob(BatchJob(
      14, absl::StrCat("#!/bin/sh\ntrap '' TERM\ntouch ", ready, "\nwhile :; do sleep 0.05; done\n"),
      dir_.path()));
  ASSERT_TRUE(WaitFor([&] { return std::filesystem::exists(ready); }));
  canopy::v1::KillJob kill;
  kill.set_job_id(14);
  kill.mutable_kill_wait()->set_nanos(300'000'000);
  const absl::Time start = absl::Now();
  runtime_->KillJob(kill);
  std::optional<JobStatus> exited = recorder_.WaitJob(14, JobStatus::PHASE_EXITED);
  ASSERT_TRUE(exited.has_value());
  EXPECT_EQ(exited->exit_signal(), SIGKILL);
  ASSERT_TRUE(recorder_.WaitJob(14, JobStatus::PHASE_CLEANED_UP).has_value());
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(300));
}

TEST_F(JobRuntimeTest, NothingTheJobForkedSurvivesKill) {
  const std::string pid_file = dir_.path() + "/pid";
  runtime_->LaunchJob(BatchJob(
      15, absl::StrCat("#!/bin/sh\nsleep 1000 &\necho $! > ", pid_file, ".tmp\nmv ", pid_file,
                       ".tmp ", pid_file, "\nwait\n"),
      dir_.path()));
  ASSERT_TRUE(WaitFor([&] { return std::filesystem::exists(pid_file); }));
  int pid = 0;
  ASSERT_TRUE(absl::SimpleAtoi(absl::StripAsciiWhitespace(ReadFile(pid_file)), &pid));
  ASSERT_TRUE(Alive(pid));
  KillAndWait(15);
  EXPECT_FALSE(Alive(pid));
}

TEST_F(JobRuntimeTest, StatusesAreKeptUntilAcknowledged) {
  runtime_->LaunchJob(BatchJob(16, "#!/bin/sh\nexit 5\n", dir_.path()));
  ASSERT_TRUE(recorder_.WaitJob(16, JobStatus::PHASE_EXITED).has_value());
  std::vector<JobStatus> pending = runtime_->UnacknowledgedStatuses();
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].phase(), JobStatus::PHASE_EXITED);
  EXPECT_EQ(pending[0].exit_code(), 5);
  EXPECT_THAT(runtime_->RunningJobIds(), ::testing::ElementsAre(16));
  // An ack for another phase leaves it.
  canopy::v1::JobStatusAck ack;
  ack.set_job_id(16);
  ack.set_phase(JobStatus::PHASE_CLEANED_UP);
  runtime_->AckStatus(ack);
  EXPECT_EQ(runtime_->UnacknowledgedStatuses().size(), 1u);
  ack.set_phase(JobStatus::PHASE_EXITED);
  runtime_->AckStatus(ack);
  EXPECT_TRUE(runtime_->UnacknowledgedStatuses().empty());

  KillAndWait(16);
  EXPECT_TRUE(runtime_->RunningJobIds().empty());
  pending = runtime_->UnacknowledgedStatuses();
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].phase(), JobStatus::PHASE_CLEANED_UP);
  ack.set_phase(JobStatus::PHASE_CLEANED_UP);
  runtime_->AckStatus(ack);
  EXPECT_TRUE(runtime_->UnacknowledgedStatuses().empty());
}

TEST_F(JobRuntimeTest, KillOfAnUnknownJobIsCleanedUpAtOnce) {
  KillAndWait(999);
}

TEST_F(JobRuntimeTest, SignalJobReachesTheBatchShell) {
  const std::string ready = dir_.path() + "/ready";
  runtime_->LaunchJob(BatchJob(
      17,
      absl::StrCat("#!/bin/sh\ntrap 'echo got-usr1; exit 4' USR1\ntouch ", ready,
                   "\nwhile :; do sleep 0.05; done\n"),
      dir_.path()));
  ASSERT_TRUE(WaitFor([&] { return std::filesystem::exists(ready); }));
  canopy::v1::SignalJob sig;
  sig.set_job_id(17);
  sig.set_signal(SIGUSR1);
  sig.set_batch_only(true);
  runtime_->SignalJob(sig);
  std::optional<JobStatus> exited = recorder_.WaitJob(17, JobStatus::PHASE_EXITED);
  ASSERT_TRUE(exited.has_value());
  EXPECT_EQ(exited->exit_code(), 4);
  // The whole batch process group gets it (the shell may also report its sleep's death).
  EXPECT_THAT(ReadFile(dir_.path() + "/slurm-17.out"), ::testing::HasSubstr("got-usr1\n"));
  KillAndWait(17);
}

TEST_F(JobRuntimeTest, ShutdownKillsRunningJobs) {
  const std::string pid_file = dir_.path() + "/pid";
  runtime_->LaunchJob(BatchJob(
      18, absl::StrCat("#!/bin/sh\necho $$ > ", pid_file, ".tmp\nmv ", pid_file, ".tmp ",
                       pid_file, "\nexec sleep 1000\n"),
      dir_.path()));
  ASSERT_TRUE(WaitFor([&] { return std::filesystem::exists(pid_file); }));
  int pid = 0;
  ASSERT_TRUE(absl::SimpleAtoi(absl::StripAsciiWhitespace(ReadFile(pid_file)), &pid));
  runtime_->Shutdown();
  EXPECT_FALSE(Alive(pid));
  EXPECT_TRUE(runtime_->RunningJobIds().empty());
}

}  // namespace
}  // namespace canopy::agent::runtime
