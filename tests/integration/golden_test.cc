// Golden outputs of the Slurm front ends for one scripted cluster state, end to end: a real
// canopyd and agent (6 virtual nodes of 4 fake GPUs on two leaves) with a running 4-node job
// with two steps, an array with some tasks done (one running, the rest pending behind a %1
// throttle), a failed job, a cancelled job and a drained node. squeue, sacct, sinfo and scontrol
// print it in many forms; each output is compared with a reviewed file in
// tests/data/golden/drop_in/ whose layout follows the real Slurm 22.05 references
// (tests/data/slurm-reference/). Times, durations and the temporary directory vary from run to
// run and are masked with the same width (digits become '#'), so column alignment is still
// checked. CANOPY_UPDATE_GOLDEN=1 rewrites the files (review the diff before committing).
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "common/os/hostname.h"
#include "gtest/gtest.h"
#include "tests/integration/local_cluster.h"

namespace canopy::testing {
namespace {

constexpr char kConfig[] = R"(
cluster_name: golden
node_timeout: 30s
heartbeat_interval: 500ms
kill_wait: 2s
launch_timeout: 10s
min_job_age: 600s
nodes:
  - names: gpu[1-6]
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
      nodes: gpu[1-3]
    - name: leaf2
      nodes: gpu[4-6]
    - name: spine
      switches: leaf[1-2]
)";

// What varies from run to run: the digits of timestamps, clock times and durations ("0:05",
// "00:00:05"), and all of the date line, become '#', keeping their width; the test's temporary
// directory and this host's name (scontrol's AllocNode) become fixed words.
std::string Mask(std::string text, const std::string& dir, const std::string& host) {
  absl::StrReplaceAll({{dir, "/tmp/canopy-it-XXXXXX"},
                       {absl::StrCat("AllocNode:Sid=", host, ":"), "AllocNode:Sid=HOST:"}},
                      &text);
  static const std::regex kTimes(
      R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d|\b\d\d:\d\d:\d\d\b|\b\d{1,2}:\d\d\b|\b\d{10}\b|)"
      R"(\b(Thu|Fri|Sat|Sun|Mon|Tue|Wed) \w{3} +\d+ \d\d:\d\d:\d\d \d{4}\b)");
  std::string out;
  auto begin = std::sregex_iterator(text.begin(), text.end(), kTimes);
  size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    out.append(text, last, it->position() - last);
    std::string match = it->str();
    // The date line ("Thu Dec  3 16:11:25 2026") also loses its day and month names.
    const bool date_line = match.size() > 3 && !std::isdigit(static_cast<unsigned char>(match[0]));
    for (char& c : match) {
      if (std::isdigit(static_cast<unsigned char>(c)) ||
          (date_line && std::isalpha(static_cast<unsigned char>(c)))) {
        c = '#';
      }
    }
    out += match;
    last = it->position() + it->length();
  }
  out.append(text, last, std::string::npos);
  return out;
}

class GoldenTest : public ::testing::Test {
 protected:
  GoldenTest() : cluster_(kConfig) {}

  void SetUp() override {
    work_ = cluster_.dir() + "/work";
    std::filesystem::create_directories(work_);
    ASSERT_TRUE(cluster_.StartController().ok()) << cluster_.ControllerLog();
    ASSERT_TRUE(
        cluster_
            .StartAgent("gpu[1-6]", {"--fake_gpus", "4", "--spool_dir", cluster_.dir() + "/spool"})
            .ok());
    ASSERT_TRUE(WaitUntil([&] { return cluster_.IdleNodes() == 6; }, absl::Seconds(30)));
  }

  uint32_t Sbatch(const std::vector<std::string>& args) {
    std::vector<std::string> all = {"--parsable", "-o", "/dev/null"};
    all.insert(all.end(), args.begin(), args.end());
    const CommandResult r = cluster_.FrontEndIn("sbatch", all, work_);
    uint32_t id = 0;
    if (r.exit_code != 0 || !absl::SimpleAtoi(absl::StripAsciiWhitespace(r.out), &id)) {
      ADD_FAILURE() << "sbatch failed (" << r.exit_code << "): " << r.out << r.err;
    }
    return id;
  }

  std::string Out(const std::string& front_end, const std::vector<std::string>& args) {
    const CommandResult r = cluster_.FrontEnd(front_end, args);
    EXPECT_EQ(r.exit_code, 0) << front_end << " " << absl::StrJoin(args, " ") << ": " << r.err;
    return r.out;
  }

  // Compares (or with CANOPY_UPDATE_GOLDEN=1 writes) tests/data/golden/drop_in/NAME.txt.
  void ExpectGolden(const std::string& name, const std::string& front_end,
                    const std::vector<std::string>& args) {
    const std::string actual =
        absl::StrCat("$ ", front_end, " ", absl::StrJoin(args, " "), "\n",
                     Mask(Out(front_end, args), cluster_.dir(), os::Hostname(true)));
    const std::string path =
        absl::StrCat(CANOPY_SOURCE_DIR, "/tests/data/golden/drop_in/", name, ".txt");
    const char* update = std::getenv("CANOPY_UPDATE_GOLDEN");
    if (update != nullptr && std::string(update) == "1") {
      std::ofstream(path) << actual;
      return;
    }
    EXPECT_EQ(actual, ReadFile(path))
        << "golden file " << path << " (CANOPY_UPDATE_GOLDEN=1 rewrites it)";
  }

  LocalCluster cluster_;
  std::string work_;
};

TEST_F(GoldenTest, OneClusterStateInEveryForm) {
  // The drained node first, so that no job lands on it.
  ASSERT_EQ(
      cluster_.FrontEnd("scontrol", {"update", "nodename=gpu6", "state=drain", "reason=maint"})
          .exit_code,
      0);
  std::ofstream(work_ + "/train.sh") << "#!/bin/sh\n"
                                        "srun -N 4 sleep 300 &\n"
                                        "sleep 1\n"  // so that the 4-node step is step 0
                                        "srun -N 2 sleep 300 &\n"
                                        "wait\n";
  const uint32_t train = Sbatch({"-J", "train", "-N", "4", "--gpus-per-node=2", "train.sh"});
  ASSERT_EQ(train, 1u);
  ASSERT_TRUE(WaitUntil(
      [&] {
        const std::string steps = Out("squeue", {"-s", "-h", "-o", "%i"});
        return absl::StrContains(steps, "1.0") && absl::StrContains(steps, "1.1");
      },
      absl::Seconds(30)));
  // An array whose first two tasks end at once; the third runs; the rest wait on %1.
  const uint32_t array = Sbatch(
      {"-J", "sweep", "--array=0-5%1", "--wrap", "[ $SLURM_ARRAY_TASK_ID -lt 2 ] || sleep 300"});
  ASSERT_EQ(array, 2u);
  ASSERT_TRUE(WaitUntil(
      [&] {
        return absl::StrContains(Out("squeue", {"-h", "-r", "-o", "%i %T"}), "2_2 RUNNING");
      },
      absl::Seconds(60)))
      << Out("squeue", {"-r"});
  const uint32_t failed = Sbatch({"-J", "broken", "--wrap", "exit 3"});
  ASSERT_TRUE(WaitUntil(
      [&] {
        return absl::StrContains(
            Out("squeue", {"-h", "-t", "all", "-j", absl::StrCat(failed), "-o", "%T"}), "FAILED");
      },
      absl::Seconds(30)));
  const uint32_t cancelled = Sbatch({"-J", "oops", "-H", "--wrap", "true"});
  ASSERT_EQ(cluster_.FrontEnd("scancel", {absl::StrCat(cancelled)}).exit_code, 0);

  ExpectGolden("squeue", "squeue", {});
  ExpectGolden("squeue-l", "squeue", {"-l"});
  ExpectGolden("squeue-start", "squeue", {"--start"});
  ExpectGolden("squeue-t-all", "squeue", {"-t", "all"});
  ExpectGolden("squeue-o-1", "squeue", {"-o", "%i %T %N"});
  ExpectGolden("squeue-o-2", "squeue",
               {"-h", "-t", "all", "-o", "%A|%i|%j|%u|%T|%l|%D|%C|%b|%N|%r"});
  ExpectGolden("squeue-o-3", "squeue", {"-o", "%.10i %.9P %.8j %.2t %.6D %.4C %R"});
  ExpectGolden("squeue-O-1", "squeue",
               {"-O", "JobID,Name,State,NumNodes,tres-per-node,NodeList,Reason"});
  ExpectGolden("squeue-O-2", "squeue",
               {"-O", "JobArrayID:12,Partition:.8,UserName,StateCompact:4"});
  ExpectGolden("squeue-O-3", "squeue", {"-t", "all", "-O", "JobID:6,exit_code:10,Reason:30"});
  ExpectGolden("squeue-s", "squeue", {"-s"});
  ExpectGolden("sacct", "sacct", {"-a"});
  ExpectGolden("sacct-X", "sacct", {"-a", "-X"});
  ExpectGolden("sacct-P", "sacct",
               {"-a", "-P", "--format",
                "JobID,JobIDRaw,JobName,Partition,Account,User,State,ExitCode,DerivedExitCode,"
                "NNodes,NCPUS,NodeList,AllocTRES,Restarts,Reason"});
  ExpectGolden("sacct-D", "sacct", {"-a", "-X", "-D"});
  ExpectGolden("sinfo", "sinfo", {});
  ExpectGolden("sinfo-N-l", "sinfo", {"-N", "-l"});
  ExpectGolden("sinfo-R", "sinfo", {"-R"});
  ExpectGolden("sinfo-s", "sinfo", {"-s"});
  ExpectGolden("scontrol-show-job", "scontrol", {"show", "job", absl::StrCat(train)});
  ExpectGolden("scontrol-show-job-failed", "scontrol", {"show", "job", absl::StrCat(failed)});
  ExpectGolden("scontrol-show-node", "scontrol", {"show", "node", "gpu6"});
  ExpectGolden("scontrol-show-partition", "scontrol", {"show", "partition"});
  ExpectGolden("scontrol-show-steps", "scontrol", {"show", "steps"});
  ASSERT_EQ(cluster_.FrontEnd("scancel", {absl::StrCat(train), absl::StrCat(array)}).exit_code, 0);
}

}  // namespace
}  // namespace canopy::testing
