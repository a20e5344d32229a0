// Steps end to end through JobRuntime: tasks stream to an in-process StepIo server (srun's
// role) on 127.0.0.1.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/notification.h"
#include "agent/runtime/job_runtime.h"
#include "agent/runtime/runtime_test_util.h"
#include "agent/runtime/step_io_stream.h"
#include "canopy/v1/step_io.grpc.pb.h"
#include "common/os/unique_fd.h"
#include "gmock/gmock.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"
#include "gtest/gtest.h"

namespace canopy::agent::runtime {
namespace {

using canopy::v1::JobStatus;
using testing::Alive;
using testing::BatchJob;
using testing::ReadFile;
using testing::WaitFor;

// A TCP socket bound to a free port of 127.0.0.1, listening with `listen_too`; its port.
std::pair<os::UniqueFd, int> LoopbackSocket(bool listen_too) {
  os::UniqueFd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (!fd.valid() || bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      (listen_too && listen(fd.get(), 8) != 0) ||
      getsockname(fd.get(), reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    return {os::UniqueFd(), 0};
  }
  return {std::move(fd), ntohs(addr.sin_port)};
}

// srun's side: records what one node attaches with. With `hang_up`, ends the call right after
// the hello, as a dying srun would.
class FakeSrun final : public canopy::v1::StepIo::Service {
 public:
  explicit FakeSrun(bool hang_up) : hang_up_(hang_up) {}

  grpc::Status Attach(grpc::ServerContext* /*context*/,
                      grpc::ServerReaderWriter<canopy::v1::StepIoControl,
                                               canopy::v1::StepIoMessage>* stream) override {
    canopy::v1::StepIoMessage msg;
    if (!stream->Read(&msg) || !msg.has_hello()) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "no hello");
    }
    {
      absl::MutexLock lock(&mu_);
      hello_ = msg.hello();
      attached_ = true;
    }
    if (hang_up_) {
      return grpc::Status(grpc::StatusCode::UNAVAILABLE, "srun went away");
    }
    while (stream->Read(&msg)) {
      absl::MutexLock lock(&mu_);
      if (msg.has_output()) {
        auto& text = msg.output().stream() == canopy::v1::TaskOutput::STREAM_STDOUT
                         ? out_[msg.output().rank()]
                         : err_[msg.output().rank()];
        text += msg.output().data();
      } else if (msg.has_exited()) {
        exits_[msg.exited().rank()] = msg.exited();
      } else if (msg.has_launch_failed()) {
        launch_failed_ = msg.launch_failed().message();
      } else if (msg.has_notice()) {
        notices_.push_back(msg.notice().message());
      }
    }
    return grpc::Status::OK;
  }

  absl::Mutex mu_;
  const bool hang_up_;
  bool attached_ ABSL_GUARDED_BY(mu_) = false;
  canopy::v1::StepIoHello hello_ ABSL_GUARDED_BY(mu_);
  std::map<int, std::string> out_ ABSL_GUARDED_BY(mu_);
  std::map<int, std::string> err_ ABSL_GUARDED_BY(mu_);
  std::map<int, canopy::v1::TaskExited> exits_ ABSL_GUARDED_BY(mu_);
  std::string launch_failed_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> notices_ ABSL_GUARDED_BY(mu_);
};

// A peer that takes the hello and then never reads: an sattach that stopped (Ctrl-Z, a dead
// host). Released at the end of the test so its server can shut down.
class StalledPeer final : public canopy::v1::StepIo::Service {
 public:
  grpc::Status Attach(grpc::ServerContext* /*context*/,
                      grpc::ServerReaderWriter<canopy::v1::StepIoControl,
                                               canopy::v1::StepIoMessage>* stream) override {
    canopy::v1::StepIoMessage hello;
    stream->Read(&hello);
    attached.Notify();
    release.WaitForNotificationWithTimeout(absl::Seconds(60));
    return grpc::Status::OK;
  }
  absl::Notification attached;
  absl::Notification release;
};

// A FakeSrun served on its own port (sattach's role).
struct FakeSrunServer {
  FakeSrunServer() : srun(false) {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(&srun);
    server = builder.BuildAndStart();
  }
  ~FakeSrunServer() {
    server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  }
  FakeSrun srun;
  int port = 0;
  std::unique_ptr<grpc::Server> server;
};

class StepTest : public ::testing::Test {
 protected:
  void StartSrun(bool hang_up) {
    srun_ = std::make_unique<FakeSrun>(hang_up);
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(srun_.get());
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
  }
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<ChildReaper>> reaper = ChildReaper::Create();
    ASSERT_TRUE(reaper.ok());
    reaper_ = *std::move(reaper);
    RuntimeOptions options;
    options.allow_root_jobs = true;  // the tests' jobs are the test's user's, root in CI
    options.node_name = "n1";
    options.spool_dir = dir_.path() + "/spool";
    runtime_ = std::make_unique<JobRuntime>(
        options, reaper_.get(), [this](const canopy::v1::AgentMessage& m) { recorder_.Add(m); });
    // An allocation-only job (srun outside sbatch) with two GPUs on this node.
    canopy::v1::LaunchJob job = BatchJob(21, "", dir_.path());
    job.add_gpu_indexes(0);
    job.add_gpu_indexes(1);
    runtime_->LaunchJob(job);
    ASSERT_TRUE(recorder_.WaitJob(21, JobStatus::PHASE_LAUNCHED).has_value());
  }
  void TearDown() override {
    runtime_.reset();
    reaper_.reset();
    if (server_ != nullptr) {
      server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
    }
  }
  canopy::v1::LaunchStep Step(std::vector<std::string> argv) {
    canopy::v1::LaunchStep s;
    s.set_job_id(21);
    s.set_step_id(0);
    s.set_node_index(0);
    s.add_task_ranks(2);
    s.add_task_ranks(3);
    s.set_ntasks(4);
    s.set_step_nodelist("n[0-1]");
    s.set_step_num_nodes(2);
    s.set_tasks_per_node("2(x2)");
    for (auto& a : argv) {
      s.add_argv(a);
    }
    (*s.mutable_environment())["PATH"] = "/usr/bin:/bin";
    s.set_io_address(absl::StrCat("127.0.0.1:", port_));
    s.set_io_token("secret");
    s.mutable_kill_wait()->set_nanos(200'000'000);
    return s;
  }

  testing::TempDir dir_;
  testing::Recorder recorder_;
  std::unique_ptr<FakeSrun> srun_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
  std::unique_ptr<ChildReaper> reaper_;
  std::unique_ptr<JobRuntime> runtime_;
};

TEST_F(StepTest, TwoRanksStreamOutputAndExits) {
  StartSrun(false);
  runtime_->LaunchStep(
      Step({"sh", "-c",
            "echo rank=$SLURM_PROCID local=$SLURM_LOCALID gpus=$CUDA_VISIBLE_DEVICES "
            "tasks=$SLURM_NTASKS; echo e$SLURM_PROCID >&2; exit $((SLURM_PROCID + 4))"}));
  std::optional<canopy::v1::StepStatus> status = recorder_.WaitStep(21, 0);
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(status->exited());
  EXPECT_EQ(status->exit_code(), 7);
  EXPECT_EQ(status->exit_signal(), 0);
  // Kept with the job, for a controller that restarts before it has this report.
  const std::vector<canopy::v1::RunningJob> running = runtime_->RunningJobs();
  ASSERT_EQ(running.size(), 1u);
  ASSERT_EQ(running[0].ended_steps_size(), 1);
  EXPECT_EQ(running[0].ended_steps(0).step_id(), 0u);
  EXPECT_EQ(running[0].ended_steps(0).exit_code(), 7);
  absl::MutexLock lock(&srun_->mu_);
  EXPECT_EQ(srun_->hello_.io_token(), "secret");
  EXPECT_EQ(srun_->hello_.node_name(), "n1");
  EXPECT_THAT(srun_->hello_.task_ranks(), ::testing::ElementsAre(2, 3));
  EXPECT_EQ(srun_->out_[2], "rank=2 local=0 gpus=0,1 tasks=4\n");
  EXPECT_EQ(srun_->out_[3], "rank=3 local=1 gpus=0,1 tasks=4\n");
  EXPECT_EQ(srun_->err_[2], "e2\n");
  EXPECT_EQ(srun_->err_[3], "e3\n");
  ASSERT_EQ(srun_->exits_.size(), 2u);
  EXPECT_EQ(srun_->exits_[2].exit_code(), 6);
  EXPECT_EQ(srun_->exits_[3].exit_code(), 7);
}

TEST_F(StepTest, NoticeGoesToSrunAndALateAttacherGetsTheReplayThenLiveOutput) {
  StartSrun(false);
  const std::string go = dir_.path() + "/go";
  runtime_->LaunchStep(Step({"sh", "-c",
                             absl::StrCat("echo early$SLURM_PROCID; while [ ! -e ", go,
                                          " ]; do sleep 0.05; done; echo late$SLURM_PROCID")}));
  ASSERT_TRUE(WaitFor([&] {
    absl::MutexLock lock(&srun_->mu_);
    return srun_->out_[2] == "early2\n" && srun_->out_[3] == "early3\n";
  }));
  canopy::v1::NotifyJob notify;
  notify.set_job_id(21);
  notify.set_message("hello there");
  notify.add_step_ids(0);
  runtime_->NotifyJob(notify);
  ASSERT_TRUE(WaitFor([&] {
    absl::MutexLock lock(&srun_->mu_);
    return srun_->notices_.size() == 1;
  }));

  FakeSrunServer sattach;
  canopy::v1::AttachStep attach;
  attach.set_job_id(21);
  attach.set_step_id(0);
  attach.set_io_address(absl::StrCat("127.0.0.1:", sattach.port));
  attach.set_io_token("other");
  runtime_->AttachStep(attach);
  ASSERT_TRUE(WaitFor([&] {
    absl::MutexLock lock(&sattach.srun.mu_);
    return sattach.srun.out_[2] == "early2\n" && sattach.srun.out_[3] == "early3\n";
  }));
  {
    absl::MutexLock lock(&sattach.srun.mu_);
    EXPECT_EQ(sattach.srun.hello_.io_token(), "other");
    EXPECT_THAT(sattach.srun.hello_.task_ranks(), ::testing::ElementsAre(2, 3));
    EXPECT_TRUE(sattach.srun.notices_.empty());
  }
  std::ofstream(go).close();
  std::optional<canopy::v1::StepStatus> status = recorder_.WaitStep(21, 0);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->exit_code(), 0);
  absl::MutexLock lock(&sattach.srun.mu_);
  EXPECT_EQ(sattach.srun.out_[2], "early2\nlate2\n");
  EXPECT_EQ(sattach.srun.exits_.size(), 2u);
  absl::MutexLock srun_lock(&srun_->mu_);
  EXPECT_EQ(srun_->out_[3], "early3\nlate3\n");
}

// A stalled sattach holds up nothing: the tasks write 8 MiB, srun gets all of it, the step ends
// on time, and the stalled stream is dropped once it falls behind.
TEST_F(StepTest, AStalledSattachNeverHoldsUpTheStep) {
  StartSrun(false);
  StalledPeer peer;
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&peer);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  const std::string go = dir_.path() + "/go";
  runtime_->LaunchStep(Step(
      {"sh", "-c",
       absl::StrCat("while [ ! -e ", go, " ]; do sleep 0.05; done; head -c 4194304 /dev/zero")}));
  canopy::v1::AttachStep attach;
  attach.set_job_id(21);
  attach.set_step_id(0);
  attach.set_io_address(absl::StrCat("127.0.0.1:", port));
  runtime_->AttachStep(attach);
  ASSERT_TRUE(peer.attached.WaitForNotificationWithTimeout(absl::Seconds(10)));
  std::ofstream(go).close();
  std::optional<canopy::v1::StepStatus> status = recorder_.WaitStep(21, 0);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->exit_code(), 0);
  {
    absl::MutexLock lock(&srun_->mu_);
    EXPECT_EQ(srun_->out_[2].size(), 4194304u);
    EXPECT_EQ(srun_->out_[3].size(), 4194304u);
  }
  peer.release.Notify();
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
}

TEST_F(StepTest, OutputToFilesPerRank) {
  StartSrun(false);
  canopy::v1::LaunchStep s = Step({"sh", "-c", "echo out$SLURM_PROCID; echo err$SLURM_PROCID >&2"});
  s.set_stdout_path("step-%t.out");
  s.set_work_dir(dir_.path());
  runtime_->LaunchStep(s);
  std::optional<canopy::v1::StepStatus> status = recorder_.WaitStep(21, 0);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->exit_code(), 0);
  EXPECT_EQ(ReadFile(dir_.path() + "/step-2.out"), "out2\nerr2\n");
  EXPECT_EQ(ReadFile(dir_.path() + "/step-3.out"), "out3\nerr3\n");
  absl::MutexLock lock(&srun_->mu_);
  EXPECT_EQ(srun_->exits_.size(), 2u);
  EXPECT_TRUE(srun_->out_.empty());
}

TEST_F(StepTest, BrokenSrunStreamKillsTheTasks) {
  StartSrun(true);
  const std::string pid_file = dir_.path() + "/pid";
  runtime_->LaunchStep(
      Step({"sh", "-c", absl::StrCat("echo $$ > ", pid_file, ".$SLURM_PROCID; exec sleep 1000")}));
  std::optional<canopy::v1::StepStatus> status = recorder_.WaitStep(21, 0);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->exit_signal(), SIGKILL);
  for (int rank : {2, 3}) {
    int pid = 0;
    if (absl::SimpleAtoi(absl::StripAsciiWhitespace(ReadFile(absl::StrCat(pid_file, ".", rank))),
                         &pid)) {
      EXPECT_FALSE(Alive(pid));
    }
  }
}

TEST_F(StepTest, KillJobKillsRunningSteps) {
  StartSrun(false);
  const std::string started = dir_.path() + "/started";
  runtime_->LaunchStep(
      Step({"sh", "-c", absl::StrCat("touch ", started, ".$SLURM_PROCID; exec sleep 1000")}));
  // Both ranks run (their part starts them on its own thread): the kill's SIGTERM reaches them.
  ASSERT_TRUE(WaitFor([&] {
    return std::filesystem::exists(started + ".2") && std::filesystem::exists(started + ".3");
  }));
  canopy::v1::KillJob kill;
  kill.set_job_id(21);
  kill.mutable_kill_wait()->set_nanos(200'000'000);
  runtime_->KillJob(kill);
  std::optional<canopy::v1::StepStatus> status = recorder_.WaitStep(21, 0);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->exit_signal(), SIGTERM);
  ASSERT_TRUE(recorder_.WaitJob(21, JobStatus::PHASE_CLEANED_UP).has_value());
}

// A part killed before its thread starts the tasks (a KillStep or KillJob applied while it
// still reaches srun) starts none: each rank ends killed, and nothing ran or truncated its output.
TEST_F(StepTest, APartKilledBeforeItsTasksStartStartsNone) {
  StartSrun(false);
  const std::string ran = dir_.path() + "/ran";
  StepJobContext ctx;
  ctx.node.node_name = "n1";
  ctx.job_launch = BatchJob(21, "", dir_.path());
  std::promise<canopy::v1::StepStatus> done;
  StepPart part(Step({"touch", ran}), std::move(ctx), reaper_.get(),
                [&done](const canopy::v1::StepStatus& status) { done.set_value(status); });
  part.Signal(SIGTERM);
  part.Signal(SIGKILL);
  part.Signal(SIGCONT);  // a later signal does not undo the SIGKILL
  part.Run();
  std::future<canopy::v1::StepStatus> ended = done.get_future();
  ASSERT_EQ(ended.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  const canopy::v1::StepStatus status = ended.get();
  EXPECT_EQ(status.exit_signal(), SIGKILL) << "recorded CANCELLED, not FAILED";
  EXPECT_EQ(status.exit_code(), 0);
  EXPECT_FALSE(std::filesystem::exists(ran)) << "a task started";
  EXPECT_THAT(part.TaskGroups(), ::testing::IsEmpty());
}

TEST_F(StepTest, WhatAStepTaskLeftRunningIsKilledWithTheJob) {
  StartSrun(false);
  const std::string pid_file = dir_.path() + "/bg";
  // Each task backgrounds a sleep (in the task's process group) and exits at once.
  runtime_->LaunchStep(Step({"sh", "-c",
                             absl::StrCat("sleep 1000 </dev/null >/dev/null 2>&1 & echo $! > ",
                                          pid_file, ".$SLURM_PROCID.tmp; mv ", pid_file,
                                          ".$SLURM_PROCID.tmp ", pid_file, ".$SLURM_PROCID")}));
  std::optional<canopy::v1::StepStatus> status = recorder_.WaitStep(21, 0);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->exit_code(), 0);
  std::vector<int> pids;
  for (int rank : {2, 3}) {
    int pid = 0;
    ASSERT_TRUE(absl::SimpleAtoi(
        absl::StripAsciiWhitespace(ReadFile(absl::StrCat(pid_file, ".", rank))), &pid));
    ASSERT_TRUE(Alive(pid));
    pids.push_back(pid);
  }
  // The step is over (its StepPart destroyed); the sleeps still belong to the job.
  absl::SleepFor(absl::Milliseconds(100));
  canopy::v1::KillJob kill;
  kill.set_job_id(21);
  kill.mutable_kill_wait()->set_nanos(200'000'000);
  runtime_->KillJob(kill);
  ASSERT_TRUE(recorder_.WaitJob(21, JobStatus::PHASE_CLEANED_UP).has_value());
  for (int pid : pids) {
    EXPECT_FALSE(Alive(pid)) << pid;
  }
}

// An srun that cannot be reached (Ctrl-C'd between the step's grant and the attach, a
// firewalled login node): the step fails on this node, and the agent goes on. A failed attach
// used to finish the gRPC call twice, which aborts the process: every job on the node died.
TEST_F(StepTest, AnSrunThatCannotBeReachedFailsTheStepNotTheAgent) {
  const int closed_port = LoopbackSocket(/*listen_too=*/false).second;  // closed at once
  ASSERT_NE(closed_port, 0);
  canopy::v1::LaunchStep step = Step({"true"});
  step.set_io_address(absl::StrCat("127.0.0.1:", closed_port));
  const absl::Time start = absl::Now();
  runtime_->LaunchStep(step);
  std::optional<canopy::v1::StepStatus> status = recorder_.WaitStep(21, 0);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->exit_code(), 1);
  EXPECT_LT(absl::Now() - start, absl::Seconds(3)) << "a refused connection fails at once";
}

// An srun that takes the connection and never answers (stopped with Ctrl-Z, behind a proxy
// that hangs): the step fails after the attach's timeout (StepIoStream::kConnectTimeout), not
// gRPC's 20 s handshake. The step's own thread waits for it, not the node's inbox thread, which
// launches steps and used to be held for that long.
TEST_F(StepTest, AnSrunThatNeverAnswersFailsTheStepWithinTheConnectTimeout) {
  // The kernel completes the connections; nobody speaks.
  const auto [silent, port] = LoopbackSocket(/*listen_too=*/true);
  ASSERT_TRUE(silent.valid());
  canopy::v1::LaunchStep step = Step({"true"});
  step.set_io_address(absl::StrCat("127.0.0.1:", port));
  const absl::Time start = absl::Now();
  runtime_->LaunchStep(step);
  EXPECT_LT(absl::Now() - start, StepIoStream::kConnectTimeout / 2)
      << "the launch waited for srun: the node's later messages wait behind it";
  std::optional<canopy::v1::StepStatus> status =
      recorder_.WaitStep(21, 0, StepIoStream::kConnectTimeout + absl::Seconds(3));
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->exit_code(), 1);
  EXPECT_LT(absl::Now() - start, StepIoStream::kConnectTimeout + absl::Seconds(3));
}

TEST_F(StepTest, BadProgramAndUnknownJobFailTheStep) {
  StartSrun(false);
  runtime_->LaunchStep(Step({"no-such-program-xyz"}));
  std::optional<canopy::v1::StepStatus> status = recorder_.WaitStep(21, 0);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->exit_code(), 1);
  EXPECT_EQ(status->message(), "no-such-program-xyz: command not found");
  EXPECT_TRUE(WaitFor([&] {
    absl::MutexLock lock(&srun_->mu_);
    return !srun_->launch_failed_.empty();
  }));

  canopy::v1::LaunchStep other = Step({"true"});
  other.set_job_id(77);
  runtime_->LaunchStep(other);
  status = recorder_.WaitStep(77, 0);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->exit_code(), 1);
}

}  // namespace
}  // namespace canopy::agent::runtime
