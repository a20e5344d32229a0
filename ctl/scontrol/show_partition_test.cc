// `scontrol show partition` against what Slurm 22.05 printed for the reference cluster
// (tests/data/slurm-reference/cli-outputs-22.05.txt: 64 nodes gpu[001-064] of CPUs=8 and
// RealMemory=4096 in partition gpu), byte for byte.
#include "ctl/scontrol/show_partition.h"

#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"

namespace canopy::ctl::scontrol {
namespace {

constexpr char kSlurmGpu[] =
    "PartitionName=gpu\n"
    "   AllowGroups=ALL AllowAccounts=ALL AllowQos=ALL\n"
    "   AllocNodes=ALL Default=YES QoS=N/A\n"
    "   DefaultTime=NONE DisableRootJobs=NO ExclusiveUser=NO GraceTime=0 Hidden=NO\n"
    "   MaxNodes=UNLIMITED MaxTime=UNLIMITED MinNodes=0 LLN=NO MaxCPUsPerNode=UNLIMITED\n"
    "   Nodes=gpu[001-064]\n"
    "   PriorityJobFactor=1 PriorityTier=1 RootOnly=NO ReqResv=NO OverSubscribe=NO\n"
    "   OverTimeLimit=NONE PreemptMode=OFF\n"
    "   State=UP TotalCPUs=512 TotalNodes=64 SelectTypeParameters=NONE\n"
    "   JobDefaults=(null)\n"
    "   DefMemPerNode=UNLIMITED MaxMemPerNode=UNLIMITED\n"
    "   TRES=cpu=512,mem=256G,node=64,billing=512\n"
    "\n";

std::vector<canopy::v1::Node> RefNodes() {
  std::vector<canopy::v1::Node> nodes;
  for (int i = 1; i <= 64; ++i) {
    canopy::v1::Node n;
    n.set_name(absl::StrFormat("gpu%03d", i));
    n.set_cpus(8);
    n.set_real_memory_mib(4096);
    n.set_gpus_configured(8);
    nodes.push_back(n);
  }
  canopy::v1::Node other;  // not a member: not counted
  other.set_name("cpu001");
  other.set_cpus(64);
  nodes.push_back(other);
  return nodes;
}

canopy::v1::Partition RefPartition() {
  canopy::v1::Partition p;
  p.set_name("gpu");
  p.set_is_default(true);
  p.set_up(true);
  p.set_max_nodes(-1);
  for (int i = 1; i <= 64; ++i) {
    p.add_nodes(absl::StrFormat("gpu%03d", i));
  }
  p.set_priority_job_factor(1);
  p.set_priority_tier(1);
  return p;
}

TEST(ShowPartitionTest, MatchesSlurmRecord) {
  EXPECT_EQ(RenderPartition(RefPartition(), RefNodes(), "OFF", false), kSlurmGpu);
}

TEST(ShowPartitionTest, OneLinerJoinsTheLinesWithSpaces) {
  std::string expected = kSlurmGpu;
  absl::StrReplaceAll({{"\n   ", " "}}, &expected);
  expected.pop_back();  // one "\n" ends a one-line record
  EXPECT_EQ(RenderPartition(RefPartition(), RefNodes(), "OFF", true), expected);
}

TEST(ShowPartitionTest, LimitsAccountsPreemptionAndBillingWeights) {
  canopy::v1::Partition p = RefPartition();
  p.set_is_default(false);
  p.set_up(false);
  p.mutable_max_time()->set_seconds(2 * 86400);
  p.mutable_default_time()->set_seconds(3600);
  p.set_max_nodes(16);
  p.add_allow_accounts("physics");
  p.add_allow_accounts("chem");
  p.set_preempt_mode("REQUEUE");
  p.mutable_grace_time()->set_seconds(30);
  p.set_priority_tier(5);
  p.set_billing_weights("CPU=1.0,Mem=0.25G,GRES/gpu=2.0");
  const std::string r = RenderPartition(p, RefNodes(), "OFF", false);
  EXPECT_NE(r.find("   AllowGroups=ALL AllowAccounts=physics,chem AllowQos=ALL\n"),
            std::string::npos)
      << r;
  EXPECT_NE(r.find("   AllocNodes=ALL Default=NO QoS=N/A\n"), std::string::npos) << r;
  EXPECT_NE(r.find("   DefaultTime=01:00:00 DisableRootJobs=NO ExclusiveUser=NO GraceTime=30 "
                   "Hidden=NO\n"),
            std::string::npos)
      << r;
  EXPECT_NE(r.find("   MaxNodes=16 MaxTime=2-00:00:00 MinNodes=0"), std::string::npos) << r;
  EXPECT_NE(r.find("   PriorityJobFactor=1 PriorityTier=5 "), std::string::npos) << r;
  EXPECT_NE(r.find("   OverTimeLimit=NONE PreemptMode=REQUEUE\n"), std::string::npos) << r;
  EXPECT_NE(r.find("   State=DOWN TotalCPUs=512 "), std::string::npos) << r;
  // 512 CPUs x 1 + 256 GB x 0.25 + 512 GPUs x 2 = 1600.
  EXPECT_NE(r.find("   TRES=cpu=512,mem=256G,node=64,billing=1600\n"
                   "   TRESBillingWeights=CPU=1.0,Mem=0.25G,GRES/gpu=2.0\n\n"),
            std::string::npos)
      << r;
}

TEST(ShowPartitionTest, ClusterPreemptModeWhenThePartitionSetsNone) {
  const std::string r = RenderPartition(RefPartition(), RefNodes(), "CANCEL", false);
  EXPECT_NE(r.find("PreemptMode=CANCEL\n"), std::string::npos) << r;
}

}  // namespace
}  // namespace canopy::ctl::scontrol
