#include "scheduler/limits/qos.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::limits {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

QosSpec Spec(const std::string& name, std::vector<std::pair<std::string, std::string>> options) {
  QosSpec spec;
  spec.name = name;
  for (const auto& [k, v] : options) {
    EXPECT_TRUE(ApplyQosOption(k, v, spec).ok()) << k << "=" << v;
  }
  return spec;
}

TEST(QosOptionTest, SacctmgrWordsSetTheSpecAndComeBack) {
  QosSpec s = Spec("high", {{"Priority", "100"},
                            {"MaxTRESPU", "gres/gpu=64"},
                            {"maxjobsperuser", "4"},
                            {"GrpTRES", "gres/gpu=128,cpu=1000"},
                            {"MaxWall", "1-00:00:00"},
                            {"Preempt", "scavenger,normal"},
                            {"PreemptMode", "requeue"},
                            {"GraceTime", "120"},
                            {"Description", "daytime inference"}});
  EXPECT_EQ(s.priority, 100u);
  EXPECT_EQ(s.max_tres_per_user.gpus, 64);
  EXPECT_EQ(s.max_jobs_per_user, 4);
  EXPECT_EQ(s.grp_tres.cpus, 1000);
  EXPECT_EQ(s.max_wall, absl::Hours(24));
  EXPECT_THAT(s.preempt, ElementsAre("normal", "scavenger"));
  EXPECT_EQ(s.preempt_mode, slurm::PreemptMode::kRequeue);
  EXPECT_EQ(s.grace_time, absl::Seconds(120));
  EXPECT_THAT(QosOptions(s),
              ElementsAre(Pair("Description", "daytime inference"), Pair("Priority", "100"),
                          Pair("GraceTime", "120"), Pair("GrpTRES", "cpu=1000,gres/gpu=128"),
                          Pair("MaxJobsPerUser", "4"), Pair("MaxTRESPerUser", "gres/gpu=64"),
                          Pair("MaxWall", "1-00:00:00"), Pair("Preempt", "normal,scavenger"),
                          Pair("PreemptMode", "REQUEUE")));
  // The options rebuild the same spec.
  QosSpec again;
  again.name = "high";
  for (const auto& [k, v] : QosOptions(s)) {
    ASSERT_TRUE(ApplyQosOption(k, v, again).ok()) << k;
  }
  EXPECT_EQ(again, s);
}

TEST(QosOptionTest, PreemptListsAddRemoveAndClear) {
  QosSpec s = Spec("high", {{"Preempt", "a,b"}});
  ASSERT_TRUE(ApplyQosOption("Preempt", "+c,-a", s).ok());
  EXPECT_THAT(s.preempt, ElementsAre("b", "c"));
  ASSERT_TRUE(ApplyQosOption("Preempt", "''", s).ok());
  EXPECT_TRUE(s.preempt.empty());
  ASSERT_TRUE(ApplyQosOption("MaxWall", "-1", s).ok());
  EXPECT_EQ(s.max_wall, absl::InfiniteDuration());
}

TEST(QosOptionTest, BadValuesNameTheOption) {
  QosSpec s;
  EXPECT_EQ(ApplyQosOption("Priority", "high", s).message(),
            "Priority: expected a priority from 0 to 4294967295, got 'high'");
  EXPECT_EQ(ApplyQosOption("MaxJobsPU", "x", s).message(),
            "MaxJobsPU: expected a count, or -1 to clear the limit, got 'x'");
  EXPECT_EQ(ApplyQosOption("GraceTime", "-5", s).message(),
            "GraceTime: expected a number of seconds, got '-5'");
  EXPECT_EQ(ApplyQosOption("MaxWall", "soon", s).message(),
            "MaxWall: expected a time limit such as 60, 4:00:00 or 2-00:00:00 (-1 clears it), got "
            "'soon'");
  EXPECT_EQ(ApplyQosOption("Flags", "DenyOnLimit", s).message(),
            "unknown QOS option 'Flags' (expected Description, Priority, MaxTRESPerUser, "
            "MaxTRESPerJob, GrpTRES, MaxJobsPerUser, GrpJobs, MaxWall, Preempt, PreemptMode or "
            "GraceTime)");
  EXPECT_FALSE(ApplyQosOption("PreemptMode", "suspend", s).ok());
  EXPECT_FALSE(ApplyQosOption("GrpTRES", "gres/gpu", s).ok());
}

TEST(QosTableTest, NormalAlwaysExistsAndPreemptMustNameRealQos) {
  QosTable t;
  ASSERT_NE(t.Find("normal"), nullptr);
  EXPECT_EQ(t.max_priority(), 0u);
  absl::StatusOr<QosTable> built =
      QosTable::Build({Spec("high", {{"Priority", "50"}, {"Preempt", "normal"}})});
  ASSERT_TRUE(built.ok()) << built.status();
  EXPECT_EQ(built->specs().front().name, "normal");
  EXPECT_EQ(built->max_priority(), 50u);
  EXPECT_TRUE(built->MayPreempt("high", "normal"));
  EXPECT_FALSE(built->MayPreempt("normal", "high"));
  EXPECT_FALSE(built->MayPreempt("gold", "normal"));
  EXPECT_EQ(QosTable::Build({Spec("high", {{"Preempt", "gold"}})}).status().message(),
            "QOS 'high': Preempt names QOS 'gold', which does not exist");
  EXPECT_EQ(QosTable::Build({Spec("high", {{"Preempt", "high"}})}).status().message(),
            "QOS 'high': Preempt may not name the QOS itself");
  EXPECT_EQ(QosTable::Build({Spec("a", {}), Spec("a", {})}).status().message(),
            "QOS 'a' is given twice");
  EXPECT_FALSE(QosTable::Build({Spec("two words", {})}).ok());
}

}  // namespace
}  // namespace canopy::limits
