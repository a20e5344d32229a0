// The scheduling policy through both front doors: every key set the same way from slurm.conf and
// from YAML, the same values refused with the same message, partition keys, and the accounts a
// YAML config seeds.
#include "common/config/scheduling_policy.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/config/cluster_config.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using Record = slurm::FlatFileRecord;

absl::StatusOr<ClusterConfig> FromSlurm(const std::string& lines) {
  return ParseSlurmConf(absl::StrCat(lines, "\nNodeName=n1 CPUs=4\n"), "slurm.conf", false);
}
absl::StatusOr<ClusterConfig> FromYaml(const std::string& text) {
  return ParseCanopyYaml(absl::StrCat(text, "\nnodes:\n  - names: n1\n"), "canopy.yaml", false);
}

TEST(SchedulingPolicyTest, DefaultsAreSlurms) {
  absl::StatusOr<ClusterConfig> config = FromSlurm("");
  ASSERT_TRUE(config.ok()) << config.status();
  const SchedulingPolicy& p = config->scheduling;
  EXPECT_FALSE(p.priority.multifactor);
  EXPECT_EQ(p.priority.weight_fairshare, 0u);
  EXPECT_EQ(p.priority.max_age, absl::Hours(24 * 7));
  EXPECT_EQ(p.priority.decay_half_life, absl::Hours(24 * 7));
  EXPECT_EQ(p.priority.calc_period, absl::Minutes(5));
  EXPECT_EQ(p.priority.usage_reset_period, slurm::UsageResetPeriod::kNone);
  EXPECT_EQ(p.priority.fairshare_dampening_factor, 1);
  EXPECT_TRUE(p.scheduler.backfill);
  EXPECT_EQ(p.scheduler.parameters.bf_window, absl::Minutes(1440));
  EXPECT_FALSE(p.scheduler.kill_invalid_depend());
  EXPECT_FALSE(p.accounting.enforce.associations);
  EXPECT_TRUE(p.accounting.accounts.empty());
  EXPECT_TRUE(SchedulingPolicyWarnings(p).empty());
}

// kill_invalid_depend still counts in SchedulerParameters, where Slurm kept it before 20.11.
TEST(SchedulingPolicyTest, KillInvalidDependInSchedulerParameters) {
  absl::StatusOr<ClusterConfig> config = FromSlurm("SchedulerParameters=kill_invalid_depend");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_TRUE(config->scheduling.scheduler.kill_invalid_depend());
}

// The same policy written both ways gives the same values.
TEST(SchedulingPolicyTest, BothFormatsSetTheSameValues) {
  absl::StatusOr<ClusterConfig> slurm = FromSlurm(R"(PriorityType=priority/multifactor
PriorityWeightAge=1000
PriorityWeightFairshare=10000
PriorityWeightJobSize=500
PriorityWeightPartition=2000
PriorityWeightQOS=3000
PriorityMaxAge=14-0
PriorityFavorSmall=YES
PriorityDecayHalfLife=1-12:00:00
PriorityUsageResetPeriod=MONTHLY
PriorityCalcPeriod=1
PriorityFlags=NO_FAIR_TREE,MAX_TRES
FairShareDampeningFactor=4
SchedulerType=sched/builtin
SchedulerParameters=bf_window=2880,bf_max_job_test=100,bf_continue
DependencyParameters=kill_invalid_depend,max_depend_depth=5
AccountingStorageEnforce=associations,limits)");
  absl::StatusOr<ClusterConfig> yaml = FromYaml(R"(priority:
  type: priority/multifactor
  weight_age: 1000
  weight_fairshare: 10000
  weight_job_size: 500
  weight_partition: 2000
  weight_qos: 3000
  max_age: 14-0
  favor_small: yes
  decay_half_life: "1-12:00:00"
  usage_reset_period: monthly
  calc_period: 1
  flags: [NO_FAIR_TREE, MAX_TRES]
fairshare_dampening_factor: 4
scheduler:
  type: builtin
  parameters: {bf_window: 2880, bf_max_job_test: 100, bf_continue: }
  dependency_parameters: [kill_invalid_depend, max_depend_depth=5]
accounting:
  storage_enforce: associations,limits)");
  ASSERT_TRUE(slurm.ok()) << slurm.status();
  ASSERT_TRUE(yaml.ok()) << yaml.status();
  for (const ClusterConfig* c : {&*slurm, &*yaml}) {
    SCOPED_TRACE(c->path);
    const PriorityConfig& p = c->scheduling.priority;
    EXPECT_TRUE(p.multifactor);
    EXPECT_EQ(p.weight_age, 1000u);
    EXPECT_EQ(p.weight_fairshare, 10000u);
    EXPECT_EQ(p.weight_job_size, 500u);
    EXPECT_EQ(p.weight_partition, 2000u);
    EXPECT_EQ(p.weight_qos, 3000u);
    EXPECT_EQ(p.max_age, absl::Hours(24 * 14));
    EXPECT_TRUE(p.favor_small);
    EXPECT_EQ(p.decay_half_life, absl::Hours(36));
    EXPECT_EQ(p.usage_reset_period, slurm::UsageResetPeriod::kMonthly);
    EXPECT_EQ(p.calc_period, absl::Minutes(1));
    EXPECT_TRUE(p.flags.no_fair_tree);
    EXPECT_TRUE(p.flags.max_tres);
    EXPECT_EQ(p.fairshare_dampening_factor, 4);
    EXPECT_FALSE(c->scheduling.scheduler.backfill);
    EXPECT_EQ(c->scheduling.scheduler.parameters.bf_window, absl::Minutes(2880));
    EXPECT_EQ(c->scheduling.scheduler.parameters.bf_max_job_test, 100);
    EXPECT_THAT(c->scheduling.scheduler.parameters.other, ElementsAre("bf_continue"));
    EXPECT_TRUE(c->scheduling.scheduler.kill_invalid_depend());
    EXPECT_THAT(c->scheduling.scheduler.dependency.other, ElementsAre("max_depend_depth=5"));
    EXPECT_TRUE(c->scheduling.accounting.enforce.associations);
    EXPECT_TRUE(c->scheduling.accounting.enforce.limits);
    EXPECT_THAT(c->unused_keys, IsEmpty());
  }
}

struct BadValue {
  std::string slurm_line;
  std::string yaml;
  std::string slurm_error;  // the whole message
  std::string yaml_error;
};

class BadValueTest : public ::testing::TestWithParam<BadValue> {};

// Each front door refuses the value, naming the place and the field its own way, with the same
// explanation.
TEST_P(BadValueTest, RefusedByBothFormats) {
  const BadValue& c = GetParam();
  absl::StatusOr<ClusterConfig> slurm = FromSlurm(c.slurm_line);
  absl::StatusOr<ClusterConfig> yaml = FromYaml(c.yaml);
  ASSERT_FALSE(slurm.ok());
  ASSERT_FALSE(yaml.ok());
  EXPECT_EQ(slurm.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(yaml.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(slurm.status().message(), c.slurm_error);
  EXPECT_EQ(yaml.status().message(), c.yaml_error);
}

INSTANTIATE_TEST_SUITE_P(
    Keys, BadValueTest,
    ::testing::Values(
        BadValue{"PriorityType=priority/fancy", "priority:\n  type: fancy",
                 "slurm.conf:1: PriorityType: expected priority/basic or priority/multifactor, "
                 "got 'priority/fancy'",
                 "canopy.yaml:2: priority.type: expected priority/basic or priority/multifactor, "
                 "got \"fancy\""},
        BadValue{"PriorityWeightFairshare=-5", "priority:\n  weight_fairshare: -5",
                 "slurm.conf:1: PriorityWeightFairshare: expected a weight from 0 to 4294967295, "
                 "got '-5'",
                 "canopy.yaml:2: priority.weight_fairshare: expected a weight from 0 to "
                 "4294967295, got \"-5\""},
        BadValue{"PriorityWeightAge=4294967296", "priority: {weight_age: 4294967296}",
                 "slurm.conf:1: PriorityWeightAge: expected a weight from 0 to 4294967295, got "
                 "'4294967296'",
                 "canopy.yaml:1: priority.weight_age: expected a weight from 0 to 4294967295, got "
                 "\"4294967296\""},
        BadValue{"PriorityMaxAge=0", "priority: {max_age: 0}",
                 "slurm.conf:1: PriorityMaxAge: expected a positive time such as 7-0 "
                 "(days-hours), 14-00:00:00 or minutes, got '0'",
                 "canopy.yaml:1: priority.max_age: expected a positive time such as 7-0 "
                 "(days-hours), 14-00:00:00 or minutes, got \"0\""},
        BadValue{"PriorityDecayHalfLife=soon", "priority: {decay_half_life: soon}",
                 "slurm.conf:1: PriorityDecayHalfLife: expected a time such as 7-0 (days-hours), "
                 "14-00:00:00 or minutes; 0 = none, got 'soon'",
                 "canopy.yaml:1: priority.decay_half_life: expected a time such as 7-0 "
                 "(days-hours), 14-00:00:00 or minutes; 0 = none, got \"soon\""},
        BadValue{"PriorityFavorSmall=maybe", "priority: {favor_small: maybe}",
                 "slurm.conf:1: PriorityFavorSmall: expected YES or NO, got 'maybe'",
                 "canopy.yaml:1: priority.favor_small: expected YES or NO, got \"maybe\""},
        BadValue{"PriorityUsageResetPeriod=FORTNIGHTLY",
                 "priority: {usage_reset_period: FORTNIGHTLY}",
                 "slurm.conf:1: PriorityUsageResetPeriod: expected NONE, NOW, DAILY, WEEKLY, "
                 "MONTHLY, QUARTERLY or YEARLY, got 'FORTNIGHTLY'",
                 "canopy.yaml:1: priority.usage_reset_period: expected NONE, NOW, DAILY, WEEKLY, "
                 "MONTHLY, QUARTERLY or YEARLY, got 'FORTNIGHTLY'"},
        BadValue{"FairShareDampeningFactor=0", "fairshare_dampening_factor: 0",
                 "slurm.conf:1: FairShareDampeningFactor: expected a factor from 1 to 65535, got "
                 "'0'",
                 "canopy.yaml:1: fairshare_dampening_factor: expected a factor from 1 to 65535, "
                 "got \"0\""},
        BadValue{"SchedulerType=sched/gang", "scheduler: {type: sched/gang}",
                 "slurm.conf:1: SchedulerType: expected sched/backfill or sched/builtin, got "
                 "'sched/gang'",
                 "canopy.yaml:1: scheduler.type: expected sched/backfill or sched/builtin, got "
                 "\"sched/gang\""}));

TEST(SchedulingPolicyTest, PartitionKeysInBothFormats) {
  absl::StatusOr<ClusterConfig> slurm = FromSlurm(
      "PartitionName=DEFAULT PriorityTier=5\n"
      "PartitionName=a Nodes=ALL TRESBillingWeights=CPU=0.5,GRES/gpu=4 PriorityJobFactor=10\n"
      "PartitionName=b Nodes=ALL PriorityTier=2\n");
  absl::StatusOr<ClusterConfig> yaml = FromYaml(R"(partitions:
  - {name: a, nodes: ALL, tres_billing_weights: "CPU=0.5,GRES/gpu=4", priority_job_factor: 10,
     priority_tier: 5}
  - {name: b, nodes: ALL, priority_tier: 2})");
  ASSERT_TRUE(slurm.ok()) << slurm.status();
  ASSERT_TRUE(yaml.ok()) << yaml.status();
  for (const ClusterConfig* c : {&*slurm, &*yaml}) {
    SCOPED_TRACE(c->path);
    ASSERT_EQ(c->partitions.size(), 2u);
    const PartitionPolicy& a = c->partitions[0].policy;
    EXPECT_TRUE(a.billing.set);
    EXPECT_DOUBLE_EQ(a.billing.cpu, 0.5);
    EXPECT_DOUBLE_EQ(a.billing.gpu, 4);
    EXPECT_EQ(a.priority_job_factor, 10u);
    EXPECT_EQ(a.priority_tier, 5u);
    const PartitionPolicy& b = c->partitions[1].policy;
    EXPECT_FALSE(b.billing.set);
    EXPECT_EQ(b.priority_job_factor, 1u);
    EXPECT_EQ(b.priority_tier, 2u);
  }
  EXPECT_THAT(
      FromSlurm("PartitionName=a Nodes=ALL PriorityTier=70000").status().message(),
      "slurm.conf:1: PartitionName=a: PriorityTier: expected an integer from 0 to 65533, got "
      "'70000'");
  EXPECT_THAT(FromYaml("partitions:\n  - {name: a, priority_tier: 70000}").status().message(),
              "canopy.yaml:2: partitions[0].priority_tier: expected an integer from 0 to 65533, "
              "got \"70000\"");
  EXPECT_THAT(FromYaml("partitions:\n  - {name: a, tres_billing_weights: \"Licenses=2\"}")
                  .status()
                  .message(),
              HasSubstr("partitions[0].tres_billing_weights: TRES 'Licenses' is not one Canopy "
                        "bills"));
}

TEST(SchedulingPolicyTest, PreemptionAndPartitionAccessInBothFormats) {
  absl::StatusOr<ClusterConfig> slurm = FromSlurm(
      "PreemptType=preempt/partition_prio\nPreemptMode=REQUEUE\n"
      "PartitionName=a Nodes=ALL AllowAccounts=vision,nlp PreemptMode=CANCEL GraceTime=60\n"
      "PartitionName=b Nodes=ALL AllowAccounts=ALL\n");
  absl::StatusOr<ClusterConfig> yaml = FromYaml(R"(preempt:
  type: preempt/partition_prio
  mode: REQUEUE
partitions:
  - {name: a, nodes: ALL, allow_accounts: [vision, nlp], preempt_mode: CANCEL, grace_time: 60}
  - {name: b, nodes: ALL})");
  ASSERT_TRUE(slurm.ok()) << slurm.status();
  ASSERT_TRUE(yaml.ok()) << yaml.status();
  for (const ClusterConfig* c : {&*slurm, &*yaml}) {
    SCOPED_TRACE(c->path);
    EXPECT_EQ(c->scheduling.preempt.type, slurm::PreemptType::kPartitionPrio);
    EXPECT_EQ(c->scheduling.preempt.mode, slurm::PreemptMode::kRequeue);
    const PartitionPolicy& a = c->partitions[0].policy;
    EXPECT_THAT(a.allow_accounts, ElementsAre("vision", "nlp"));
    EXPECT_EQ(a.preempt_mode, slurm::PreemptMode::kCancel);
    EXPECT_EQ(a.grace_time, absl::Seconds(60));
    EXPECT_THAT(c->partitions[1].policy.allow_accounts, IsEmpty());
    EXPECT_EQ(c->partitions[1].policy.preempt_mode, slurm::PreemptMode::kCluster);
  }
  EXPECT_EQ(FromSlurm("").value().scheduling.preempt.mode, slurm::PreemptMode::kOff);
  EXPECT_EQ(FromSlurm("PreemptMode=SUSPEND,GANG").status().message(),
            "slurm.conf:1: PreemptMode: PreemptMode 'SUSPEND,GANG' needs suspended jobs, which "
            "Canopy does not have; use OFF, CANCEL or REQUEUE");
  EXPECT_THAT(FromYaml("preempt:\n  type: preempt/fifo").status().message(),
              HasSubstr("preempt.type: expected preempt/none, preempt/qos or "
                        "preempt/partition_prio, got 'preempt/fifo'"));
  EXPECT_THAT(FromSlurm("PartitionName=a Nodes=ALL GraceTime=soon").status().message(),
              HasSubstr("GraceTime: expected a number of seconds, got 'soon'"));
}

TEST(SchedulingPolicyTest, PrivateDataInBothFormatsAndPurgeInYaml) {
  absl::StatusOr<ClusterConfig> slurm = FromSlurm("PrivateData=Jobs,usage\n");
  absl::StatusOr<ClusterConfig> yaml =
      FromYaml("accounting:\n  private_data: jobs,usage\n  purge_job_after: 12months\n");
  ASSERT_TRUE(slurm.ok()) << slurm.status();
  ASSERT_TRUE(yaml.ok()) << yaml.status();
  for (const ClusterConfig* c : {&*slurm, &*yaml}) {
    SCOPED_TRACE(c->path);
    EXPECT_THAT(c->scheduling.accounting.private_data, ElementsAre("jobs", "usage"));
    EXPECT_TRUE(c->scheduling.accounting.private_jobs());
  }
  EXPECT_FALSE(FromSlurm("").value().scheduling.accounting.private_jobs());
  EXPECT_EQ(slurm->scheduling.accounting.purge_job_after, absl::InfiniteDuration());
  EXPECT_EQ(yaml->scheduling.accounting.purge_job_after, absl::Hours(24 * 30 * 12));
  EXPECT_EQ(FromYaml("accounting:\n  purge_job_after: 30days\n")
                .value()
                .scheduling.accounting.purge_job_after,
            absl::Hours(24 * 30));
  EXPECT_EQ(FromYaml("accounting:\n  purge_job_after: 48hours\n")
                .value()
                .scheduling.accounting.purge_job_after,
            absl::Hours(48));
  EXPECT_THAT(FromSlurm("PrivateData=jobs,secrets").status().message(),
              HasSubstr("PrivateData: expected a comma-separated list of accounts, cloud, events, "
                        "jobs, nodes, partitions, reservations, usage, users, got 'jobs,secrets'"));
  EXPECT_THAT(FromYaml("accounting:\n  purge_job_after: 0days\n").status().message(),
              HasSubstr("expected a positive time such as 12months, 30days or 48hours"));
  EXPECT_THAT(FromYaml("accounting:\n  purge_job_after: 3weeks\n").status().message(),
              HasSubstr("got \"3weeks\""));
}

TEST(SchedulingPolicyTest, YamlAccountsTakeLimitsAsSacctmgrOptions) {
  absl::StatusOr<ClusterConfig> config = FromYaml(R"(accounts:
  - name: vision
    grp_tres: gres/gpu=64
    qos: [normal, high]
    default_qos: normal
    users:
      - {name: alice, max_jobs: 4, max_wall: "2:00:00"}
)");
  ASSERT_TRUE(config.ok()) << config.status();
  std::vector<std::string> lines;
  for (const Record& r : config->scheduling.accounting.accounts) {
    lines.push_back(slurm::FormatFlatFileRecord(r));
  }
  EXPECT_THAT(lines,
              ElementsAre("Parent - 'root'",
                          "Account - 'vision':GrpTRES='gres/gpu=64':QOS='normal,high':"
                          "DefaultQOS='normal'",
                          "Parent - 'vision'", "User - 'alice':MaxJobs=4:MaxWall='2:00:00'"));
}

TEST(SchedulingPolicyTest, YamlAccountsBecomeFlatFileRecords) {
  absl::StatusOr<ClusterConfig> config = FromYaml(R"(accounts:
  - name: research
    fairshare: 100
    description: all research
  - name: vision
    parent: research
    fairshare: 70
    users:
      - alice
      - {name: bob, fairshare: 2, default_account: vision}
  - name: nlp
    parent: research
    fairshare: parent
)");
  ASSERT_TRUE(config.ok()) << config.status();
  const AccountingConfig& a = config->scheduling.accounting;
  EXPECT_EQ(a.accounts_origin, "canopy.yaml");
  std::vector<std::string> lines;
  for (const Record& r : a.accounts) {
    lines.push_back(slurm::FormatFlatFileRecord(r));
  }
  EXPECT_THAT(lines, ElementsAre("Parent - 'root'",
                                 "Account - 'research':Fairshare=100:Description='all research'",
                                 "Parent - 'research'", "Account - 'vision':Fairshare=70",
                                 "Parent - 'vision'", "User - 'alice'",
                                 "User - 'bob':Fairshare=2:DefaultAccount='vision'",
                                 "Parent - 'research'", "Account - 'nlp':Fairshare='parent'"));
  EXPECT_EQ(a.accounts[1].line, 2);

  EXPECT_EQ(FromYaml("accounts:\n  - {fairshare: 3}").status().message(),
            "canopy.yaml:2: accounts[0]: name: required (an account name such as vision)");
  EXPECT_EQ(FromYaml("accounts:\n  - {name: a, fairshare: lots}").status().message(),
            "canopy.yaml:2: accounts[0].fairshare: expected a number of shares (0 or more) or "
            "parent, got \"lots\"");
  EXPECT_EQ(FromYaml("accounts:\n  - {name: a, users: [{fairshare: 1}]}").status().message(),
            "canopy.yaml:2: accounts[0].users[0]: name: required (a user name)");
}

TEST(SchedulingPolicyTest, AccountsFileIsASacctmgrDump) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / absl::StrCat("canopy-accounts-", getpid());
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir / "accounts.cfg") << "Cluster - 'c':Fairshare=1\nParent - 'root'\n"
                                           "Account - 'vision':Fairshare=70\n";
    std::ofstream(dir / "canopy.yaml") << "accounts_file: accounts.cfg\nnodes:\n  - names: n1\n";
    std::ofstream(dir / "both.yaml")
        << "accounts_file: accounts.cfg\naccounts: []\nnodes:\n  - names: n1\n";
    std::ofstream(dir / "missing.yaml") << "accounts_file: nope.cfg\nnodes:\n  - names: n1\n";
  }
  absl::StatusOr<ClusterConfig> config = LoadClusterConfig((dir / "canopy.yaml").string());
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->scheduling.accounting.accounts_origin, (dir / "accounts.cfg").string());
  ASSERT_EQ(config->scheduling.accounting.accounts.size(), 3u);
  EXPECT_EQ(config->scheduling.accounting.accounts[2].name, "vision");

  absl::StatusOr<ClusterConfig> both = LoadClusterConfig((dir / "both.yaml").string());
  EXPECT_THAT(both.status().message(),
              HasSubstr("both.yaml:2: accounts: give either accounts (inline) or accounts_file"));
  absl::StatusOr<ClusterConfig> missing = LoadClusterConfig((dir / "missing.yaml").string());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("missing.yaml:1: accounts_file: "));
  std::filesystem::remove_all(dir);
}

// The example under "Scheduling policy" in docs/formats/config.md loads as it says.
TEST(SchedulingPolicyTest, DocumentedExampleLoads) {
  std::ifstream in(absl::StrCat(CANOPY_SOURCE_DIR, "/docs/formats/config.md"));
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t section = doc.find("### Scheduling policy");
  ASSERT_NE(section, std::string::npos);
  const size_t start = doc.find("```yaml\n", section);
  ASSERT_NE(start, std::string::npos);
  const size_t end = doc.find("```", start + 8);
  absl::StatusOr<ClusterConfig> config = FromYaml(doc.substr(start + 8, end - start - 8));
  ASSERT_TRUE(config.ok()) << config.status();
  const SchedulingPolicy& p = config->scheduling;
  EXPECT_TRUE(p.priority.multifactor);
  EXPECT_EQ(p.priority.weight_fairshare, 10000u);
  EXPECT_TRUE(p.scheduler.backfill);
  EXPECT_TRUE(p.accounting.enforce.associations);
  EXPECT_EQ(p.accounting.accounts.size(), 9u);  // Parent, Account, Parent, users, for each
  EXPECT_THAT(config->unused_keys, IsEmpty());
}

TEST(SchedulingPolicyTest, WarnsWhenUsageIsNeverForgotten) {
  absl::StatusOr<ClusterConfig> config = FromSlurm(
      "PriorityType=priority/multifactor\nPriorityDecayHalfLife=0\nPriorityWeightFairshare=1");
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->scheduling.priority.decay_half_life, absl::ZeroDuration());
  EXPECT_THAT(SchedulingPolicyWarnings(config->scheduling),
              ElementsAre(HasSubstr("usage is never forgotten")));
}

}  // namespace
}  // namespace canopy::config
