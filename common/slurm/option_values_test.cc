// The value parsers sbatch and srun share, called directly (sbatch_options_test.cc checks them
// through sbatch's command line, with the texts of Slurm 22.05.8's sbatch).
#include "common/slurm/option_values.h"

#include <csignal>
#include <map>
#include <string>

#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::slurm {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

TEST(OptionValuesTest, NodeCounts) {
  EXPECT_EQ(ParseNodeCount("2")->min, 2);
  EXPECT_EQ(ParseNodeCount("2")->max, 2);
  EXPECT_EQ(ParseNodeCount("2-4")->max, 4);
  EXPECT_EQ(ParseNodeCount("-4")->min, 1);
  EXPECT_EQ(ParseNodeCount("x").status().message(), "error: \"x\" is not a valid node count");
  EXPECT_EQ(ParseNodeCount("4-2").status().message(),
            "error: Maximum node count 2 is less than minimum node count 4");
}

TEST(OptionValuesTest, CountsMemoryAndTime) {
  EXPECT_EQ(*ParsePositiveCount("8", "ntasks"), 8);
  EXPECT_EQ(ParsePositiveCount("0", "ntasks").status().message(),
            "error: Invalid numeric value \"0\" for --ntasks.");
  EXPECT_EQ(*ParseMemMib("2G"), 2048);
  EXPECT_EQ(*ParseMemMib("1025K"), 2);
  EXPECT_EQ(ParseMemMib("2X").status().message(), "error: Invalid --mem specification");
  EXPECT_EQ(*ParseTimeLimit("1:30"), absl::Minutes(2));
  EXPECT_EQ(*ParseTimeLimit("0"), absl::InfiniteDuration());
  EXPECT_EQ(ParseTimeLimit("x").status().message(), "error: Invalid --time specification");
}

TEST(OptionValuesTest, GresAndGpus) {
  absl::StatusOr<GresRequest> g = ParseGres("nvme:1,gpu:h100:4");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->gpus_per_node, 4);
  EXPECT_EQ(g->gpu_type, "h100");
  EXPECT_THAT(g->other, ElementsAre("nvme:1"));
  EXPECT_TRUE(ParseGres("NONE")->none);
  EXPECT_EQ(ParseGres("gpu:1,gpu:2").status().message(),
            "error: Invalid generic resource (gres) specification");
  EXPECT_EQ(ParseGpuCount("a100:8")->type, "a100");
  EXPECT_EQ(ParseGpuCount("8")->count, 8);
  EXPECT_FALSE(ParseGpuCount(":8").ok());
}

TEST(OptionValuesTest, ExportEnvironment) {
  const std::map<std::string, std::string> env = {{"HOME", "/h"}, {"SLURM_CONF", "/c"}};
  ExportedEnvironment all = ExportEnvironment(std::nullopt, env);
  EXPECT_EQ(all.variables, env);
  EXPECT_FALSE(all.none);
  ExportedEnvironment none = ExportEnvironment(ParseExport("NONE"), env);
  EXPECT_THAT(none.variables, UnorderedElementsAre(Pair("SLURM_CONF", "/c")));
  EXPECT_TRUE(none.none);
  ExportedEnvironment list = ExportEnvironment(ParseExport("HOME,X=1,UNSET"), env);
  EXPECT_THAT(list.variables,
              UnorderedElementsAre(Pair("SLURM_CONF", "/c"), Pair("HOME", "/h"), Pair("X", "1")));
  EXPECT_FALSE(list.none);
  EXPECT_EQ(ExportEnvironment(ParseExport("ALL,X=1"), env).variables.size(), 3u);
}

TEST(OptionValuesTest, Signals) {
  EXPECT_EQ(SignalNumber("usr1"), SIGUSR1);
  EXPECT_EQ(SignalNumber("SIGTERM"), SIGTERM);
  EXPECT_EQ(SignalNumber("9"), 9);
  EXPECT_EQ(SignalNumber("SEGV"), SIGSEGV);
  EXPECT_EQ(SignalNumber("128"), std::nullopt);
  EXPECT_EQ(SignalNumber("0"), std::nullopt);
  EXPECT_EQ(SignalNumber("BOGUS"), std::nullopt);
  absl::StatusOr<SbatchSignal> s = ParseSignalSpec("B:USR2@30");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->signal_number, SIGUSR2);
  EXPECT_EQ(s->seconds, 30);
  EXPECT_TRUE(s->batch_only);
}

TEST(OptionValuesTest, Hostlists) {
  EXPECT_TRUE(CheckHostlist("gpu[001-004]", "nodelist").ok());
  EXPECT_THAT(std::string(CheckHostlist("n[1-", "exclude").message()),
              ::testing::StartsWith("error: Invalid --exclude specification: "));
}

}  // namespace
}  // namespace canopy::slurm
