#include "agent/runtime/helper_reports.h"

#include "gtest/gtest.h"

namespace canopy::agent::runtime {
namespace {

TEST(HelperReportsTest, LinesCutByReadsWaitForTheirEnd) {
  HelperReportReader reader;
  EXPECT_TRUE(reader.Feed("pid 0 41").empty());
  std::vector<HelperReport> reports = reader.Feed("23\nexit 0 256\npid 1");
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].kind, HelperReport::Kind::kPid);
  EXPECT_EQ(reports[0].task, 0u);
  EXPECT_EQ(reports[0].value, 4123);
  EXPECT_EQ(reports[1].kind, HelperReport::Kind::kExit);
  EXPECT_EQ(reports[1].value, 256);
  reports = reader.Feed(" 4124\n");
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].task, 1u);
  EXPECT_EQ(reports[0].value, 4124);
}

TEST(HelperReportsTest, UnknownLinesAreSkipped) {
  HelperReportReader reader;
  const std::vector<HelperReport> reports =
      reader.Feed("hello\npid x 3\nexit 1\nstatus 0 1\nexit 2 9\nfault 0 1\n");
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].task, 2u);
  EXPECT_EQ(reports[0].value, 9);
  EXPECT_EQ(reports[1].kind, HelperReport::Kind::kNodeFault);
}

TEST(HelperReportsTest, OnlyUncatchableSignalsGoToTheTasksDirectly) {
  EXPECT_TRUE(SignalReachesTasksDirectly(SIGKILL));
  EXPECT_TRUE(SignalReachesTasksDirectly(SIGSTOP));
  EXPECT_FALSE(SignalReachesTasksDirectly(SIGTERM));
  EXPECT_FALSE(SignalReachesTasksDirectly(SIGCONT));
  EXPECT_FALSE(SignalReachesTasksDirectly(SIGUSR1));
}

}  // namespace
}  // namespace canopy::agent::runtime
