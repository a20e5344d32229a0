// `scontrol show node` against what Slurm 22.05 printed (tests/data/slurm-reference/
// cli-outputs-22.05.txt: "scontrol show node gpu001", "scontrol -o show node gpu064"). Each
// golden string is Slurm's record with only the fields Canopy does not have replaced, one
// replacement per field, each saying why (show_node.h).
#include "ctl/scontrol/show_node.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_replace.h"
#include "absl/time/civil_time.h"
#include "ctl/scontrol/test_timestamp.h"
#include "gtest/gtest.h"

namespace canopy::ctl::scontrol {
namespace {

// The reference cluster's node: CPUs=8 only (so 8 sockets of one core), RealMemory=4096,
// Gres=gpu:8, partition gpu.
canopy::v1::Node RefNode(const std::string& name) {
  canopy::v1::Node n;
  n.set_name(name);
  n.set_state(canopy::v1::NODE_STATE_IDLE);
  n.set_cpus(8);
  n.set_real_memory_mib(4096);
  n.set_gpus_configured(8);
  n.add_partitions("gpu");
  n.set_agent_version("22.05.8");
  n.set_weight(1);
  n.set_boards(1);
  n.set_sockets(8);
  n.set_cores_per_socket(1);
  n.set_threads_per_core(1);
  return n;
}

std::string Replaced(std::string text, const std::vector<std::pair<std::string, std::string>>& r) {
  for (const auto& [from, to] : r) {
    EXPECT_NE(text.find(from), std::string::npos) << "not in Slurm's record: " << from;
    absl::StrReplaceAll({{from, to}}, &text);
  }
  return text;
}

constexpr char kSlurmGpu001[] =
    "NodeName=gpu001 Arch=x86_64 CoresPerSocket=1 \n"
    "   CPUAlloc=7 CPUEfctv=8 CPUTot=8 CPULoad=4.44\n"
    "   AvailableFeatures=(null)\n"
    "   ActiveFeatures=(null)\n"
    "   Gres=gpu:8\n"
    "   NodeAddr=127.0.0.1 NodeHostName=localhost Port=17001 Version=22.05.8\n"
    "   OS=Linux 6.18.44-fc-v1045 #1 SMP PREEMPT_DYNAMIC @0 \n"
    "   RealMemory=4096 AllocMem=0 FreeMem=23806 Sockets=8 Boards=1\n"
    "   State=MIXED ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A\n"
    "   Partitions=gpu \n"
    "   BootTime=2026-12-02T08:29:51 SlurmdStartTime=2026-12-02T09:43:36\n"
    "   LastBusyTime=2026-12-02T09:43:36\n"
    "   CfgTRES=cpu=8,mem=4G,billing=8\n"
    "   AllocTRES=cpu=7\n"
    "   CapWatts=n/a\n"
    "   CurrentWatts=0 AveWatts=0\n"
    "   ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s\n"
    "\n";

constexpr char kSlurmGpu064OneLine[] =
    "NodeName=gpu064 Arch=x86_64 CoresPerSocket=1  CPUAlloc=0 CPUEfctv=8 CPUTot=8 CPULoad=4.44 "
    "AvailableFeatures=(null) ActiveFeatures=(null) Gres=gpu:8 NodeAddr=127.0.0.1 "
    "NodeHostName=localhost Port=17064 Version=22.05.8 OS=Linux 6.18.44-fc-v1045 #1 SMP "
    "PREEMPT_DYNAMIC @0  RealMemory=4096 AllocMem=0 FreeMem=23715 Sockets=8 Boards=1 State=IDLE "
    "ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A Partitions=gpu  "
    "BootTime=2026-12-02T08:29:51 SlurmdStartTime=2026-12-02T09:43:37 "
    "LastBusyTime=2026-12-02T09:43:37 CfgTRES=cpu=8,mem=4G,billing=8 AllocTRES= CapWatts=n/a "
    "CurrentWatts=0 AveWatts=0 ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s\n";

TEST(ShowNodeTest, MatchesSlurmRecordOfAMixedNode) {
  canopy::v1::Node n = RefNode("gpu001");
  n.set_state(canopy::v1::NODE_STATE_MIXED);
  n.set_alloc_cpus(7);
  *n.mutable_boot_time() = At(2026, 12, 2, 9, 43, 36);  // canopy-agent's start = slurmd's
  const std::string expected = Replaced(
      kSlurmGpu001,
      {
          {"Arch=x86_64 ", ""},             // not reported by canopy-agent: left out
          {"CPULoad=4.44", "CPULoad=N/A"},  // not measured
          {"NodeAddr=127.0.0.1 NodeHostName=localhost Port=17001 ",
           "NodeAddr=gpu001 NodeHostName=gpu001 "},  // no separate address; default port
          {"   OS=Linux 6.18.44-fc-v1045 #1 SMP PREEMPT_DYNAMIC @0 \n", ""},  // not reported
          {"FreeMem=23806", "FreeMem=N/A"},                                   // not measured
          {"BootTime=2026-12-02T08:29:51", "BootTime=None"},  // the machine's boot: unknown
          {"LastBusyTime=2026-12-02T09:43:36", "LastBusyTime=Unknown"},  // not tracked
      });
  EXPECT_EQ(RenderNode(n, absl::UTCTimeZone(), false), expected);
}

TEST(ShowNodeTest, MatchesSlurmOneLinerOfAnIdleNode) {
  canopy::v1::Node n = RefNode("gpu064");
  *n.mutable_boot_time() = At(2026, 12, 2, 9, 43, 37);
  const std::string expected = Replaced(
      kSlurmGpu064OneLine, {
                               {"Arch=x86_64 ", ""},
                               {"CPULoad=4.44", "CPULoad=N/A"},
                               {"NodeAddr=127.0.0.1 NodeHostName=localhost Port=17064 ",
                                "NodeAddr=gpu064 NodeHostName=gpu064 "},
                               {"OS=Linux 6.18.44-fc-v1045 #1 SMP PREEMPT_DYNAMIC @0  ", ""},
                               {"FreeMem=23715", "FreeMem=N/A"},
                               {"BootTime=2026-12-02T08:29:51", "BootTime=None"},
                               {"LastBusyTime=2026-12-02T09:43:37", "LastBusyTime=Unknown"},
                           });
  EXPECT_EQ(RenderNode(n, absl::UTCTimeZone(), true), expected);
}

// Slurm 22.05.8's record of a node whose slurmd never registered (no Arch, OS or Version, the
// NodeAddr line ending in a space, BootTime=None SlurmdStartTime=None), with a reason as Slurm
// 22.05.9 prints it. Canopy has none of the cloud flags.
TEST(ShowNodeTest, NeverRegisteredNodeWithReason) {
  canopy::v1::Node n;
  n.set_name("d1");
  n.set_state(canopy::v1::NODE_STATE_IDLE);
  n.set_not_responding(true);
  n.set_cpus(1);
  n.set_real_memory_mib(1);
  n.add_features("dyn");
  n.add_features("standard_f4");
  n.add_partitions("dynamic");
  n.set_weight(1);
  n.set_reason("Node unexpectedly rebooted");
  n.set_reason_user("rocky");
  *n.mutable_reason_time() = At(2024, 9, 23, 4, 54, 1);
  EXPECT_EQ(RenderNode(n, absl::UTCTimeZone(), false),
            "NodeName=d1 CoresPerSocket=1 \n"
            "   CPUAlloc=0 CPUEfctv=1 CPUTot=1 CPULoad=N/A\n"
            "   AvailableFeatures=dyn,standard_f4\n"
            "   ActiveFeatures=dyn,standard_f4\n"
            "   Gres=(null)\n"
            "   NodeAddr=d1 NodeHostName=d1 \n"
            "   RealMemory=1 AllocMem=0 FreeMem=N/A Sockets=1 Boards=1\n"
            "   State=IDLE+NOT_RESPONDING ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A "
            "MCS_label=N/A\n"
            "   Partitions=dynamic \n"
            "   BootTime=None SlurmdStartTime=None\n"
            "   LastBusyTime=Unknown\n"
            "   CfgTRES=cpu=1,mem=1M,billing=1\n"
            "   AllocTRES=\n"
            "   CapWatts=n/a\n"
            "   CurrentWatts=0 AveWatts=0\n"
            "   ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s\n"
            "   Reason=Node unexpectedly rebooted [rocky@2024-09-23T04:54:01]\n"
            "\n");
}

TEST(ShowNodeTest, StatesAndFlagsInSlurmOrder) {
  canopy::v1::Node n;
  n.set_state(canopy::v1::NODE_STATE_DOWN);
  n.set_drain(true);
  n.set_not_responding(true);
  EXPECT_EQ(NodeStateText(n), "DOWN+DRAIN+NOT_RESPONDING");
  n.set_state(canopy::v1::NODE_STATE_IDLE);
  n.set_not_responding(false);
  EXPECT_EQ(NodeStateText(n), "IDLE+DRAIN");
  n.set_state(canopy::v1::NODE_STATE_ALLOCATED);
  EXPECT_EQ(NodeStateText(n), "ALLOCATED+DRAIN");
  n.set_drain(false);
  n.set_state(canopy::v1::NODE_STATE_UNKNOWN);
  EXPECT_EQ(NodeStateText(n), "UNKNOWN");
}

TEST(ShowNodeTest, TypedGpusAllocationAndReasonOfSeveralLines) {
  canopy::v1::Node n = RefNode("gpu002");
  n.set_gpu_type("h100");
  n.set_alloc_cpus(8);
  n.set_alloc_memory_mib(1536);
  n.set_real_memory_mib(1048576);
  n.set_state(canopy::v1::NODE_STATE_ALLOCATED);
  n.set_reason("first\nsecond");  // no reason_time: no [user@time]
  const std::string r = RenderNode(n, absl::UTCTimeZone(), false);
  EXPECT_NE(r.find("   Gres=gpu:h100:8\n"), std::string::npos) << r;
  EXPECT_NE(r.find("   CfgTRES=cpu=8,mem=1T,billing=8\n"), std::string::npos) << r;
  EXPECT_NE(r.find("   AllocTRES=cpu=8,mem=1536M\n"), std::string::npos) << r;
  EXPECT_NE(r.find("ExtSensorsTemp=n/s\n   Reason=first\n          second\n\n"), std::string::npos)
      << r;
}

}  // namespace
}  // namespace canopy::ctl::scontrol
