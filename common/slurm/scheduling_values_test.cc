#include "common/slurm/scheduling_values.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::slurm {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(SchedulingValuesTest, UsageResetPeriod) {
  EXPECT_EQ(*ParseUsageResetPeriod("weekly"), UsageResetPeriod::kWeekly);
  EXPECT_EQ(*ParseUsageResetPeriod("NONE"), UsageResetPeriod::kNone);
  EXPECT_THAT(ParseUsageResetPeriod("fortnightly").status().message(),
              HasSubstr("expected NONE, NOW, DAILY, WEEKLY, MONTHLY, QUARTERLY or YEARLY"));
}

TEST(SchedulingValuesTest, PriorityFlags) {
  PriorityFlags f = *ParsePriorityFlags("NO_FAIR_TREE,max_tres");
  EXPECT_TRUE(f.no_fair_tree);
  EXPECT_TRUE(f.max_tres);
  EXPECT_FALSE(ParsePriorityFlags("").value().no_fair_tree);
  EXPECT_THAT(ParsePriorityFlags("ACCRUE_ALWAYS").status().message(),
              HasSubstr("'ACCRUE_ALWAYS' is not supported"));
}

// Billing: the sum of weighted TRES per node, or with MAX_TRES the largest; GPU types may have
// their own weight; without weights a job pays one unit per GPU-second.
TEST(SchedulingValuesTest, TresBillingWeights) {
  BillingWeights none;
  EXPECT_EQ(none.NodeRate(64, 512000, 8, "h100", false), 8.0);
  BillingWeights w = *ParseTresBillingWeights("CPU=0.5,Mem=0.25G,GRES/gpu=2.0,GRES/gpu:h100=4");
  EXPECT_DOUBLE_EQ(w.mem_per_mib, 0.25 / 1024);
  EXPECT_DOUBLE_EQ(w.NodeRate(4, 2048, 2, "a100", false), 2 + 0.5 + 4);
  EXPECT_DOUBLE_EQ(w.NodeRate(4, 2048, 2, "h100", false), 2 + 0.5 + 8);
  EXPECT_DOUBLE_EQ(w.NodeRate(4, 2048, 2, "h100", true), 8);
  EXPECT_THAT(ParseTresBillingWeights("CPU=x").status().message(),
              HasSubstr("a non-negative weight for CPU"));
  EXPECT_THAT(ParseTresBillingWeights("license/matlab=1").status().message(),
              HasSubstr("not one Canopy bills"));
  EXPECT_THAT(ParseTresBillingWeights("CPU").status().message(), HasSubstr("TRES=weight"));
}

TEST(SchedulingValuesTest, TresBillingWeightsFormatReadsBack) {
  EXPECT_EQ(FormatTresBillingWeights(BillingWeights{}), "");
  const BillingWeights w = *ParseTresBillingWeights("GRES/gpu:h100=4,CPU=0.5,Mem=0.25G,GRES/gpu=2");
  EXPECT_EQ(FormatTresBillingWeights(w), "CPU=0.5,Mem=0.25G,GRES/gpu=2,GRES/gpu:h100=4");
  const BillingWeights back = *ParseTresBillingWeights(FormatTresBillingWeights(w));
  EXPECT_DOUBLE_EQ(back.mem_per_mib, w.mem_per_mib);
  EXPECT_EQ(back.gpu_by_type, w.gpu_by_type);
}

TEST(SchedulingValuesTest, SchedulerParametersKeepSlurmsDefaults) {
  SchedulerParameters d = *ParseSchedulerParameters("");
  EXPECT_EQ(d.bf_window, absl::Minutes(1440));
  EXPECT_EQ(d.bf_max_job_test, 500);
  EXPECT_EQ(d.bf_resolution, absl::Seconds(60));
  EXPECT_EQ(d.bf_interval, absl::Seconds(30));
  SchedulerParameters p =
      *ParseSchedulerParameters("bf_window=2880,bf_continue,bf_max_job_test=100,bf_interval=60");
  EXPECT_EQ(p.bf_window, absl::Minutes(2880));
  EXPECT_EQ(p.bf_max_job_test, 100);
  EXPECT_EQ(p.bf_interval, absl::Seconds(60));
  EXPECT_THAT(p.other, ElementsAre("bf_continue"));
  EXPECT_THAT(ParseSchedulerParameters("bf_window=0").status().message(),
              HasSubstr("bf_window: expected a positive number of minutes"));
}

TEST(SchedulingValuesTest, DependencyParameters) {
  EXPECT_FALSE(ParseDependencyParameters("").value().kill_invalid_depend);
  DependencyParameters p = *ParseDependencyParameters("max_depend_depth=3,KILL_INVALID_DEPEND");
  EXPECT_TRUE(p.kill_invalid_depend);
  EXPECT_THAT(p.other, ElementsAre("max_depend_depth=3"));
}

TEST(SchedulingValuesTest, AccountingEnforce) {
  AccountingEnforce e = *ParseAccountingEnforce("limits,qos");
  EXPECT_TRUE(e.associations);  // implied
  EXPECT_TRUE(e.limits);
  EXPECT_TRUE(e.qos);
  EXPECT_FALSE(ParseAccountingEnforce("").value().associations);
  EXPECT_TRUE(ParseAccountingEnforce("nojobs,wckeys").ok());
  EXPECT_THAT(ParseAccountingEnforce("assocs").status().message(),
              HasSubstr("expected associations, limits"));
}

}  // namespace
}  // namespace canopy::slurm
