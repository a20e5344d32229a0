// QOS and limits in the lifecycle: a job's QOS at submission, limits that make jobs wait with
// Slurm's reasons and let them go when running jobs end, jobs refused at submit because no
// limit would ever let them run, the QOS priority factor, and checks on changes to the table.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/lifecycle/policy_test_fixture.h"

namespace canopy::lifecycle {
namespace {

using core::JobReason;
using core::JobState;
using ::testing::HasSubstr;
using Ask = policy_testing::PolicyTest::Ask;

constexpr char kLimitsPolicy[] = R"yaml(
priority:
  type: priority/multifactor
  weight_qos: 1000
  weight_age: 0
  calc_period: 1
accounting:
  storage_enforce: associations,limits
)yaml";

fairshare::AssociationSpec Account(const std::string& name,
                                   std::vector<std::pair<std::string, std::string>> attrs = {}) {
  fairshare::AssociationSpec a;
  a.account = name;
  a.attributes = std::move(attrs);
  return a;
}
fairshare::AssociationSpec User(const std::string& name, const std::string& account,
                                std::vector<std::pair<std::string, std::string>> attrs = {}) {
  fairshare::AssociationSpec u = Account(account, std::move(attrs));
  u.user = name;
  return u;
}

class QosLimitsTest : public policy_testing::PolicyTest {
 protected:
  void SetUp() override {
    Start(kLimitsPolicy);
    ASSERT_TRUE(SetAssociations({Account("vision"), Account("nlp"), User("alice", "vision"),
                                 User("bob", "vision"), User("bob", "nlp")})
                    .ok());
  }
};

TEST_F(QosLimitsTest, JobsRunUnderNormalUnlessTheyAskOrTheirAssociationSaysOtherwise) {
  ASSERT_TRUE(SetQos({{"normal"}, {"high", "Priority=100"}}).ok());
  EXPECT_EQ(Job(Submit(alice_, Ask())).qos, "normal");
  EXPECT_EQ(Job(Submit(alice_, Ask().Qos("high"))).qos, "high");
  ASSERT_TRUE(SetAssociations({Account("vision", {{"QOS", "normal,high"}, {"DefaultQOS", "high"}}),
                               Account("nlp"), User("alice", "vision"), User("bob", "vision"),
                               User("bob", "nlp")})
                  .ok());
  EXPECT_EQ(Job(Submit(alice_, Ask())).qos, "high");  // inherited from the account
  absl::StatusOr<uint32_t> unknown = TrySubmit(alice_, Ask().Qos("gold"));
  EXPECT_THAT(unknown.status().message(), HasSubstr("QOS 'gold' does not exist"));
  EXPECT_THAT(unknown.status().message(),
              HasSubstr("Batch job submission failed: Invalid qos specification"));
  // nlp has no QOS list: any QOS; vision allows normal and high only.
  ASSERT_TRUE(SetQos({{"normal"}, {"high", "Priority=100"}, {"scavenger"}}).ok());
  EXPECT_THAT(TrySubmit(alice_, Ask().Qos("scavenger")).status().message(),
              HasSubstr("does not allow QOS 'scavenger'"));
  EXPECT_TRUE(TrySubmit(bob_, Ask().Qos("scavenger").Account("nlp")).ok());
}

TEST_F(QosLimitsTest, PerUserGpuLimitMakesJobsWaitUntilRunningOnesEnd) {
  ASSERT_TRUE(SetQos({{"normal", "MaxTRESPerUser=gres/gpu=4"}}).ok());
  const uint32_t a1 = Submit(alice_, Ask().Gpus(2));
  const uint32_t a2 = Submit(alice_, Ask().Gpus(2));
  const uint32_t a3 = Submit(alice_, Ask().Gpus(2));
  const uint32_t b1 = Submit(bob_, Ask().Gpus(2));
  ScheduleAndRun();
  EXPECT_EQ(Job(a1).state, JobState::kRunning);
  EXPECT_EQ(Job(a2).state, JobState::kRunning);
  EXPECT_EQ(Job(a3).state, JobState::kPending);
  EXPECT_EQ(Job(a3).reason, JobReason::kQOSMaxGRESPerUser);
  EXPECT_THAT(
      Job(a3).placement_explanation,
      HasSubstr("QOS 'normal' MaxTRESPerUser gres/gpu=4: alice's running jobs hold 4 GPUs"));
  EXPECT_EQ(Job(b1).state, JobState::kRunning);  // the limit is per user
  Report(a1, JobPhase::kExited);
  Report(a1, JobPhase::kCleanedUp);
  ScheduleAndRun();
  EXPECT_EQ(Job(a3).state, JobState::kRunning);
}

TEST_F(QosLimitsTest, JobsAndGroupLimits) {
  ASSERT_TRUE(SetQos({{"normal", "MaxJobsPerUser=1"}, {"batch", "GrpTRES=gres/gpu=3"}}).ok());
  const uint32_t a1 = Submit(alice_, Ask());
  const uint32_t a2 = Submit(alice_, Ask());
  const uint32_t g1 = Submit(alice_, Ask().Gpus(2).Qos("batch"));
  const uint32_t g2 = Submit(bob_, Ask().Gpus(2).Qos("batch"));
  ScheduleAndRun();
  EXPECT_EQ(Job(a1).state, JobState::kRunning);
  EXPECT_EQ(Job(a2).reason, JobReason::kQOSMaxJobsPerUserLimit);
  EXPECT_EQ(Job(g1).state, JobState::kRunning);
  EXPECT_EQ(Job(g2).reason, JobReason::kQOSGrpGRES);  // 2 + 2 > 3, whoever asks
}

TEST_F(QosLimitsTest, AssociationLimitsCountEveryUserUnderTheAccount) {
  ASSERT_TRUE(SetAssociations({Account("vision", {{"GrpTRES", "gres/gpu=6"}}), Account("nlp"),
                               User("alice", "vision"), User("bob", "vision", {{"MaxJobs", "1"}}),
                               User("bob", "nlp")})
                  .ok());
  const uint32_t a = Submit(alice_, Ask().Gpus(4));
  const uint32_t b1 = Submit(bob_, Ask().Gpus(1).Account("vision"));
  const uint32_t b2 = Submit(bob_, Ask().Gpus(1).Account("vision"));
  const uint32_t b3 = Submit(bob_, Ask().Gpus(4).Account("nlp"));
  ScheduleAndRun();
  EXPECT_EQ(Job(a).state, JobState::kRunning);
  EXPECT_EQ(Job(b1).state, JobState::kRunning);
  EXPECT_EQ(Job(b2).reason, JobReason::kAssocMaxJobsLimit);
  EXPECT_EQ(Job(b3).state, JobState::kRunning);  // nlp is not vision
  const uint32_t a2 = Submit(alice_, Ask().Gpus(2));
  ScheduleAndRun();
  EXPECT_EQ(Job(a2).reason, JobReason::kAssocGrpGRES);  // vision holds 5 of 6
  EXPECT_THAT(Job(a2).placement_explanation, HasSubstr("account 'vision' GrpTRES gres/gpu=6"));
}

TEST_F(QosLimitsTest, JobsThatCanNeverRunAreRefusedAtSubmit) {
  ASSERT_TRUE(SetQos({{"normal", "MaxTRESPerUser=gres/gpu=4", "MaxWall=30"}}).ok());
  absl::StatusOr<uint32_t> big = TrySubmit(alice_, Ask().Nodes(2).Gpus(4).Time(absl::Minutes(10)));
  EXPECT_EQ(big.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(big.status().message(),
              HasSubstr("QOS 'normal' MaxTRESPerUser gres/gpu=4: the job asks for 8 GPUs"));
  EXPECT_THAT(big.status().message(),
              HasSubstr("Batch job submission failed: Job violates accounting/QOS policy (job "
                        "submit limit, user's size and/or time limits)"));
  EXPECT_THAT(TrySubmit(alice_, Ask().Time(absl::Hours(1))).status().message(),
              HasSubstr("QOS 'normal' MaxWall 30:00: the job's time limit is 1:00:00"));
  EXPECT_TRUE(TrySubmit(alice_, Ask().Gpus(4).Time(absl::Minutes(30))).ok());
  // A partition that does not allow the account.
  absl::StatusOr<uint32_t> restricted =
      TrySubmit(alice_, Ask().Partition("restricted").Time(absl::Minutes(10)));
  EXPECT_THAT(restricted.status().message(),
              HasSubstr("partition restricted allows only the accounts nlp (AllowAccounts)"));
  EXPECT_THAT(restricted.status().message(),
              HasSubstr("Invalid account or account/partition combination specified"));
  EXPECT_TRUE(
      TrySubmit(bob_, Ask().Partition("restricted").Account("nlp").Time(absl::Minutes(10))).ok());
}

TEST_F(QosLimitsTest, QosPriorityIsAFactorOfMultifactor) {
  ASSERT_TRUE(SetQos({{"normal", "Priority=10"}, {"high", "Priority=100"}}).ok());
  const uint32_t n = Submit(alice_, Ask());
  const uint32_t h = Submit(alice_, Ask().Qos("high"));
  EXPECT_EQ(Job(h).priority - Job(n).priority, 900u);  // 1000 x (100 - 10) / 100
}

TEST_F(QosLimitsTest, ChangesToTheTableAreChecked) {
  EXPECT_THAT(SetQos({{"high", "Preempt=gold"}}).message(),
              HasSubstr("Preempt names QOS 'gold', which does not exist"));
  EXPECT_THAT(SetQos({{"high", "MaxTRESPerUser=gres/gpu=many"}}).message(),
              HasSubstr("MaxTRESPerUser"));
  ASSERT_TRUE(SetQos({{"high"}}).ok());
  Submit(alice_, Ask().Qos("high"));
  EXPECT_THAT(SetQos({}).message(), HasSubstr("QOS 'high' is used by job"));
  ASSERT_TRUE(SetAssociations({Account("vision", {{"QOS", "normal,high"}}), Account("nlp"),
                               User("alice", "vision"), User("bob", "vision"), User("bob", "nlp")})
                  .ok());
  EXPECT_THAT(SetAssociations({Account("vision", {{"QOS", "gold"}})}).message(),
              HasSubstr("account 'vision': QOS: QOS 'gold' does not exist"));
  Effects e;
  EXPECT_EQ(jobs_->SetQos({}, alice_, e).code(), absl::StatusCode::kPermissionDenied);
  // Without AccountingStorageEnforce=limits nothing is enforced, as in Slurm.
}

TEST(QosLimitsWithoutEnforcementTest, LimitsAreNotEnforced) {
  struct T : policy_testing::PolicyTest {
    void TestBody() override {}
  } t;
  t.Start("accounting:\n  storage_enforce: associations\n");
  ASSERT_TRUE(t.SetAssociations({Account("vision"), User("alice", "vision")}).ok());
  ASSERT_TRUE(t.SetQos({{"normal", "MaxTRESPerUser=gres/gpu=1"}}).ok());
  const uint32_t a = t.Submit(t.alice_, Ask().Gpus(4));
  t.ScheduleAndRun();
  EXPECT_EQ(t.Job(a).state, JobState::kRunning);
}

}  // namespace
}  // namespace canopy::lifecycle
