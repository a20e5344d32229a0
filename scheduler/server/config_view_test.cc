#include "scheduler/server/config_view.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::server {
namespace {

std::map<std::string, std::string> Entries(const std::string& slurm_conf) {
  absl::StatusOr<config::ClusterConfig> c =
      config::ParseSlurmConf(slurm_conf, "slurm.conf", /*read_topology=*/false);
  EXPECT_TRUE(c.ok()) << c.status();
  c->path = "/etc/slurm/slurm.conf";
  const ConfigFacts facts{
      .boot_time = absl::FromUnixSeconds(0), .next_job_id = 42, .version = "0.1.0"};
  std::map<std::string, std::string> out;
  for (auto& [k, v] : ConfigEntries(*c, facts)) {
    EXPECT_TRUE(out.emplace(k, v).second) << "listed twice: " << k;
  }
  return out;
}

constexpr char kNodes[] =
    "SlurmctldHost=head(10.0.0.1)\n"
    "NodeName=gpu[001-004] CPUs=8 RealMemory=4096 Gres=gpu:8\n"
    "PartitionName=gpu Nodes=ALL Default=YES\n";

TEST(ConfigViewTest, SlurmsDefaultsInScontrolsWords) {
  std::map<std::string, std::string> e = Entries(kNodes);
  EXPECT_EQ(e["MinJobAge"], "300 sec");
  EXPECT_EQ(e["KillWait"], "30 sec");
  EXPECT_EQ(e["MaxArraySize"], "1001");
  EXPECT_EQ(e["MaxJobCount"], "10000");
  EXPECT_EQ(e["BatchStartTimeout"], "10 sec");
  EXPECT_EQ(e["SlurmdTimeout"], "300 sec");
  EXPECT_EQ(e["SchedulerType"], "sched/backfill");
  EXPECT_EQ(e["SchedulerParameters"], "(null)");
  EXPECT_EQ(e["PriorityType"], "priority/basic");
  EXPECT_EQ(e["PriorityDecayHalfLife"], "7-00:00:00");
  EXPECT_EQ(e["PriorityCalcPeriod"], "00:05:00");
  EXPECT_EQ(e["PreemptType"], "preempt/none");
  EXPECT_EQ(e["PreemptMode"], "OFF");
  EXPECT_EQ(e["AccountingStorageEnforce"], "none");
  EXPECT_EQ(e["PrivateData"], "none");
  EXPECT_EQ(e["TopologyPlugin"], "topology/none");
  EXPECT_EQ(e["SlurmctldHost[0]"], "10.0.0.1");
  EXPECT_EQ(e["SlurmctldPort"], "6817");
  EXPECT_EQ(e["NEXT_JOB_ID"], "42");
  EXPECT_EQ(e["SLURM_CONF"], "/etc/slurm/slurm.conf");
  EXPECT_EQ(e["SLURM_VERSION"], "0.1.0");
}

TEST(ConfigViewTest, ConfiguredValuesComeBack) {
  std::map<std::string, std::string> e = Entries(
      absl::StrCat(kNodes,
                   "ClusterName=anchor\nMinJobAge=60\nKillWait=5\nSchedulerType=sched/builtin\n"
                   "SchedulerParameters=bf_window=60,bf_continue,max_script_size=1048576\n"
                   "MaxJobCount=20000\nMaxArraySize=50\nPriorityType=priority/multifactor\n"
                   "PriorityWeightFairshare=10000\nPriorityDecayHalfLife=1-12:00:00\n"
                   "PriorityFlags=MAX_TRES\nAccountingStorageEnforce=limits\nPrivateData=jobs\n"
                   "PreemptType=preempt/qos\nPreemptMode=REQUEUE\n"
                   "DependencyParameters=kill_invalid_depend\n"));
  EXPECT_EQ(e["ClusterName"], "anchor");
  EXPECT_EQ(e["MinJobAge"], "60 sec");
  EXPECT_EQ(e["KillWait"], "5 sec");
  EXPECT_EQ(e["SchedulerType"], "sched/builtin");
  EXPECT_EQ(e["SchedulerParameters"], "bf_window=60,max_script_size=1048576,bf_continue");
  EXPECT_EQ(e["MaxJobCount"], "20000");
  EXPECT_EQ(e["MaxArraySize"], "50");
  EXPECT_EQ(e["PriorityType"], "priority/multifactor");
  EXPECT_EQ(e["PriorityWeightFairShare"], "10000");
  EXPECT_EQ(e["PriorityDecayHalfLife"], "1-12:00:00");
  EXPECT_EQ(e["PriorityFlags"], "MAX_TRES");
  EXPECT_EQ(e["AccountingStorageEnforce"], "associations,limits");
  EXPECT_EQ(e["PrivateData"], "jobs");
  EXPECT_EQ(e["PreemptType"], "preempt/qos");
  EXPECT_EQ(e["PreemptMode"], "REQUEUE");
  EXPECT_EQ(e["DependencyParameters"], "kill_invalid_depend");
}

}  // namespace
}  // namespace canopy::server
