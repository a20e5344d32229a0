// Job limits on a real runtime: memory over the job's share ends it OUT_OF_MEMORY, each job gets
// CPUs of its own, and a job opens only its own GPUs' device files. Each test needs what it tries
// (root, a delegated cgroup, the controller or BPF) and says why it skips where the host lacks
// it; on the project's CI machines they run.
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "agent/runtime/job_runtime.h"
#include "agent/runtime/runtime_test_util.h"
#include "gtest/gtest.h"

namespace canopy::agent::runtime {
namespace {

using canopy::v1::JobStatus;
using testing::BatchJob;
using testing::ReadFile;

class JobLimitsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::string> root = Cgroup::FindDelegatedRoot();
    if (!root.ok()) {
      GTEST_SKIP() << root.status();
    }
    absl::StatusOr<std::unique_ptr<Cgroup>> cg =
        Cgroup::Create(*root, absl::StrCat("canopy-limits-test-", getpid()));
    ASSERT_TRUE(cg.ok()) << cg.status();
    cgroup_ = *std::move(cg);
    absl::StatusOr<std::unique_ptr<ChildReaper>> reaper = ChildReaper::Create();
    ASSERT_TRUE(reaper.ok());
    reaper_ = *std::move(reaper);
    RuntimeOptions options;
    options.node_name = "n1";
    options.spool_dir = dir_.path() + "/spool";
    options.allow_root_jobs = true;
    options.cgroup_parent = cgroup_->path();
    runtime_ = std::make_unique<JobRuntime>(
        options, reaper_.get(), [this](const canopy::v1::AgentMessage& m) { recorder_.Add(m); });
  }
  void TearDown() override {
    runtime_.reset();
    cgroup_.reset();
    reaper_.reset();
  }

  std::optional<JobStatus> RunToEnd(const canopy::v1::LaunchJob& launch) {
    runtime_->LaunchJob(launch);
    std::optional<JobStatus> exited =
        recorder_.WaitJob(launch.job().job_id(), JobStatus::PHASE_EXITED);
    canopy::v1::KillJob kill;
    kill.set_job_id(launch.job().job_id());
    runtime_->KillJob(kill);
    EXPECT_TRUE(recorder_.WaitJob(launch.job().job_id(), JobStatus::PHASE_CLEANED_UP).has_value());
    return exited;
  }

  testing::TempDir dir_;
  testing::Recorder recorder_;
  std::unique_ptr<Cgroup> cgroup_;
  std::unique_ptr<ChildReaper> reaper_;
  std::unique_ptr<JobRuntime> runtime_;
};

TEST_F(JobLimitsTest, MemoryOverTheJobsShareEndsItOutOfMemory) {
  if (absl::StrContains(runtime_->LimitsDescription(), "memory not limited") ||
      absl::StrContains(runtime_->LimitsDescription(), "no cgroups")) {
    GTEST_SKIP() << runtime_->LimitsDescription();
  }
  // 32 MiB given on this node; the script holds about 200 MB in a shell variable.
  canopy::v1::LaunchJob l =
      BatchJob(21, "#!/bin/bash\nx=$(yes | head -c 200000000)\necho survived\n", dir_.path());
  l.mutable_job()->add_mem_allocated_mib(32);
  std::optional<JobStatus> exited = RunToEnd(l);
  ASSERT_TRUE(exited.has_value());
  EXPECT_TRUE(exited->out_of_memory()) << ReadFile(dir_.path() + "/slurm-21.out");
  EXPECT_EQ(ReadFile(dir_.path() + "/slurm-21.out").find("survived"), std::string::npos);

  // Without a share the same script runs to its end.
  canopy::v1::LaunchJob free =
      BatchJob(22, "#!/bin/bash\nx=$(yes | head -c 50000000)\necho survived\n", dir_.path());
  exited = RunToEnd(free);
  ASSERT_TRUE(exited.has_value());
  EXPECT_FALSE(exited->out_of_memory());
  EXPECT_EQ(ReadFile(dir_.path() + "/slurm-22.out"), "survived\n");
}

TEST_F(JobLimitsTest, EachJobRunsOnCpusOfItsOwnGivenBackAtItsEnd) {
  if (absl::StrContains(runtime_->LimitsDescription(), "CPUs not limited") ||
      absl::StrContains(runtime_->LimitsDescription(), "no cgroups") ||
      sysconf(_SC_NPROCESSORS_ONLN) < 2) {
    GTEST_SKIP() << runtime_->LimitsDescription();
  }
  // Two one-CPU jobs at once: one CPU each, not the same one.
  const std::string show = "#!/bin/sh\ngrep Cpus_allowed_list /proc/self/status\nsleep 30\n";
  runtime_->LaunchJob(BatchJob(31, show, dir_.path()));
  runtime_->LaunchJob(BatchJob(32, show, dir_.path()));
  ASSERT_TRUE(testing::WaitFor([&] {
    return absl::StrContains(ReadFile(dir_.path() + "/slurm-31.out"), "\n") &&
           absl::StrContains(ReadFile(dir_.path() + "/slurm-32.out"), "\n");
  }));
  EXPECT_EQ(ReadFile(dir_.path() + "/slurm-31.out"), "Cpus_allowed_list:\t0\n");
  EXPECT_EQ(ReadFile(dir_.path() + "/slurm-32.out"), "Cpus_allowed_list:\t1\n");
  for (uint32_t id : {31u, 32u}) {
    canopy::v1::KillJob kill;
    kill.set_job_id(id);
    runtime_->KillJob(kill);
    ASSERT_TRUE(recorder_.WaitJob(id, JobStatus::PHASE_CLEANED_UP).has_value());
  }
  // Both given back: a two-CPU job gets both.
  canopy::v1::LaunchJob two =
      BatchJob(33, "#!/bin/sh\ngrep Cpus_allowed_list /proc/self/status\n", dir_.path());
  two.set_cpus(2);
  ASSERT_TRUE(RunToEnd(two).has_value());
  EXPECT_EQ(ReadFile(dir_.path() + "/slurm-33.out"), "Cpus_allowed_list:\t0-1\n");
}

// Four character devices stand for four GPUs (the numbers of /dev/zero, /dev/full, /dev/random
// and /dev/urandom, which open without a driver): a job given GPUs 1 and 2 opens those two only.
TEST_F(JobLimitsTest, AJobOpensOnlyItsOwnGpusDeviceFiles) {
  const std::vector<DeviceNumber> numbers = {{1, 5}, {1, 7}, {1, 8}, {1, 9}};
  std::vector<GpuDeviceFile> gpus;
  for (int i = 0; i < 4; ++i) {
    const std::string path = absl::StrCat(dir_.path(), "/gpu", i);
    if (mknod(path.c_str(), S_IFCHR | 0666, makedev(numbers[i].major, numbers[i].minor)) != 0) {
      GTEST_SKIP() << "mknod " << path << ": " << std::strerror(errno);
    }
    gpus.push_back({i, numbers[i]});
  }
  {
    // BPF may be missing (not root, an old kernel): then the filter cannot be tried here.
    absl::StatusOr<std::unique_ptr<Cgroup>> probe = Cgroup::Create(cgroup_->path(), "probe");
    ASSERT_TRUE(probe.ok());
    if (absl::Status s = AttachDeviceFilter((*probe)->path(), {{1, 5}}); !s.ok()) {
      GTEST_SKIP() << s;
    }
  }
  runtime_->SetGpuDevices(gpus);
  canopy::v1::LaunchJob l =
      BatchJob(41,
               "#!/bin/sh\nfor g in gpu0 gpu1 gpu2 gpu3; do\n"
               "  if (: < $g) 2>/dev/null; then echo $g opened; else echo $g refused; fi\ndone\n"
               "echo $CUDA_VISIBLE_DEVICES $SLURM_JOB_GPUS\n",
               dir_.path());
  l.add_gpu_indexes(1);
  l.add_gpu_indexes(2);
  ASSERT_TRUE(RunToEnd(l).has_value());
  EXPECT_EQ(ReadFile(dir_.path() + "/slurm-41.out"),
            "gpu0 refused\ngpu1 opened\ngpu2 opened\ngpu3 refused\n"
            // CUDA sees only those two, numbered from 0, as under Slurm's ConstrainDevices; the
            // node's own numbers stay in SLURM_JOB_GPUS.
            "0,1 1,2\n");
}

}  // namespace
}  // namespace canopy::agent::runtime
