#include "agent/runtime/job_runtime.h"

#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
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
    options.allow_root_jobs = true;  // the tests' jobs are the test's user's, root in CI
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

  // A second runtime on node n1 with its batch scripts in `spool`, reporting to `recorder`.
  std::unique_ptr<JobRuntime> RuntimeWithSpool(const std::string& spool,
                                               testing::Recorder& recorder) {
    RuntimeOptions options;
    options.node_name = "n1";
    options.spool_dir = spool;
    options.allow_root_jobs = true;
    return std::make_unique<JobRuntime>(
        options, reaper_.get(),
        [&recorder](const canopy::v1::AgentMessage& m) { recorder.Add(m); });
  }

  // Options for a second runtime on `node`, with `prolog_text` as its Prolog (an executable
  // file in the test's directory) and its batch scripts in a spool of its own.
  RuntimeOptions WithProlog(const std::string& node, const std::string& prolog_text) {
    const std::string prolog = dir_.path() + "/prolog.sh";
    std::ofstream(prolog) << prolog_text;
    EXPECT_EQ(chmod(prolog.c_str(), 0755), 0);
    RuntimeOptions options;
    options.node_name = node;
    options.spool_dir = dir_.path() + "/spool2";
    options.allow_root_jobs = true;
    options.scripts.prolog = prolog;
    return options;
  }

  // Kills the job and waits for CLEANED_UP.
  void KillAndWait(uint32_t job_id) {
    canopy::v1::KillJob kill;
    kill.set_job_id(job_id);
    kill.mutable_kill_wait()->set_nanos(200'000'000);
    runtime_->KillJob(kill);
    ASSERT_TRUE(recorder_.WaitJob(job_id, JobStatus::PHASE_CLEANED_UP).has_value());
  }

  // Script lines that leave a process running `seconds` in the background, ignoring SIGTERM,
  // and wait until it does ignore it (a SIGTERM before its trap would end it at once).
  std::string LeftoverIgnoringTerm(int seconds) const {
    const std::string ready = dir_.path() + "/leftover.ready";
    return absl::StrCat("(trap '' TERM; touch ", ready, "; exec sleep ", seconds, ") &\n",
                        "while [ ! -e ", ready, " ]; do sleep 0.01; done\n");
  }

  testing::TempDir dir_;
  testing::Recorder recorder_;
  std::unique_ptr<ChildReaper> reaper_;
  std::unique_ptr<Cgroup> cgroup_;
  std::unique_ptr<JobRuntime> runtime_;
};

TEST_F(JobRuntimeTest, BatchScriptOutputPatternAndExitCode) {
  canopy::v1::LaunchJob l =
      BatchJob(7, "#!/bin/sh\necho hello $SLURM_JOB_ID $1\necho oops >&2\nexit 3\n", dir_.path());
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
  { std::ofstream(dir_.path() + "/err.txt") << "old\n"; }
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
  EXPECT_FALSE(failed->node_fault());  // the job's own: it would fail on any node
  EXPECT_TRUE(runtime_->RunningJobIds().empty());
}

TEST_F(JobRuntimeTest, ASpoolTheAgentCannotWriteIsTheNodesFault) {
  std::ofstream(dir_.path() + "/a-file").close();
  testing::Recorder recorder;
  // Under a regular file: never creatable.
  std::unique_ptr<JobRuntime> broken = RuntimeWithSpool(dir_.path() + "/a-file/spool", recorder);
  broken->LaunchJob(BatchJob(12, "#!/bin/sh\ntrue\n", dir_.path()));
  std::optional<JobStatus> failed = recorder.WaitJob(12, JobStatus::PHASE_LAUNCH_FAILED);
  ASSERT_TRUE(failed.has_value());
  EXPECT_THAT(failed->message(), ::testing::HasSubstr("cannot create the spool directory"));
  EXPECT_TRUE(failed->node_fault());
}

// A spool another user owns, or may write in, could have its script swapped between the write
// and the exec: the agent refuses it, as the node's fault.
TEST_F(JobRuntimeTest, ASpoolOthersMayWriteIsRefused) {
  const std::string spool = dir_.path() + "/open-spool";
  std::filesystem::create_directories(spool);
  chmod(spool.c_str(), 0777);
  testing::Recorder recorder;
  std::unique_ptr<JobRuntime> open_spool = RuntimeWithSpool(spool, recorder);
  open_spool->LaunchJob(BatchJob(14, "#!/bin/sh\ntouch ran-14\n", dir_.path()));
  std::optional<JobStatus> failed = recorder.WaitJob(14, JobStatus::PHASE_LAUNCH_FAILED);
  ASSERT_TRUE(failed.has_value());
  EXPECT_THAT(failed->message(), ::testing::HasSubstr("may be written by its group or others"));
  EXPECT_THAT(failed->message(), ::testing::HasSubstr("0777"));
  EXPECT_TRUE(failed->node_fault());
  EXPECT_FALSE(std::filesystem::exists(dir_.path() + "/ran-14"));
  if (geteuid() == 0) {  // owned by another user
    chmod(spool.c_str(), 0755);
    ASSERT_EQ(chown(spool.c_str(), 65534, 65534), 0);
    open_spool->LaunchJob(BatchJob(15, "#!/bin/sh\ntouch ran-15\n", dir_.path()));
    failed = recorder.WaitJob(15, JobStatus::PHASE_LAUNCH_FAILED);
    ASSERT_TRUE(failed.has_value());
    EXPECT_THAT(failed->message(), ::testing::HasSubstr("is owned by uid 65534"));
    EXPECT_FALSE(std::filesystem::exists(dir_.path() + "/ran-15"));
  }
}

TEST_F(JobRuntimeTest, FenceKillsEveryJobAtOnceAndSaysSoInItsReports) {
  canopy::v1::LaunchJob l =
      BatchJob(13, "#!/bin/sh\ntrap '' TERM\necho $$ > pid\nexec sleep 600\n", dir_.path());
  l.mutable_kill_wait()->set_seconds(600);  // no KillWait when fenced
  runtime_->LaunchJob(l);
  ASSERT_TRUE(recorder_.WaitJob(13, JobStatus::PHASE_LAUNCHED).has_value());
  ASSERT_TRUE(WaitFor([&] { return !ReadFile(dir_.path() + "/pid").empty(); }));
  pid_t pid = 0;
  ASSERT_TRUE(absl::SimpleAtoi(absl::StripAsciiWhitespace(ReadFile(dir_.path() + "/pid")), &pid));

  EXPECT_EQ(runtime_->Fence("lost the controller"), 1);
  EXPECT_EQ(runtime_->Fence("lost the controller"), 0);  // once
  std::optional<JobStatus> exited = recorder_.WaitJob(13, JobStatus::PHASE_EXITED);
  ASSERT_TRUE(exited.has_value());
  EXPECT_TRUE(exited->fenced());
  EXPECT_EQ(exited->exit_signal(), SIGKILL);
  std::optional<JobStatus> cleaned = recorder_.WaitJob(13, JobStatus::PHASE_CLEANED_UP);
  ASSERT_TRUE(cleaned.has_value());
  EXPECT_TRUE(cleaned->fenced());
  EXPECT_FALSE(Alive(pid));
  EXPECT_TRUE(runtime_->RunningJobIds().empty());

  // The node works on: a later launch runs as ever, its reports not fenced.
  runtime_->LaunchJob(BatchJob(14, "#!/bin/sh\ntrue\n", dir_.path()));
  exited = recorder_.WaitJob(14, JobStatus::PHASE_EXITED);
  ASSERT_TRUE(exited.has_value());
  EXPECT_FALSE(exited->fenced());
  EXPECT_EQ(exited->exit_code(), 0);
}

TEST_F(JobRuntimeTest, ALaunchThatArrivedBeforeAFenceDoesNotStartAfterIt) {
  // Job 21's launch arrives, then waits (behind a slow launch in the node's inbox) while the node
  // loses the controller and fences; the controller has requeued 21 meanwhile.
  const uint64_t when_21_arrived = runtime_->Fences();
  EXPECT_EQ(runtime_->Fence("lost the controller"), 0);  // nothing ran yet
  runtime_->LaunchJob(BatchJob(21, "#!/bin/sh\ntouch ran-21\n", dir_.path()), when_21_arrived);
  // Job 22's launch arrived after the fence (the controller is back): it runs.
  runtime_->LaunchJob(BatchJob(22, "#!/bin/sh\ntouch ran-22\n", dir_.path()), runtime_->Fences());
  ASSERT_TRUE(recorder_.WaitJob(22, JobStatus::PHASE_EXITED).has_value());
  EXPECT_TRUE(std::filesystem::exists(dir_.path() + "/ran-22"));
  EXPECT_FALSE(std::filesystem::exists(dir_.path() + "/ran-21"));
  EXPECT_FALSE(recorder_.WaitJob(21, JobStatus::PHASE_LAUNCHED, absl::Milliseconds(200)));
  EXPECT_THAT(runtime_->RunningJobIds(), ::testing::Not(::testing::Contains(21u)));
  // Reported as the fenced jobs are, so a controller that still counts it as here requeues it.
  std::optional<JobStatus> cleaned = recorder_.WaitJob(21, JobStatus::PHASE_CLEANED_UP);
  ASSERT_TRUE(cleaned.has_value());
  EXPECT_TRUE(cleaned->fenced());
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
      14,
      absl::StrCat("#!/bin/sh\ntrap '' TERM\ntouch ", ready, "\nwhile :; do sleep 0.05; done\n"),
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
  runtime_->LaunchJob(BatchJob(15,
                               absl::StrCat("#!/bin/sh\nsleep 1000 &\necho $! > ", pid_file,
                                            ".tmp\nmv ", pid_file, ".tmp ", pid_file, "\nwait\n"),
                               dir_.path()));
  ASSERT_TRUE(WaitFor([&] { return std::filesystem::exists(pid_file); }));
  int pid = 0;
  ASSERT_TRUE(absl::SimpleAtoi(absl::StripAsciiWhitespace(ReadFile(pid_file)), &pid));
  ASSERT_TRUE(Alive(pid));
  KillAndWait(15);
  EXPECT_FALSE(Alive(pid));
}

// A process that gets into the job's cgroup after the SIGKILL went out (forked while the
// kernel killed the cgroup one pid at a time, before Linux 5.14's cgroup.kill; here moved in
// by the test, which needs a delegated cgroup): it is killed at the next poll, and the job is
// cleaned up. The SIGKILL used to go out once, and the clean-up then waited for good.
TEST_F(JobRuntimeTest, AProcessThatOutlivesTheSigkillIsKilledAgain) {
  if (cgroup_ == nullptr) {
    GTEST_SKIP() << "cgroup v2 is not delegated to this test";
  }
  // The kill (KillWait 0: SIGKILL at once) checks the job first on the caller's thread; the
  // reaper may have reaped the script by then, and the job is cleaned up at once. Otherwise the
  // next check is a poll away (20 ms), and the latecomer joins the cgroup before it. Tried
  // with a new job until it does. A latecomer that joins after the clean-up's last look but
  // before its rmdir (a slow machine: the TSan build) was never the job's to kill: the rmdir
  // fails and the cgroup is left behind, and that try does not count either.
  uint32_t job_id = 0;
  pid_t late = 0;
  for (uint32_t id = 40; id < 50 && job_id == 0; ++id) {
    const std::string ready = absl::StrCat(dir_.path(), "/ready", id);
    runtime_->LaunchJob(
        BatchJob(id, absl::StrCat("#!/bin/sh\ntouch ", ready, "\nwhile :; do sleep 0.05; done\n"),
                 dir_.path()));
    ASSERT_TRUE(WaitFor([&] { return std::filesystem::exists(ready); }));
    // Its start is over, so the kill's SIGKILL is the last one but the polls' (a kill while the
    // spawn still returns sends another once it has).
    ASSERT_TRUE(recorder_.WaitJob(id, JobStatus::PHASE_LAUNCHED).has_value());
    // Not fork(): this process has threads (a forked child can deadlock in ThreadSanitizer's
    // runtime before its exec).
    pid_t pid = 0;
    char* const argv[] = {const_cast<char*>("sleep"), const_cast<char*>("1000"), nullptr};
    ASSERT_EQ(posix_spawn(&pid, "/bin/sleep", nullptr, nullptr, argv, environ), 0);
    canopy::v1::KillJob kill;
    kill.set_job_id(id);
    kill.mutable_kill_wait()->set_seconds(0);
    runtime_->KillJob(kill);
    const std::string job_cgroup = absl::StrCat(cgroup_->path(), "/n1/job", id);
    std::ofstream procs(job_cgroup + "/cgroup.procs");
    procs << pid << std::endl;
    const bool joined = procs.good();
    procs.close();
    const bool cleaned = recorder_.WaitJob(id, JobStatus::PHASE_CLEANED_UP).has_value();
    // Joined the cgroup the clean-up was already removing: the rmdir failed and left it.
    const bool raced = joined && cleaned && std::filesystem::exists(job_cgroup);
    if (joined && !raced) {  // cleaned up, or never (the failure below)
      job_id = id;
      late = pid;
      break;
    }
    ASSERT_TRUE(cleaned) << "job " << id << " was never cleaned up";
    // Gone before the latecomer joined, or the race above: another try.
    ::kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    if (joined) {
      EXPECT_TRUE(WaitFor([&] { return rmdir(job_cgroup.c_str()) == 0 || errno == ENOENT; }));
    }
  }
  ASSERT_NE(job_id, 0u) << "no latecomer got into a killed job's cgroup in ten tries";
  EXPECT_TRUE(recorder_.WaitJob(job_id, JobStatus::PHASE_CLEANED_UP).has_value())
      << "the latecomer was never killed";
  // Reaped by the test or, as the agent's subreaper sweeps children, by the ChildReaper.
  EXPECT_TRUE(WaitFor([&] {
    waitpid(late, nullptr, WNOHANG);
    return !Alive(late);
  }));
  if (Alive(late)) {  // whatever happened above, nothing is left behind
    ::kill(late, SIGKILL);
    waitpid(late, nullptr, 0);
  }
}
// A child that hangs before its exec: here frozen by the cgroup freezer as it joins the job's
// cgroup; in life, one entering a work directory or opening an output file on a hung NFS,
// Lustre or FUSE mount. The thread that spawned it waits for it, but neither mu_ nor the caller
// may: the node's exit reports (and, through the shared reaper, every node's), its kills, its
// heartbeats (StatusesToResend) and fencing need mu_, and the node's later messages (a KillJob
// for the job that hangs among them) wait for the caller, the node's inbox. They all used to
// wait for the mount.
class HungSpawnTest : public JobRuntimeTest {
 protected:
  void SetUp() override {
    JobRuntimeTest::SetUp();
    if (cgroup_ == nullptr) {
      GTEST_SKIP() << "cgroup v2 is not delegated to this test";
    }
    node_cgroup_ = cgroup_->path() + "/n1";
    // The v2 freezer (Linux 5.2): without it nothing hangs here, and the tests prove nothing.
    Freeze(true);
    const bool frozen = absl::StrContains(ReadFile(node_cgroup_ + "/cgroup.events"), "frozen 1");
    Freeze(false);
    if (!frozen) {
      GTEST_SKIP() << "the cgroup freezer is not available";
    }
  }
  void TearDown() override {
    if (!node_cgroup_.empty()) {
      Freeze(false);
    }
    JobRuntimeTest::TearDown();
  }
  // Freezes (or thaws) the node's cgroup: every job's cgroup in it, and whatever joins them.
  void Freeze(bool frozen) {
    std::ofstream(node_cgroup_ + "/cgroup.freeze") << (frozen ? "1" : "0") << std::endl;
  }
  int Members(uint32_t job_id) {
    const std::string procs = ReadFile(absl::StrCat(node_cgroup_, "/job", job_id, "/cgroup.procs"));
    return static_cast<int>(std::count(procs.begin(), procs.end(), '\n'));
  }
  // Freezes the node's cgroup and launches `launch` as the node's inbox does. True once the
  // launch has returned and the child hangs in the job's cgroup, before its exec.
  bool LaunchHanging(canopy::v1::LaunchJob launch) {
    Freeze(true);
    const uint32_t job_id = launch.job().job_id();
    auto launched = std::async(std::launch::async,
                               [this, launch = std::move(launch)] { runtime_->LaunchJob(launch); });
    if (!FinishesWhileHung(launched)) {
      ADD_FAILURE() << "the launch waited for the spawn: the node's later messages wait behind it";
      return false;
    }
    return WaitFor([&] { return Members(job_id) == 1; });
  }
  // Jobs first_id, first_id + 1, ... hanging in their start, one on each of the node's start
  // lanes; empty (and a failure) if one did not hang.
  std::vector<uint32_t> HangEveryLane(uint32_t first_id) {
    std::vector<uint32_t> hung;
    for (uint32_t id = first_id; id < first_id + JobRuntime::kStartLanes; ++id) {
      if (!LaunchHanging(BatchJob(id, "#!/bin/sh\nexec sleep 30\n", dir_.path()))) {
        ADD_FAILURE() << "job " << id << " did not hang in its start";
        return {};
      }
      hung.push_back(id);
    }
    return hung;
  }
  // Whether `done` finishes while the spawn hangs; if not, thaws the node's cgroup so that the
  // runtime (and the test) can go on.
  template <typename T>
  bool FinishesWhileHung(std::future<T>& done) {
    if (done.wait_for(std::chrono::seconds(3)) == std::future_status::ready) {
      return true;
    }
    Freeze(false);
    return false;
  }
  // Whether the runtime answers while the spawn hangs: the registration's list of jobs, and the
  // heartbeat's resend of unacknowledged reports.
  bool Answers() {
    auto answered = std::async(std::launch::async, [this] {
      runtime_->StatusesToResend(absl::Seconds(30));
      return runtime_->RunningJobIds();
    });
    return FinishesWhileHung(answered);
  }
  void KillNow(uint32_t job_id) {
    canopy::v1::KillJob kill;
    kill.set_job_id(job_id);
    kill.mutable_kill_wait()->set_seconds(0);
    runtime_->KillJob(kill);
  }
  std::string node_cgroup_;
};

TEST_F(HungSpawnTest, ABatchScriptHangingBeforeItsExecDoesNotHoldUpTheNode) {
  ASSERT_TRUE(LaunchHanging(BatchJob(60, "#!/bin/sh\nexec sleep 30\n", dir_.path())));
  const bool answered = Answers();
  EXPECT_TRUE(answered) << "the runtime waited for the spawn";
  // A kill reaches the child (a fatal signal goes through the freezer), the spawn returns, and
  // the job is cleaned up.
  KillNow(60);
  EXPECT_TRUE(recorder_.WaitJob(60, JobStatus::PHASE_CLEANED_UP).has_value());
}

// Fencing cannot wait for the mount: the launch that hangs is one of the jobs it kills.
TEST_F(HungSpawnTest, AFenceKillsAJobWhoseScriptIsStillStarting) {
  ASSERT_TRUE(LaunchHanging(BatchJob(62, "#!/bin/sh\nexec sleep 30\n", dir_.path())));
  auto fenced = std::async(std::launch::async, [this] { return runtime_->Fence("lost it"); });
  EXPECT_TRUE(FinishesWhileHung(fenced)) << "the fence waited for the spawn";
  EXPECT_EQ(fenced.get(), 1);
  std::optional<JobStatus> cleaned = recorder_.WaitJob(62, JobStatus::PHASE_CLEANED_UP);
  ASSERT_TRUE(cleaned.has_value());
  EXPECT_TRUE(cleaned->fenced());
}

// A newer run that arrives while the older run's script still starts waits for it, kills it,
// and starts once it is cleaned up (its own spawn on a start lane, not the stream's
// reader).
TEST_F(HungSpawnTest, ANewerRunWaitsForAnOlderRunStillStarting) {
  canopy::v1::LaunchJob run1 = BatchJob(63, "#!/bin/sh\nexec sleep 30\n", dir_.path());
  run1.mutable_job()->set_run_id(1);
  ASSERT_TRUE(LaunchHanging(run1));
  canopy::v1::LaunchJob run2 = BatchJob(63, "#!/bin/sh\nexit 6\n", dir_.path());
  run2.mutable_job()->set_run_id(2);
  auto queued = std::async(std::launch::async, [&] { runtime_->LaunchJob(run2); });
  EXPECT_TRUE(FinishesWhileHung(queued)) << "the newer run's launch waited for the spawn";
  Freeze(false);  // for run 2, once run 1 (killed by the newer run's SIGTERM) is cleaned up
  EXPECT_TRUE(recorder_.WaitJobRun(63, 1, JobStatus::PHASE_CLEANED_UP).has_value());
  std::optional<JobStatus> exited = recorder_.WaitJobRun(63, 2, JobStatus::PHASE_EXITED);
  ASSERT_TRUE(exited.has_value());
  EXPECT_EQ(exited->exit_code(), 6);
  KillAndWait(63);
}

// With every start lane of the node held by a start that hangs, a start queued behind them is
// dropped by a kill, which does not wait for the mount. It used to wait, with its CLEANED_UP,
// until another job's spawn returned.
TEST_F(HungSpawnTest, AKillDropsAStartQueuedBehindOneThatHangs) {
  const std::vector<uint32_t> hung = HangEveryLane(100);
  ASSERT_FALSE(hung.empty());
  runtime_->LaunchJob(BatchJob(68, "#!/bin/sh\nexec sleep 30\n", dir_.path()));
  KillNow(68);
  const bool cleaned =
      recorder_.WaitJob(68, JobStatus::PHASE_CLEANED_UP, absl::Seconds(3)).has_value();
  Freeze(false);
  EXPECT_TRUE(cleaned) << "the kill waited for another job's spawn";
  for (uint32_t id : hung) {
    ASSERT_TRUE(recorder_.WaitJob(id, JobStatus::PHASE_LAUNCHED).has_value());
  }
  absl::SleepFor(absl::Milliseconds(200));  // the dropped start would have run by now
  EXPECT_FALSE(recorder_.WaitJob(68, JobStatus::PHASE_LAUNCHED, absl::ZeroDuration()))
      << "the killed job started";
  EXPECT_EQ(Members(68), 0);
  for (uint32_t id : hung) {
    KillNow(id);
    EXPECT_TRUE(recorder_.WaitJob(id, JobStatus::PHASE_CLEANED_UP).has_value());
  }
}

// A start hung on one user's mount holds up its own start lane alone: another job's script on
// the node starts meanwhile, as slurmd's jobs each start in a slurmstepd of their own. It used to
// wait until the hung one was killed.
TEST_F(HungSpawnTest, AStartHangingOnAMountDoesNotHoldUpAnotherJobsStart) {
  ASSERT_TRUE(LaunchHanging(BatchJob(70, "#!/bin/sh\nexec sleep 30\n", dir_.path())));
  // Job 70's cgroup alone stays frozen (a cgroup is frozen while it or a parent is).
  std::ofstream(absl::StrCat(node_cgroup_, "/job70/cgroup.freeze")) << "1" << std::endl;
  Freeze(false);
  runtime_->LaunchJob(BatchJob(71, "#!/bin/sh\nexit 3\n", dir_.path()));
  const bool started = recorder_.WaitJob(71, JobStatus::PHASE_EXITED, absl::Seconds(3)).has_value();
  EXPECT_TRUE(started) << "job 71's start waited for job 70's";
  EXPECT_EQ(Members(70), 1) << "job 70's start no longer hung: the test showed nothing";
  KillNow(70);
  EXPECT_TRUE(recorder_.WaitJob(70, JobStatus::PHASE_CLEANED_UP).has_value());
  EXPECT_TRUE(recorder_.WaitJob(71, JobStatus::PHASE_EXITED).has_value());
}

// A start queued while every lane was busy goes to the first lane free, not behind one of the
// starts: here all but one of those starts go on, and the queued one starts while the last
// still hangs.
TEST_F(HungSpawnTest, AStartQueuedWhileEveryLaneWasBusyTakesTheFirstLaneFree) {
  const std::vector<uint32_t> busy = HangEveryLane(200);
  ASSERT_FALSE(busy.empty());
  runtime_->LaunchJob(BatchJob(90, "#!/bin/sh\nexit 3\n", dir_.path()));  // queued
  // The first one's cgroup alone stays frozen: the other starts go on.
  const uint32_t still_hung = busy.front();
  std::ofstream(absl::StrCat(node_cgroup_, "/job", still_hung, "/cgroup.freeze"))
      << "1" << std::endl;
  Freeze(false);
  const bool started = recorder_.WaitJob(90, JobStatus::PHASE_EXITED, absl::Seconds(3)).has_value();
  EXPECT_TRUE(started) << "the queued start waited behind the one that hangs";
  EXPECT_EQ(Members(still_hung), 1) << "its start no longer hung: the test showed nothing";
  for (uint32_t id : busy) {
    KillNow(id);
    EXPECT_TRUE(recorder_.WaitJob(id, JobStatus::PHASE_CLEANED_UP).has_value());
  }
}

// scontrol notify for a script still starting is written once the script runs, whichever lane is
// free meanwhile: it waits for the start, and is not dropped as if no script ran.
TEST_F(HungSpawnTest, ANoticeForAScriptStillStartingIsWrittenOnceItRuns) {
  canopy::v1::LaunchJob launch = BatchJob(91, "#!/bin/sh\nexec sleep 30\n", dir_.path());
  launch.mutable_job()->mutable_spec()->set_stderr_path("job-%j.err");
  ASSERT_TRUE(LaunchHanging(launch));
  for (const char* message : {"first", "second"}) {
    canopy::v1::NotifyJob notify;
    notify.set_job_id(91);
    notify.set_message(message);
    runtime_->NotifyJob(notify);
  }
  Freeze(false);
  const std::string err = dir_.path() + "/job-91.err";
  // Each child appends its line once started, one child after the other's start: in either
  // order.
  EXPECT_TRUE(WaitFor([&] {
    const std::string text = ReadFile(err);
    return text == "slurmstepd-n1: error: first\nslurmstepd-n1: error: second\n" ||
           text == "slurmstepd-n1: error: second\nslurmstepd-n1: error: first\n";
  })) << ReadFile(err);
  KillNow(91);
  EXPECT_TRUE(recorder_.WaitJob(91, JobStatus::PHASE_CLEANED_UP).has_value());
}

// A signal for a job whose script still starts (a preemption's grace signal, `scancel -s` on a
// job just launched) reaches the script once it runs. It used to be lost: nothing ran yet.
TEST_F(HungSpawnTest, ASignalReachesAScriptThatWasStillStarting) {
  ASSERT_TRUE(LaunchHanging(BatchJob(69, "#!/bin/sh\nexec sleep 30\n", dir_.path())));
  canopy::v1::SignalJob sig;
  sig.set_job_id(69);
  sig.set_signal(SIGUSR1);
  runtime_->SignalJob(sig);
  Freeze(false);
  std::optional<JobStatus> exited = recorder_.WaitJob(69, JobStatus::PHASE_EXITED);
  ASSERT_TRUE(exited.has_value()) << "the signal was lost";
  EXPECT_EQ(exited->exit_signal(), SIGUSR1);
  KillAndWait(69);
}

// After a prolog the script starts on a thread of its own (the reaper's would hold up every
// node): not the timer thread, whose kill escalations must go on. Here another job, which ignores
// SIGTERM, gets its SIGKILL after KillWait while the start hangs.
TEST_F(HungSpawnTest, AStartAfterThePrologDoesNotHoldUpKillEscalation) {
  RuntimeOptions options = WithProlog("n2", "#!/bin/sh\ntrue\n");
  options.cgroup_parent = cgroup_->path();
  testing::Recorder recorder;
  auto runtime = std::make_unique<JobRuntime>(
      options, reaper_.get(), [&recorder](const canopy::v1::AgentMessage& m) { recorder.Add(m); });
  const std::string n2 = cgroup_->path() + "/n2";
  auto freeze = [&](bool frozen) {
    std::ofstream(n2 + "/cgroup.freeze") << (frozen ? "1" : "0") << std::endl;
  };
  canopy::v1::LaunchJob stubborn =
      BatchJob(65, "#!/bin/sh\ntrap '' TERM\nexec sleep 30\n", dir_.path());
  runtime->LaunchJob(stubborn);
  ASSERT_TRUE(recorder.WaitJob(65, JobStatus::PHASE_LAUNCHED).has_value());
  freeze(true);
  runtime->LaunchJob(BatchJob(64, "#!/bin/sh\nexec sleep 30\n", dir_.path()));
  ASSERT_TRUE(WaitFor([&] {
    const std::string procs = ReadFile(n2 + "/job64/cgroup.procs");
    return std::count(procs.begin(), procs.end(), '\n') == 1;
  }));
  canopy::v1::KillJob kill;
  kill.set_job_id(65);
  kill.mutable_kill_wait()->set_nanos(300'000'000);
  runtime->KillJob(kill);
  const bool cleaned =
      recorder.WaitJob(65, JobStatus::PHASE_CLEANED_UP, absl::Seconds(3)).has_value();
  freeze(false);
  EXPECT_TRUE(cleaned) << "the SIGKILL after KillWait waited for the hung start";
  kill.set_job_id(64);
  runtime->KillJob(kill);
  EXPECT_TRUE(recorder.WaitJob(64, JobStatus::PHASE_CLEANED_UP).has_value());
}

TEST_F(HungSpawnTest, ANotifyHangingBeforeItsExecDoesNotHoldUpTheNode) {
  runtime_->LaunchJob(BatchJob(61, "#!/bin/sh\nexec sleep 30\n", dir_.path()));
  ASSERT_TRUE(recorder_.WaitJob(61, JobStatus::PHASE_LAUNCHED).has_value());
  Freeze(true);
  canopy::v1::NotifyJob notify;
  notify.set_job_id(61);
  notify.set_message("hello");
  auto notified = std::async(std::launch::async, [&] { runtime_->NotifyJob(notify); });
  ASSERT_TRUE(FinishesWhileHung(notified))
      << "the notify waited for the spawn: the node's later messages wait behind it";
  ASSERT_TRUE(WaitFor([&] { return Members(61) == 2; }));  // the script, and notify's child
  const bool answered = Answers();
  EXPECT_TRUE(answered) << "the runtime waited for the spawn";
  KillNow(61);
  EXPECT_TRUE(recorder_.WaitJob(61, JobStatus::PHASE_CLEANED_UP).has_value());
}

// A step's tasks start on the step's own thread: one that hangs before its exec holds up neither
// the node's inbox nor the runtime, and a kill ends the step and the job.
TEST_F(HungSpawnTest, AStepTaskHangingBeforeItsExecDoesNotHoldUpTheNode) {
  runtime_->LaunchJob(BatchJob(66, "", dir_.path()));  // an allocation: no batch script
  ASSERT_TRUE(recorder_.WaitJob(66, JobStatus::PHASE_LAUNCHED).has_value());
  Freeze(true);
  canopy::v1::LaunchStep step;
  step.set_job_id(66);
  step.set_step_id(0);
  step.add_task_ranks(0);
  step.set_ntasks(1);
  step.add_argv("/bin/sleep");
  step.add_argv("30");
  auto launched = std::async(std::launch::async, [&] { runtime_->LaunchStep(step); });
  ASSERT_TRUE(FinishesWhileHung(launched))
      << "the step's launch waited for the spawn: the node's later messages wait behind it";
  ASSERT_TRUE(WaitFor([&] { return Members(66) == 1; }));
  const bool answered = Answers();
  EXPECT_TRUE(answered) << "the runtime waited for the spawn";
  KillNow(66);
  std::optional<canopy::v1::StepStatus> ended = recorder_.WaitStep(66, 0);
  ASSERT_TRUE(ended.has_value());
  EXPECT_NE(ended->exit_signal(), 0);
  EXPECT_TRUE(recorder_.WaitJob(66, JobStatus::PHASE_CLEANED_UP).has_value());
}

// A signal for a job whose prolog still runs here (a preemption's grace signal, `scancel -s` on
// a job just placed) reaches its script once the prolog is done and the script runs. It was lost:
// nothing of the job ran yet.
TEST_F(JobRuntimeTest, ASignalDuringThePrologReachesTheScript) {
  const std::string go = dir_.path() + "/go";
  const RuntimeOptions options =
      WithProlog("n1", absl::StrCat("#!/bin/sh\nwhile [ ! -e ", go, " ]; do sleep 0.02; done\n"));
  testing::Recorder recorder;
  auto runtime = std::make_unique<JobRuntime>(
      options, reaper_.get(), [&recorder](const canopy::v1::AgentMessage& m) { recorder.Add(m); });
  runtime->LaunchJob(BatchJob(25, "#!/bin/sh\nexec sleep 30\n", dir_.path()));  // the prolog runs
  canopy::v1::SignalJob sig;
  sig.set_job_id(25);
  sig.set_signal(SIGUSR1);
  runtime->SignalJob(sig);
  std::ofstream(go).close();
  std::optional<JobStatus> exited = recorder.WaitJob(25, JobStatus::PHASE_EXITED);
  ASSERT_TRUE(exited.has_value()) << "the signal was lost";
  EXPECT_EQ(exited->exit_signal(), SIGUSR1);
  canopy::v1::KillJob kill;
  kill.set_job_id(25);
  runtime->KillJob(kill);
  EXPECT_TRUE(recorder.WaitJob(25, JobStatus::PHASE_CLEANED_UP).has_value());
}

// A step killed (scancel JOB.STEP) while it waits for this node's prolog never starts: it is
// reported ended here at once. It used to start once the prolog was done.
TEST_F(JobRuntimeTest, AStepKilledWhileItWaitsForThePrologNeverStarts) {
  const RuntimeOptions options = WithProlog("n1", "#!/bin/sh\nsleep 1\n");
  testing::Recorder recorder;
  auto runtime = std::make_unique<JobRuntime>(
      options, reaper_.get(), [&recorder](const canopy::v1::AgentMessage& m) { recorder.Add(m); });
  // This node is not the batch host: its prolog runs at the job's first step here.
  canopy::v1::LaunchJob job = BatchJob(19, "", dir_.path());
  job.set_is_batch_host(false);
  job.set_node_index(1);
  runtime->LaunchJob(job);
  ASSERT_TRUE(recorder.WaitJob(19, JobStatus::PHASE_LAUNCHED).has_value());
  const std::string ran = dir_.path() + "/step-ran";
  canopy::v1::LaunchStep step;
  step.set_job_id(19);
  step.set_step_id(0);
  step.set_node_index(1);
  step.add_task_ranks(0);
  step.set_ntasks(1);
  step.add_argv("/bin/sh");
  step.add_argv("-c");
  step.add_argv(absl::StrCat("touch ", ran));
  (*step.mutable_environment())["PATH"] = "/usr/bin:/bin";
  runtime->LaunchStep(step);  // waits for the prolog
  canopy::v1::KillStep kill;
  kill.set_job_id(19);
  kill.set_step_id(0);
  runtime->KillStep(kill);
  std::optional<canopy::v1::StepStatus> status = recorder.WaitStep(19, 0, absl::Milliseconds(500));
  ASSERT_TRUE(status.has_value()) << "not reported before the prolog ended";
  EXPECT_TRUE(status->exited());
  EXPECT_EQ(status->exit_signal(), SIGKILL) << "the controller records it CANCELLED, not FAILED";
  EXPECT_EQ(runtime->RunningJobs().at(0).ended_steps_size(), 1) << "kept for a restart";
  absl::SleepFor(absl::Seconds(2));  // the prolog is done
  EXPECT_FALSE(std::filesystem::exists(ran)) << "the cancelled step ran";
}

TEST_F(JobRuntimeTest, StatusesAreKeptUntilAcknowledged) {
  canopy::v1::LaunchJob launch = BatchJob(16, "#!/bin/sh\nexit 5\n", dir_.path());
  launch.mutable_job()->set_run_id(1);
  runtime_->LaunchJob(launch);
  ASSERT_TRUE(recorder_.WaitJob(16, JobStatus::PHASE_EXITED).has_value());
  // The script left nothing running: the node cleaned the job up with its end, and one report
  // says both.
  std::vector<JobStatus> pending = runtime_->UnacknowledgedStatuses();
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].phase(), JobStatus::PHASE_EXITED);
  EXPECT_EQ(pending[0].exit_code(), 5);
  EXPECT_TRUE(pending[0].cleaned_up());
  EXPECT_TRUE(runtime_->RunningJobIds().empty());

  // Sent again once unanswered for long enough, then counted from that resend.
  EXPECT_TRUE(runtime_->StatusesToResend(absl::Hours(1)).empty());
  ASSERT_EQ(runtime_->StatusesToResend(absl::ZeroDuration()).size(), 1u);
  EXPECT_TRUE(runtime_->StatusesToResend(absl::Seconds(30)).empty());
  absl::SleepFor(absl::Milliseconds(60));
  EXPECT_EQ(runtime_->StatusesToResend(absl::Milliseconds(50)).size(), 1u);

  // An ack for another phase leaves it.
  canopy::v1::JobStatusAck ack;
  ack.set_job_id(16);
  ack.set_phase(JobStatus::PHASE_CLEANED_UP);
  runtime_->AckStatus(ack);
  EXPECT_EQ(runtime_->UnacknowledgedStatuses().size(), 1u);
  ack.set_phase(JobStatus::PHASE_EXITED);
  runtime_->AckStatus(ack);
  EXPECT_TRUE(runtime_->UnacknowledgedStatuses().empty());
}

TEST_F(JobRuntimeTest, WhatAScriptLeftRunningIsKilledWithoutWaitingForAKillJob) {
  // The job ends with its script, as in Slurm: a background process that ignores SIGTERM gets
  // the launch's KillWait, then SIGKILL, and the node reports the clean-up on its own.
  const std::string pid_file = dir_.path() + "/leftover.pid";
  canopy::v1::LaunchJob launch = BatchJob(
      23,
      absl::StrCat("#!/bin/sh\n", LeftoverIgnoringTerm(30), "echo $! > ", pid_file, "\nexit 3\n"),
      dir_.path());
  launch.mutable_job()->set_run_id(2);
  launch.mutable_kill_wait()->set_nanos(200'000'000);
  runtime_->LaunchJob(launch);

  std::optional<JobStatus> exited = recorder_.WaitJobRun(23, 2, JobStatus::PHASE_EXITED);
  ASSERT_TRUE(exited.has_value());
  EXPECT_EQ(exited->exit_code(), 3);
  EXPECT_FALSE(exited->cleaned_up()) << "sent at once: a process of the job is left";
  EXPECT_THAT(runtime_->RunningJobIds(), ::testing::ElementsAre(23));
  std::optional<JobStatus> cleaned = recorder_.WaitJobRun(23, 2, JobStatus::PHASE_CLEANED_UP);
  ASSERT_TRUE(cleaned.has_value());
  EXPECT_TRUE(runtime_->RunningJobIds().empty());
  pid_t leftover = 0;
  ASSERT_TRUE(absl::SimpleAtoi(absl::StripAsciiWhitespace(ReadFile(pid_file)), &leftover));
  EXPECT_TRUE(WaitFor([&] { return kill(leftover, 0) != 0; })) << "the leftover was killed";
  EXPECT_EQ(runtime_->UnacknowledgedStatuses().size(), 2u);
}

TEST_F(JobRuntimeTest, AKillAfterAnEndThatCleanedUpIsAnsweredForThatRun) {
  // A KillJob that crossed the EXITED with cleaned_up (a cancel at the script's end), or that
  // came with its answer (a preempted job that ended in its grace time), is answered for the run
  // that ended: a report of run 0 would match whichever run the controller has by then.
  canopy::v1::LaunchJob launch = BatchJob(24, "#!/bin/sh\nexit 0\n", dir_.path());
  launch.mutable_job()->set_run_id(7);
  runtime_->LaunchJob(launch);
  std::optional<JobStatus> exited = recorder_.WaitJobRun(24, 7, JobStatus::PHASE_EXITED);
  ASSERT_TRUE(exited.has_value());
  ASSERT_TRUE(exited->cleaned_up());
  canopy::v1::KillJob kill;
  kill.set_job_id(24);
  runtime_->KillJob(kill);
  EXPECT_TRUE(recorder_.WaitJobRun(24, 7, JobStatus::PHASE_CLEANED_UP).has_value());

  // Once the end is acknowledged, the node no longer knows the run: 0, as before.
  canopy::v1::JobStatusAck ack;
  ack.set_job_id(24);
  ack.set_run_id(7);
  ack.set_phase(JobStatus::PHASE_EXITED);
  runtime_->AckStatus(ack);
  const size_t reported = recorder_.messages().size();
  runtime_->KillJob(kill);
  ASSERT_EQ(recorder_.messages().size(), reported + 1);
  EXPECT_EQ(recorder_.messages().back().job_status().phase(), JobStatus::PHASE_CLEANED_UP);
  EXPECT_EQ(recorder_.messages().back().job_status().run_id(), 0u);
}

TEST_F(JobRuntimeTest, AKillJobsShorterKillWaitAppliesToACleanUpUnderWay) {
  // The script's end began the clean-up with the launch's KillWait (30 s here); the controller's
  // KillJob, with 100 ms, cuts it short: what ignores SIGTERM is SIGKILLed then.
  canopy::v1::LaunchJob launch =
      BatchJob(25, absl::StrCat("#!/bin/sh\n", LeftoverIgnoringTerm(60), "exit 0\n"), dir_.path());
  launch.mutable_job()->set_run_id(1);
  launch.mutable_kill_wait()->set_seconds(30);
  runtime_->LaunchJob(launch);
  std::optional<JobStatus> exited = recorder_.WaitJobRun(25, 1, JobStatus::PHASE_EXITED);
  ASSERT_TRUE(exited.has_value());
  EXPECT_FALSE(exited->cleaned_up());
  canopy::v1::KillJob kill;
  kill.set_job_id(25);
  kill.mutable_kill_wait()->set_nanos(100'000'000);
  runtime_->KillJob(kill);
  // Within the recorder's 5 s wait, where the launch's KillWait alone would take 30 s.
  EXPECT_TRUE(recorder_.WaitJobRun(25, 1, JobStatus::PHASE_CLEANED_UP).has_value());
}

TEST_F(JobRuntimeTest, ALaunchOfARunThatEndedHereUnacknowledgedIsNotRunAgain) {
  // A controller restarted before it heard LAUNCHED still holds the job CONFIGURING and sends
  // the launch again when the node registers, while the run's end waits for its ack.
  canopy::v1::LaunchJob launch =
      BatchJob(19, "#!/bin/sh\necho ran >> " + dir_.path() + "/runs\n", dir_.path());
  launch.mutable_job()->set_run_id(3);
  runtime_->LaunchJob(launch);
  ASSERT_TRUE(recorder_.WaitJobRun(19, 3, JobStatus::PHASE_EXITED).has_value());
  ASSERT_EQ(runtime_->UnacknowledgedStatuses().size(), 1u);  // EXITED, cleaned up with it
  const size_t reported = recorder_.messages().size();

  runtime_->LaunchJob(launch);
  ASSERT_TRUE(WaitFor([&] { return recorder_.messages().size() >= reported + 1; }));
  absl::SleepFor(absl::Milliseconds(300));  // time enough for a (wrong) second run
  EXPECT_EQ(ReadFile(dir_.path() + "/runs"), "ran\n");
  EXPECT_TRUE(runtime_->RunningJobIds().empty());
  const std::vector<canopy::v1::AgentMessage> messages = recorder_.messages();
  std::vector<JobStatus::Phase> again;
  for (size_t i = reported; i < messages.size(); ++i) {
    again.push_back(messages[i].job_status().phase());
  }
  EXPECT_THAT(again, ::testing::ElementsAre(JobStatus::PHASE_EXITED))
      << "the run's end, again, and no LAUNCHED";

  // Once acknowledged, a launch of a newer run starts as usual.
  canopy::v1::JobStatusAck ack;
  ack.set_job_id(19);
  ack.set_run_id(3);
  ack.set_phase(JobStatus::PHASE_EXITED);
  runtime_->AckStatus(ack);
  launch.mutable_job()->set_run_id(4);
  runtime_->LaunchJob(launch);
  ASSERT_TRUE(recorder_.WaitJobRun(19, 4, JobStatus::PHASE_EXITED).has_value());
  EXPECT_EQ(ReadFile(dir_.path() + "/runs"), "ran\nran\n");
}

TEST_F(JobRuntimeTest, KillOfAnUnknownJobIsCleanedUpAtOnce) {
  KillAndWait(999);
  // Its report names no run: sent again at registrations only, never by the timer.
  absl::SleepFor(absl::Milliseconds(20));
  EXPECT_TRUE(runtime_->StatusesToResend(absl::Milliseconds(10)).empty());
  EXPECT_EQ(runtime_->StatusesToResend(absl::ZeroDuration()).size(), 1u);
}

TEST_F(JobRuntimeTest, SignalJobReachesTheBatchShell) {
  const std::string ready = dir_.path() + "/ready";
  runtime_->LaunchJob(BatchJob(17,
                               absl::StrCat("#!/bin/sh\ntrap 'echo got-usr1; exit 4' USR1\ntouch ",
                                            ready, "\nwhile :; do sleep 0.05; done\n"),
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

TEST_F(JobRuntimeTest, NotifyAppendsToTheBatchScriptsStderrAsSlurmstepdWritesIt) {
  const std::string go = dir_.path() + "/go";
  canopy::v1::LaunchJob launch = BatchJob(
      23, absl::StrCat("#!/bin/sh\necho started\nwhile [ ! -e ", go, " ]; do sleep 0.05; done\n"),
      dir_.path());
  launch.mutable_job()->mutable_spec()->set_stderr_path("job-%j.err");
  runtime_->LaunchJob(launch);
  ASSERT_TRUE(WaitFor([&] { return ReadFile(dir_.path() + "/slurm-23.out") == "started\n"; }));
  canopy::v1::NotifyJob notify;
  notify.set_job_id(23);
  notify.set_message("it's $HOME \\n %s");  // printed as is: no shell or printf expansion
  runtime_->NotifyJob(notify);
  EXPECT_TRUE(WaitFor([&] {
    return ReadFile(dir_.path() + "/job-23.err") == "slurmstepd-n1: error: it's $HOME \\n %s\n";
  })) << ReadFile(dir_.path() + "/job-23.err");
  std::ofstream(go).close();
  ASSERT_TRUE(recorder_.WaitJob(23, JobStatus::PHASE_EXITED).has_value());
  KillAndWait(23);
}

// A job's user could leave a symlink where the agent used to write the script of a later run of
// the same job (spool/job<id>/script, reused after an unclean exit and a requeue): the agent
// wrote through it with its own rights. Each run now gets a file of its own, made exclusively.
TEST_F(JobRuntimeTest, ScriptIsNeverWrittenThroughWhatAnEarlierRunLeft) {
  const std::string victim = dir_.path() + "/victim";
  std::ofstream(victim) << "precious\n";
  std::filesystem::create_directories(dir_.path() + "/spool/job31");
  std::filesystem::create_symlink(victim, dir_.path() + "/spool/job31/script");
  runtime_->LaunchJob(BatchJob(31, "#!/bin/sh\necho ran\n", dir_.path()));
  std::optional<JobStatus> exited = recorder_.WaitJob(31, JobStatus::PHASE_EXITED);
  ASSERT_TRUE(exited.has_value());
  EXPECT_EQ(exited->exit_code(), 0);
  EXPECT_EQ(ReadFile(dir_.path() + "/slurm-31.out"), "ran\n");
  EXPECT_EQ(ReadFile(victim), "precious\n");
  KillAndWait(31);
}

// An agent runs no job of a system account, of root unless allowed, or of a uid the node does not
// know; a non-root agent runs only its own user's. It ran them all before (as root: as uid 0).
TEST_F(JobRuntimeTest, JobsOfUsersTheNodeMayNotRunAreRefused) {
  testing::Recorder refused;
  RuntimeOptions options;
  options.node_name = "n1";
  options.spool_dir = dir_.path() + "/strict-spool";
  JobRuntime strict(options, reaper_.get(),
                    [&refused](const canopy::v1::AgentMessage& m) { refused.Add(m); });
  auto launch_as = [&](uint32_t job_id, uint32_t uid) {
    canopy::v1::LaunchJob l =
        BatchJob(job_id, "#!/bin/sh\ntouch ran-" + std::to_string(job_id) + "\n", dir_.path());
    l.mutable_job()->set_user_id(uid);
    strict.LaunchJob(l);
    std::optional<JobStatus> failed = refused.WaitJob(job_id, JobStatus::PHASE_LAUNCH_FAILED);
    EXPECT_FALSE(std::filesystem::exists(dir_.path() + "/ran-" + std::to_string(job_id)));
    return failed.has_value() ? failed->message() : std::string("not refused");
  };
  if (geteuid() == 0) {
    EXPECT_THAT(launch_as(31, 0), ::testing::HasSubstr("jobs of root are refused on this node"));
    EXPECT_THAT(launch_as(32, 500),
                ::testing::HasSubstr("uid 500 is below this node's lowest job uid 1000"));
    EXPECT_THAT(launch_as(33, 3999999),
                ::testing::HasSubstr("uid 3999999 is not a user of this node"));
    // nobody with group root: the groups come from the node, not from the request.
    canopy::v1::LaunchJob forged = BatchJob(35, "#!/bin/sh\ntouch ran-35\n", dir_.path());
    forged.mutable_job()->set_user_id(65534);
    forged.mutable_job()->set_group_id(0);
    strict.LaunchJob(forged);
    std::optional<JobStatus> failed = refused.WaitJob(35, JobStatus::PHASE_LAUNCH_FAILED);
    ASSERT_TRUE(failed.has_value());
    EXPECT_THAT(failed->message(), ::testing::HasSubstr("gid 0 is not a group of nobody"));
  } else {
    EXPECT_THAT(launch_as(34, geteuid() + 1), ::testing::HasSubstr("runs only that user's jobs"));
  }
  EXPECT_TRUE(strict.RunningJobIds().empty());
}

// The batch script is one file of the agent's spool, executable by the job's user only, made for
// the run and removed with the job.
TEST_F(JobRuntimeTest, TheScriptIsAFileOfItsOwnRemovedWithTheJob) {
  const std::string started = dir_.path() + "/started";
  runtime_->LaunchJob(
      BatchJob(41, absl::StrCat("#!/bin/sh\ntouch ", started, "\nexec sleep 1000\n"), dir_.path()));
  ASSERT_TRUE(WaitFor([&] { return std::filesystem::exists(started); }, absl::Seconds(10)));
  std::vector<std::filesystem::path> entries;
  for (const auto& entry : std::filesystem::directory_iterator(dir_.path() + "/spool")) {
    entries.push_back(entry.path());
  }
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_TRUE(absl::StartsWith(entries[0].filename().string(), "job41.")) << entries[0].filename();
  struct stat st;
  ASSERT_EQ(lstat(entries[0].c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  KillAndWait(41);
  EXPECT_FALSE(std::filesystem::exists(entries[0]));
}

TEST_F(JobRuntimeTest, StaleSpoolOfAnEarlierAgentIsClearedAtStart) {
  const std::string stale = dir_.path() + "/spool/job40.abc123";
  std::filesystem::create_directories(stale);  // an agent of before, with a directory per run
  std::ofstream(stale + "/script") << "old\n";
  const std::string stale_file = dir_.path() + "/spool/job41.def456";
  std::ofstream(stale_file) << "old\n";
  std::ofstream(dir_.path() + "/spool/README") << "not a job\n";
  RuntimeOptions options;
  options.node_name = "n1";
  options.spool_dir = dir_.path() + "/spool";
  JobRuntime again(options, reaper_.get(), [](const canopy::v1::AgentMessage&) {});
  EXPECT_FALSE(std::filesystem::exists(stale));
  EXPECT_FALSE(std::filesystem::exists(stale_file));
  EXPECT_TRUE(std::filesystem::exists(dir_.path() + "/spool/README"));
}

TEST_F(JobRuntimeTest, ShutdownKillsRunningJobs) {
  const std::string pid_file = dir_.path() + "/pid";
  runtime_->LaunchJob(BatchJob(18,
                               absl::StrCat("#!/bin/sh\necho $$ > ", pid_file, ".tmp\nmv ",
                                            pid_file, ".tmp ", pid_file, "\nexec sleep 1000\n"),
                               dir_.path()));
  ASSERT_TRUE(WaitFor([&] { return std::filesystem::exists(pid_file); }));
  int pid = 0;
  ASSERT_TRUE(absl::SimpleAtoi(absl::StripAsciiWhitespace(ReadFile(pid_file)), &pid));
  runtime_->Shutdown();
  EXPECT_FALSE(Alive(pid));
  EXPECT_TRUE(runtime_->RunningJobIds().empty());
}

TEST_F(JobRuntimeTest, NewerRunStartsOnlyAfterTheOldRunIsCleanedUp) {
  const std::string ready = dir_.path() + "/ready";
  canopy::v1::LaunchJob run1 = BatchJob(
      19,
      absl::StrCat("#!/bin/sh\ntrap '' TERM\ntouch ", ready, "\nwhile :; do sleep 0.05; done\n"),
      dir_.path());
  run1.mutable_job()->set_run_id(1);
  runtime_->LaunchJob(run1);
  ASSERT_TRUE(recorder_.WaitJobRun(19, 1, JobStatus::PHASE_LAUNCHED).has_value());
  ASSERT_TRUE(WaitFor([&] { return std::filesystem::exists(ready); }));

  canopy::v1::KillJob kill;
  kill.set_job_id(19);
  kill.mutable_kill_wait()->set_nanos(300'000'000);  // run 1 ignores SIGTERM: SIGKILL after this
  runtime_->KillJob(kill);
  // Run 2 arrives while run 1 is being killed: queued, not "already launched".
  canopy::v1::LaunchJob run2 = BatchJob(19, "#!/bin/sh\necho run2\nexit 6\n", dir_.path());
  run2.mutable_job()->set_run_id(2);
  runtime_->LaunchJob(run2);
  // A resend of run 1's launch is answered LAUNCHED (for run 1) again.
  runtime_->LaunchJob(run1);
  EXPECT_TRUE(runtime_->RunningJobIds().empty());  // run 2 has not started

  std::optional<JobStatus> launched2 = recorder_.WaitJobRun(19, 2, JobStatus::PHASE_LAUNCHED);
  ASSERT_TRUE(launched2.has_value());
  std::optional<JobStatus> exited2 = recorder_.WaitJobRun(19, 2, JobStatus::PHASE_EXITED);
  ASSERT_TRUE(exited2.has_value());
  EXPECT_EQ(exited2->exit_code(), 6);
  EXPECT_TRUE(exited2->cleaned_up());
  EXPECT_EQ(ReadFile(dir_.path() + "/slurm-19.out"), "run2\n");

  // Run 1's end is reported as run 1's, and all of it before run 2 started.
  std::vector<std::pair<uint32_t, JobStatus::Phase>> order;
  for (const canopy::v1::AgentMessage& m : recorder_.messages()) {
    if (m.has_job_status() && m.job_status().job_id() == 19) {
      order.emplace_back(m.job_status().run_id(), m.job_status().phase());
      if (m.job_status().phase() == JobStatus::PHASE_EXITED && m.job_status().run_id() == 1) {
        EXPECT_EQ(m.job_status().exit_signal(), SIGKILL);
      }
    }
  }
  using P = std::pair<uint32_t, JobStatus::Phase>;
  EXPECT_THAT(order, ::testing::ElementsAre(
                         P(1, JobStatus::PHASE_LAUNCHED), P(1, JobStatus::PHASE_LAUNCHED),
                         P(1, JobStatus::PHASE_EXITED), P(1, JobStatus::PHASE_CLEANED_UP),
                         P(2, JobStatus::PHASE_LAUNCHED), P(2, JobStatus::PHASE_EXITED)));

  // Unacknowledged statuses are per run: an ack names its run (0: any run).
  EXPECT_EQ(runtime_->UnacknowledgedStatuses().size(), 3u);
  canopy::v1::JobStatusAck ack;
  ack.set_job_id(19);
  ack.set_phase(JobStatus::PHASE_EXITED);
  ack.set_run_id(2);
  runtime_->AckStatus(ack);
  std::vector<JobStatus> pending = runtime_->UnacknowledgedStatuses();
  ASSERT_EQ(pending.size(), 2u);
  EXPECT_EQ(pending[0].run_id(), 1u);
  EXPECT_EQ(pending[0].phase(), JobStatus::PHASE_EXITED);
  EXPECT_EQ(pending[1].run_id(), 1u);
  EXPECT_EQ(pending[1].phase(), JobStatus::PHASE_CLEANED_UP);
  ack.set_run_id(0);
  runtime_->AckStatus(ack);
  ASSERT_EQ(runtime_->UnacknowledgedStatuses().size(), 1u);
  EXPECT_TRUE(runtime_->RunningJobIds().empty());  // run 2 cleaned up with its script's end
}

TEST_F(JobRuntimeTest, KillJobCancelsANewerRunThatWaits) {
  const std::string ready = dir_.path() + "/ready";
  // Run 1 ignores SIGTERM and has 1 s of KillWait: it outlives the KillJob below however late
  // this thread gets to send it (when it died of the newer run's SIGTERM at once, run 2 could
  // start before the KillJob under a loaded machine).
  canopy::v1::LaunchJob run1 =
      BatchJob(20, absl::StrCat("#!/bin/sh\ntrap '' TERM\ntouch ", ready, "\nexec sleep 1000\n"),
               dir_.path());
  run1.mutable_job()->set_run_id(1);
  run1.mutable_kill_wait()->set_seconds(1);
  runtime_->LaunchJob(run1);
  ASSERT_TRUE(WaitFor([&] { return std::filesystem::exists(ready); }));
  // A newer run kills the old one by itself...
  canopy::v1::LaunchJob run2 = BatchJob(20, "#!/bin/sh\ntouch ran2\n", dir_.path());
  run2.mutable_job()->set_run_id(2);
  runtime_->LaunchJob(run2);
  // ...and a KillJob meanwhile means the newer run is never started.
  canopy::v1::KillJob kill;
  kill.set_job_id(20);
  runtime_->KillJob(kill);
  ASSERT_TRUE(recorder_.WaitJobRun(20, 1, JobStatus::PHASE_CLEANED_UP).has_value());
  ASSERT_TRUE(recorder_.WaitJobRun(20, 2, JobStatus::PHASE_CLEANED_UP).has_value());
  EXPECT_FALSE(
      recorder_.WaitJobRun(20, 2, JobStatus::PHASE_LAUNCHED, absl::Milliseconds(200)).has_value());
  EXPECT_FALSE(std::filesystem::exists(dir_.path() + "/ran2"));
  EXPECT_TRUE(runtime_->RunningJobIds().empty());
}

TEST_F(JobRuntimeTest, StdioFilesAreOpenedAsTheJobUser) {
  if (geteuid() != 0) {
    GTEST_SKIP() << "needs root (runs the job as uid 65534)";
  }
  // The user may enter the test dir and work in work/, but not write in locked/ (0755, root's)
  // nor into root's 0644 file in work/.
  ASSERT_EQ(chmod(dir_.path().c_str(), 0711), 0);
  const std::string work = dir_.path() + "/work";
  const std::string locked = dir_.path() + "/locked";
  ASSERT_EQ(mkdir(work.c_str(), 0777), 0);
  ASSERT_EQ(chmod(work.c_str(), 01777), 0);
  ASSERT_EQ(mkdir(locked.c_str(), 0755), 0);
  ASSERT_EQ(chmod(locked.c_str(), 0755), 0);
  { std::ofstream(work + "/victim") << "secret\n"; }
  ASSERT_EQ(chmod((work + "/victim").c_str(), 0644), 0);

  canopy::v1::LaunchJob l = BatchJob(22, "#!/bin/sh\necho hi\n", work);
  l.mutable_job()->set_user_id(65534);
  l.mutable_job()->set_group_id(65534);
  l.mutable_job()->mutable_spec()->set_stdout_path(locked + "/out.txt");
  runtime_->LaunchJob(l);
  std::optional<JobStatus> failed = recorder_.WaitJob(22, JobStatus::PHASE_LAUNCH_FAILED);
  ASSERT_TRUE(failed.has_value());
  EXPECT_EQ(failed->message(),
            absl::StrCat("open ", locked, "/out.txt for output: Permission denied"));
  EXPECT_FALSE(std::filesystem::exists(locked + "/out.txt"));

  // --error naming a file of root's: not truncated, not given away.
  canopy::v1::LaunchJob e = BatchJob(23, "#!/bin/sh\necho hi\n", work);
  e.mutable_job()->set_user_id(65534);
  e.mutable_job()->set_group_id(65534);
  e.mutable_job()->mutable_spec()->set_stderr_path("victim");
  runtime_->LaunchJob(e);
  failed = recorder_.WaitJob(23, JobStatus::PHASE_LAUNCH_FAILED);
  ASSERT_TRUE(failed.has_value());
  EXPECT_EQ(failed->message(),
            absl::StrCat("open ", work, "/victim for error output: Permission denied"));
  EXPECT_EQ(ReadFile(work + "/victim"), "secret\n");
  struct stat st;
  ASSERT_EQ(stat((work + "/victim").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 0u);
  EXPECT_TRUE(runtime_->RunningJobIds().empty());

  // Where the user may write, the files are created as the user.
  canopy::v1::LaunchJob ok = BatchJob(24, "#!/bin/sh\necho hi\n", work);
  ok.mutable_job()->set_user_id(65534);
  ok.mutable_job()->set_group_id(65534);
  runtime_->LaunchJob(ok);
  ASSERT_TRUE(recorder_.WaitJob(24, JobStatus::PHASE_EXITED).has_value());
  EXPECT_EQ(ReadFile(work + "/slurm-24.out"), "hi\n");
  ASSERT_EQ(stat((work + "/slurm-24.out").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 65534u);
  KillAndWait(24);
}

}  // namespace
}  // namespace canopy::agent::runtime
