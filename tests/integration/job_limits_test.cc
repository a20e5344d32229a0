// Job limits on a real canopyd and agent, submitted with sbatch: a job opens only the device
// files of the GPUs it was given (fake GPUs stand on character devices the test makes), and a
// job over its --mem ends OUT_OF_MEMORY. Each test says why it skips where the host cannot
// confine (no delegated cgroup, no BPF, no memory controller); on the CI machines they run.
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/front_end_test.h"

namespace canopy::testing {
namespace {

constexpr char kConfig[] = R"(
cluster_name: itlimits
kill_wait: 2s
nodes:
  - names: gpu1
    cpus: 8
    memory_mib: 64000
    gpus: {type: h100, count: 4}
partitions:
  - name: gpu
    nodes: ALL
    default: true
)";

class JobLimitsTest : public FrontEndTest {
 protected:
  JobLimitsTest() : FrontEndTest(kConfig) {}

  // canopyd, and an agent whose four fake GPUs stand on the device numbers of /dev/zero,
  // /dev/full, /dev/random and /dev/urandom (they open without any driver). Skips where the
  // test cannot make device files.
  void StartWithGpuDeviceFiles() {
    const int numbers[4][2] = {{1, 5}, {1, 7}, {1, 8}, {1, 9}};
    for (int i = 0; i < 4; ++i) {
      const std::string path = absl::StrCat(cluster_.dir(), "/gpu1-gpu", i);
      if (mknod(path.c_str(), S_IFCHR | 0666, makedev(numbers[i][0], numbers[i][1])) != 0) {
        GTEST_SKIP() << "mknod " << path << ": " << std::strerror(errno);
      }
    }
    work_ = cluster_.dir() + "/work";
    std::filesystem::create_directories(work_);
    ASSERT_TRUE(cluster_.StartController().ok()) << cluster_.ControllerLog();
    ASSERT_TRUE(
        cluster_
            .StartAgent("gpu1", {"--spool_dir", cluster_.dir() + "/spool", "--fake_gpus", "4",
                                 "--fake_gpu_device_files", cluster_.dir() + "/%n-gpu%d"})
            .ok());
    ASSERT_TRUE(WaitUntil(
        [&] {
          return absl::StrContains(cluster_.FrontEnd("sinfo", {"-h", "-o", "%t"}).out, "idle");
        },
        absl::Seconds(30)))
        << Diagnostics();
  }

  bool Confines(absl::string_view what) {
    return !absl::StrContains(cluster_.AgentLog(), absl::StrCat(what, " not limited")) &&
           absl::StrContains(cluster_.AgentLog(), "job limits:");
  }
};

TEST_F(JobLimitsTest, AJobOpensOnlyTheDeviceFilesOfItsGpus) {
  StartWithGpuDeviceFiles();
  if (IsSkipped()) {
    return;
  }
  if (!absl::StrContains(cluster_.AgentLog(), "job limits:")) {
    GTEST_SKIP() << "no job cgroups here:\n" << cluster_.AgentLog();
  }
  const std::string dir = cluster_.dir();
  const uint32_t id = Sbatch({"-G", "2", "-o", "gpus.txt", "--wrap",
                              absl::StrCat("echo $SLURM_JOB_GPUS; echo $CUDA_VISIBLE_DEVICES; ",
                                           "for i in 0 1 2 3; do if (: < ", dir,
                                           "/gpu1-gpu$i) 2>/dev/null; then echo $i; fi; done")});
  ASSERT_TRUE(WaitUntil([&] { return State(id) == "COMPLETED"; }, absl::Seconds(30)))
      << State(id) << Diagnostics();
  if (absl::StrContains(cluster_.AgentLog(), "device files not refused")) {
    GTEST_SKIP() << "no cgroup device programs here:\n" << cluster_.AgentLog();
  }
  const std::vector<std::string> lines = absl::StrSplit(Work("gpus.txt"), '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 4u) << Work("gpus.txt");
  // The two it opened are the two it was given (the node's numbers); CUDA sees only those, as
  // 0 and 1 (Slurm's ConstrainDevices numbering).
  const std::vector<std::string> given = absl::StrSplit(lines[0], ',');
  EXPECT_THAT(given, ::testing::ElementsAre(lines[2], lines[3])) << Work("gpus.txt");
  EXPECT_EQ(lines[1], "0,1");
  // Outside the job, every one opens.
  for (int i = 0; i < 4; ++i) {
    EXPECT_TRUE(std::ifstream(absl::StrCat(dir, "/gpu1-gpu", i)).good()) << i;
  }
}

TEST_F(JobLimitsTest, AJobOverItsMemoryEndsOutOfMemory) {
  StartWithGpuDeviceFiles();
  if (IsSkipped()) {
    return;
  }
  if (!Confines("memory")) {
    GTEST_SKIP() << "memory is not limited here:\n" << cluster_.AgentLog();
  }
  const uint32_t big = Sbatch(
      {"--mem=32M", "-o", "big.txt", "--wrap", "x=$(yes | head -c 200000000); echo survived"});
  ASSERT_TRUE(WaitUntil([&] { return State(big) == "OUT_OF_MEMORY"; }, absl::Seconds(60)))
      << State(big) << Diagnostics();
  EXPECT_EQ(Work("big.txt").find("survived"), std::string::npos);
  // Within its --mem the same kind of job runs to its end.
  const uint32_t small = Sbatch(
      {"--mem=512M", "-o", "small.txt", "--wrap", "x=$(yes | head -c 50000000); echo survived"});
  ASSERT_TRUE(WaitUntil([&] { return State(small) == "COMPLETED"; }, absl::Seconds(60)))
      << State(small) << Diagnostics();
  EXPECT_EQ(Work("small.txt"), "survived\n");
}

}  // namespace
}  // namespace canopy::testing
