#include "ctl/srun/step_output.h"

#include <csignal>

#include "gtest/gtest.h"

namespace canopy::ctl::srun {
namespace {

TEST(StepOutputTest, LabelWidthFollowsTheHighestRank) {
  EXPECT_EQ(LabelWidth(1), 1);
  EXPECT_EQ(LabelWidth(10), 1);
  EXPECT_EQ(LabelWidth(11), 2);
  EXPECT_EQ(LabelWidth(101), 3);
}

TEST(StepOutputTest, WholeLinesPerRankAndStream) {
  TaskOutputBuffer b(0);
  EXPECT_EQ(b.Append(0, 0, "hel"), "");
  EXPECT_EQ(b.Append(1, 0, "world\npart"), "world\n");
  EXPECT_EQ(b.Append(0, 1, "err\n"), "err\n");
  EXPECT_EQ(b.Append(0, 0, "lo\nx\n"), "hello\nx\n");
  EXPECT_EQ(b.Flush(1), "");
  EXPECT_EQ(b.Flush(0), "part\n");
  EXPECT_EQ(b.Flush(0), "");
}

TEST(StepOutputTest, LabelsAsSrun) {
  TaskOutputBuffer b(LabelWidth(12));
  EXPECT_EQ(b.Append(3, 0, "a\nb\n"), " 3: a\n 3: b\n");
  EXPECT_EQ(b.Append(11, 0, "c"), "");
  EXPECT_EQ(b.Flush(0), "11: c\n");
  TaskOutputBuffer one(LabelWidth(2));
  EXPECT_EQ(one.Append(1, 1, "x\n"), "1: x\n");
}

TEST(StepOutputTest, SummaryAndExitCode) {
  StepSummary s = SummarizeStep({{0, "gpu001", 0, 0}, {1, "gpu001", 0, 0}});
  EXPECT_TRUE(s.messages.empty());
  EXPECT_EQ(s.exit_code, 0);

  s = SummarizeStep(
      {{0, "gpu001", 3, 0}, {1, "gpu001", 3, 0}, {2, "gpu002", 1, 0}, {3, "gpu002", 0, SIGKILL}});
  EXPECT_EQ(s.messages, (std::vector<std::string>{"gpu001: tasks 0-1: Exited with exit code 3",
                                                  "gpu002: task 2: Exited with exit code 1",
                                                  "gpu002: task 3: Killed"}));
  EXPECT_EQ(s.exit_code, 128 + SIGKILL);
}

}  // namespace
}  // namespace canopy::ctl::srun
