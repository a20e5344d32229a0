#include "common/slurm/limit_values.h"

#include "gtest/gtest.h"

namespace canopy::slurm {
namespace {

TEST(TresLimitsTest, ParsesSlurmItemsAndUnits) {
  absl::StatusOr<TresLimits> t = ParseTresLimits("gres/gpu=64, CPU=512,node=8,mem=2G");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->gpus, 64);
  EXPECT_EQ(t->cpus, 512);
  EXPECT_EQ(t->nodes, 8);
  EXPECT_EQ(t->mem_mib, 2048);
  EXPECT_EQ(FormatTresLimits(*t), "cpu=512,mem=2048M,node=8,gres/gpu=64");
  EXPECT_EQ(ParseTresLimits("mem=1500K")->mem_mib, 2);  // KiB round up
  EXPECT_TRUE(ParseTresLimits("")->empty());
  EXPECT_EQ(FormatTresLimits({}), "");
}

TEST(TresLimitsTest, ItemsChangeOnlyWhatTheyNameAndMinusOneClears) {
  TresLimits base = *ParseTresLimits("gres/gpu=64,cpu=10");
  TresLimits t = *ParseTresLimits("gres/gpu=-1,node=2", base);
  EXPECT_EQ(t.gpus, -1);
  EXPECT_EQ(t.cpus, 10);
  EXPECT_EQ(t.nodes, 2);
}

TEST(TresLimitsTest, BadItemsSayWhatWasExpected) {
  EXPECT_EQ(ParseTresLimits("gpu").status().message(),
            "expected TRES=COUNT items such as gres/gpu=64,cpu=512, got 'gpu'");
  EXPECT_EQ(ParseTresLimits("gres/gpu=lots").status().message(),
            "expected a count (or -1 to clear the limit) for gres/gpu, got 'lots'");
  EXPECT_EQ(ParseTresLimits("gres/gpu:h100=4").status().message(),
            "TRES 'gres/gpu:h100' is not one Canopy limits (cpu, mem, node, gres/gpu; GPU limits "
            "count every GPU type together)");
  EXPECT_FALSE(ParseTresLimits("mem=5X").ok());
  EXPECT_FALSE(ParseTresLimits("cpu=-2").ok());
}

TEST(PreemptValuesTest, TypesAndModes) {
  EXPECT_EQ(*ParsePreemptType("preempt/qos"), PreemptType::kQos);
  EXPECT_EQ(*ParsePreemptType("PREEMPT/PARTITION_PRIO"), PreemptType::kPartitionPrio);
  EXPECT_EQ(*ParsePreemptType("preempt/none"), PreemptType::kNone);
  EXPECT_FALSE(ParsePreemptType("preempt/fifo").ok());
  EXPECT_EQ(PreemptTypeName(PreemptType::kQos), "preempt/qos");
  EXPECT_EQ(*ParsePreemptMode("requeue"), PreemptMode::kRequeue);
  EXPECT_EQ(*ParsePreemptMode("CANCEL"), PreemptMode::kCancel);
  EXPECT_EQ(*ParsePreemptMode("off"), PreemptMode::kOff);
  EXPECT_EQ(PreemptModeName(PreemptMode::kRequeue), "REQUEUE");
  EXPECT_EQ(ParsePreemptMode("SUSPEND,GANG").status().message(),
            "PreemptMode 'SUSPEND,GANG' needs suspended jobs, which Canopy does not have; use OFF, "
            "CANCEL or REQUEUE");
  EXPECT_EQ(ParsePreemptMode("kill").status().message(),
            "expected OFF, CANCEL or REQUEUE, got 'kill'");
}

}  // namespace
}  // namespace canopy::slurm
