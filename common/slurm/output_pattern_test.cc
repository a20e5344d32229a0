#include "common/slurm/output_pattern.h"

#include <string>

#include "gtest/gtest.h"

namespace canopy::slurm {
namespace {

OutputPatternContext Batch() {
  OutputPatternContext c;
  c.job_id = 128;
  c.job_name = "train";
  c.user_name = "alice";
  c.node_name = "gpu001";
  return c;
}

TEST(OutputPatternTest, DefaultNames) {
  EXPECT_EQ(ExpandOutputPattern("", Batch()), "slurm-128.out");
  OutputPatternContext c = Batch();
  c.job_id = 130;
  c.array_job_id = 120;
  c.array_task_id = 7;
  EXPECT_EQ(ExpandOutputPattern("", c), "slurm-120_7.out");
}

TEST(OutputPatternTest, ManPageExamples) {
  OutputPatternContext c = Batch();
  c.step_id = 0;
  EXPECT_EQ(ExpandOutputPattern("job%J.out", c), "job128.0.out");
  EXPECT_EQ(ExpandOutputPattern("job%4j.out", c), "job0128.out");
  c.task_id = 1;
  EXPECT_EQ(ExpandOutputPattern("job%j-%2t.out", c), "job128-01.out");
}

TEST(OutputPatternTest, EverySymbol) {
  OutputPatternContext c = Batch();
  c.step_id = 3;
  c.node_index = 2;
  c.task_id = 5;
  EXPECT_EQ(ExpandOutputPattern("%j|%J|%x|%u|%N|%A|%a|%t|%n|%s|%%", c),
            "128|128.3|train|alice|gpu001|128|4294967294|5|2|3|%");
}

TEST(OutputPatternTest, BatchStep) {
  EXPECT_EQ(ExpandOutputPattern("%J.%s", Batch()), "128.batch");
  EXPECT_EQ(ExpandOutputPattern("%4s", Batch()), "batch");
}

TEST(OutputPatternTest, ArrayJob) {
  OutputPatternContext c = Batch();
  c.job_id = 131;
  c.array_job_id = 120;
  c.array_task_id = 8;
  EXPECT_EQ(ExpandOutputPattern("out-%A-%3a-%j.txt", c), "out-120-008-131.txt");
}

TEST(OutputPatternTest, PaddingIgnoredForText) {
  EXPECT_EQ(ExpandOutputPattern("%5x-%3u-%8N", Batch()), "train-alice-gpu001");
}

TEST(OutputPatternTest, PaddingCappedAtTen) {
  EXPECT_EQ(ExpandOutputPattern("%20j", Batch()), "0000000128");
  EXPECT_EQ(ExpandOutputPattern("%0j", Batch()), "128");
}

TEST(OutputPatternTest, UnknownSymbolsAndTrailingPercent) {
  EXPECT_EQ(ExpandOutputPattern("%q-%3z-end%", Batch()), "%q-%3z-end%");
  EXPECT_EQ(ExpandOutputPattern("a%5", Batch()), "a%5");
}

TEST(OutputPatternTest, BackslashDisablesExpansion) {
  EXPECT_EQ(ExpandOutputPattern("\\%j-%x.out", Batch()), "%j-%x.out");
  EXPECT_EQ(ExpandOutputPattern("a\\b%%", Batch()), "ab%%");
}

TEST(OutputPatternTest, PlainTextUntouched) {
  EXPECT_EQ(ExpandOutputPattern("/scratch/logs/out.txt", Batch()), "/scratch/logs/out.txt");
}

}  // namespace
}  // namespace canopy::slurm
