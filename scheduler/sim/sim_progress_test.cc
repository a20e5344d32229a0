// canopy-sim's progress lines: what they say, and how often a terminal and a log get them.
#include "scheduler/sim/sim_progress.h"

#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::sim {
namespace {

TEST(SimProgressTest, TheLineSaysWhereTheReplayStands) {
  const SimProgress p{.simulated = absl::Hours(52) + absl::Minutes(10) + absl::Seconds(5),
                      .jobs_total = 82247,
                      .jobs_done = 41203,
                      .pending = 1234,
                      .events = 10};
  EXPECT_EQ(FormatProgress("canopy", p, 812345),
            "canopy: 2d 04:10:05 simulated, 41203/82247 jobs done (50.1%), 1234 pending, 812k "
            "events/s");
  EXPECT_THAT(FormatProgress("x", p, 2.5e6), ::testing::EndsWith("2.5M events/s"));
  EXPECT_THAT(FormatProgress("x", SimProgress{}, 0),
              ::testing::HasSubstr("0/0 jobs done (100.0%)"));
}

TEST(SimProgressTest, ATerminalGetsOneRewrittenLineALogWholeLines) {
  std::ostringstream tty;
  ProgressDisplay on_terminal(tty, "canopy", /*terminal=*/true);
  on_terminal.Update(
      SimProgress{.simulated = absl::ZeroDuration(), .jobs_total = 2, .jobs_done = 1});
  on_terminal.Update(SimProgress{.simulated = absl::ZeroDuration(),
                                 .jobs_total = 2,
                                 .jobs_done = 1});  // within 0.5 s: not shown
  on_terminal.Finish();
  const std::string shown = tty.str();
  EXPECT_EQ(std::count(shown.begin(), shown.end(), '\r'), 2) << shown;
  EXPECT_EQ(shown.back(), '\n');
  EXPECT_EQ(std::count(shown.begin(), shown.end(), '\n'), 1) << shown;

  std::ostringstream log;
  ProgressDisplay in_log(log, "first-fit", /*terminal=*/false);
  in_log.Update(SimProgress{.simulated = absl::ZeroDuration(), .jobs_total = 4, .jobs_done = 1});
  in_log.Update(SimProgress{.simulated = absl::ZeroDuration(),
                            .jobs_total = 4,
                            .jobs_done = 2});  // within 10 s: not shown
  in_log.Finish();
  const std::string lines = log.str();
  EXPECT_EQ(lines.find('\r'), std::string::npos);
  EXPECT_THAT(lines, ::testing::HasSubstr("first-fit: 0d 00:00:00 simulated, 1/4 jobs"));
  EXPECT_THAT(lines, ::testing::HasSubstr("2/4 jobs done (50.0%)"));
  EXPECT_EQ(std::count(lines.begin(), lines.end(), '\n'), 2);
}

}  // namespace
}  // namespace canopy::sim
