// An array with the largest script a user may submit (4 MiB, Slurm's max_script_size) and the
// most tasks (MaxArraySize 1001): canopyd stores the script once, lists the array without it, and
// stays small and answering. Before, the database got a copy per task (4 GiB written at submit)
// and squeue made canopyd copy every task's script into the reply (6 GiB, no answer in 10 s).
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/front_end_test.h"

namespace canopy::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kConfig[] = R"(
cluster_name: itlargetexts
node_timeout: 30s
heartbeat_interval: 500ms
kill_wait: 2s
nodes:
  - names: gpu1
    cpus: 8
    memory_mib: 64000
partitions:
  - name: gpu
    nodes: ALL
    default: true
)";

class LargeTextsTest : public FrontEndTest {
 protected:
  LargeTextsTest() : FrontEndTest(kConfig) {}

  // The peak resident memory of canopyd so far, in MiB (VmHWM).
  int64_t ControllerPeakMib() {
    std::ifstream status(absl::StrCat("/proc/", cluster_.controller_pid(), "/status"));
    std::string line;
    while (std::getline(status, line)) {
      absl::string_view rest = line;
      if (absl::ConsumePrefix(&rest, "VmHWM:")) {
        int64_t kib = 0;
        if (absl::SimpleAtoi(absl::StripSuffix(absl::StripAsciiWhitespace(rest), " kB"), &kib)) {
          return kib / 1024;
        }
      }
    }
    return -1;
  }

  uint64_t DatabaseBytes() {
    uint64_t bytes = 0;
    for (const auto& entry : std::filesystem::directory_iterator(cluster_.dir() + "/state")) {
      if (entry.is_regular_file() && entry.path().filename().string().starts_with("canopy.db")) {
        bytes += entry.file_size();
      }
    }
    return bytes;
  }
};

TEST_F(LargeTextsTest, AnArrayOfTheLargestScriptIsStoredOnceAndListedWithoutIt) {
  ASSERT_TRUE(StartCluster("gpu1", 1, 0));
  {
    std::ofstream script(work_ + "/big.sh");
    script << "#!/bin/sh\necho big\n" << std::string((4 << 20) - 64, '#') << "\n";
  }
  const uint32_t id = Sbatch({"--hold", "--array=0-1000", "-o", "/dev/null", "big.sh"});
  ASSERT_NE(id, 0u);
  const CommandResult squeue = cluster_.FrontEnd("squeue", {"-h", "-o", "%i %T"});
  ASSERT_EQ(squeue.exit_code, 0) << squeue.err;
  EXPECT_THAT(squeue.out, HasSubstr(absl::StrCat(id, "_[0-1000] PENDING")));
  // scontrol still shows the whole script to its owner.
  const CommandResult shown = Scontrol({"write", "batch_script", absl::StrCat(id, "_7"), "-"});
  EXPECT_EQ(shown.out.size(), std::filesystem::file_size(work_ + "/big.sh")) << shown.err;
  EXPECT_LT(DatabaseBytes(), 64u << 20);
  EXPECT_LT(ControllerPeakMib(), 1024);
}

}  // namespace
}  // namespace canopy::testing
