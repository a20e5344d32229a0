// The controller killed with -9 ten times while 16 one-node jobs run and about 180 wait: every
// acknowledged job still runs to its end exactly once (none lost, none twice, none FAILED by a
// launch race). Jobs are also submitted between the kills. Each job records its run with a file
// created O_EXCL (sh's noclobber, set -C): a second run of the same job would find it and leave
// a mark (docs/reliability.md).
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/front_end_test.h"

namespace canopy::testing {
namespace {

constexpr char kConfig[] = R"(
cluster_name: itcrash
node_timeout: 30s
heartbeat_interval: 500ms
kill_wait: 2s
min_job_age: 3600s
nodes:
  - names: node[01-16]
    cpus: 4
    memory_mib: 16000
partitions:
  - name: batch
    nodes: ALL
    default: true
)";

constexpr int kJobs = 196;
constexpr int kCrashes = 10;

// Records the run (noclobber: created only if absent), then works for one to two seconds (the
// script runs under /bin/sh, which has no $RANDOM).
constexpr char kJobScript[] =
    "set -C; mkdir -p runs; "
    "{ echo $SLURM_JOB_ID > runs/$SLURM_JOB_ID; } 2>/dev/null || "
    "echo $SLURM_JOB_ID >> runs/TWICE; sleep 1.$((SLURM_JOB_ID % 10))";

class CrashLoopTest : public FrontEndTest {
 protected:
  CrashLoopTest() : FrontEndTest(kConfig) {}
  void SetUp() override { ASSERT_TRUE(StartCluster("node[01-16]", 16, 0)); }

  // id -> state of every job squeue lists.
  std::vector<std::pair<uint32_t, std::string>> AllStates() {
    const CommandResult r = cluster_.FrontEnd("squeue", {"-h", "-t", "all", "-o", "%i %T"});
    std::vector<std::pair<uint32_t, std::string>> out;
    for (absl::string_view line : absl::StrSplit(r.out, '\n', absl::SkipEmpty())) {
      std::vector<std::string> f = absl::StrSplit(line, ' ', absl::SkipEmpty());
      uint32_t id = 0;
      if (f.size() == 2 && absl::SimpleAtoi(f[0], &id)) {
        out.emplace_back(id, f[1]);
      }
    }
    return out;
  }
};

TEST_F(CrashLoopTest, EveryAcknowledgedJobRunsExactlyOnceAcrossTenKill9s) {
  std::vector<uint32_t> acknowledged;
  auto submit = [&](int count) {
    for (int i = 0; i < count; ++i) {
      const uint32_t id = Sbatch({"-N", "1", "-o", "/dev/null", "--wrap", kJobScript});
      ASSERT_NE(id, 0u);
      acknowledged.push_back(id);
    }
  };
  // About 180 waiting behind the 16 running when the first kill comes, more between kills.
  submit(kJobs - kCrashes * 4);
  std::mt19937 random(20261203);
  std::uniform_int_distribution<int> pause_ms(300, 1500);
  for (int crash = 0; crash < kCrashes; ++crash) {
    submit(4);
    absl::SleepFor(absl::Milliseconds(pause_ms(random)));
    cluster_.CrashController();
    ASSERT_TRUE(cluster_.StartController().ok()) << "restart " << crash << "\n" << Diagnostics();
  }
  auto finished = [&] {
    const auto states = AllStates();
    return states.size() >= acknowledged.size() &&
           std::all_of(states.begin(), states.end(), [](const auto& s) {
             return s.second != "PENDING" && s.second != "RUNNING" && s.second != "CONFIGURING" &&
                    s.second != "COMPLETING";
           });
  };
  // Should some never finish: what canopyd says of each, beside both daemons' logs.
  auto unfinished = [&] {
    std::string out;
    for (const auto& [id, state] : AllStates()) {
      if (state == "PENDING" || state == "RUNNING" || state == "CONFIGURING" ||
          state == "COMPLETING") {
        absl::StrAppend(&out, Scontrol({"show", "job", absl::StrCat(id)}).out, "\n");
      }
    }
    return out;
  };
  ASSERT_TRUE(WaitUntil(finished, absl::Seconds(240))) << "unfinished jobs:\n"
                                                       << unfinished() << Diagnostics();

  const auto states = AllStates();
  std::vector<uint32_t> listed;
  for (const auto& [id, state] : states) {
    listed.push_back(id);
    EXPECT_EQ(state, "COMPLETED") << "job " << id << "\n"
                                  << Scontrol({"show", "job", absl::StrCat(id)}).out;
  }
  EXPECT_THAT(listed, ::testing::UnorderedElementsAreArray(acknowledged)) << "jobs lost";
  EXPECT_EQ(Work("runs/TWICE"), "") << "jobs that ran twice";
  for (uint32_t id : acknowledged) {
    EXPECT_EQ(Work(absl::StrCat("runs/", id)), absl::StrCat(id, "\n")) << "job " << id;
    EXPECT_THAT(Scontrol({"show", "job", absl::StrCat(id)}).out, ::testing::HasSubstr("Restarts=0"))
        << "job " << id;
  }
}

}  // namespace
}  // namespace canopy::testing
