#include "ctl/salloc/options.h"

#include <csignal>

#include "absl/strings/match.h"
#include "ctl/srun/requests.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::ctl::salloc {
namespace {

using ::testing::HasSubstr;

TEST(SallocOptionsTest, SharedOptionsGoThroughSrunsParser) {
  absl::StatusOr<SallocOptions> o = ParseSallocArgs({"-N",          "2",
                                                     "-n4",         "-p",
                                                     "gpu",         "--gpus-per-node=h100:4",
                                                     "-t",          "30",
                                                     "-J",          "dev",
                                                     "--exclusive", "-A",
                                                     "ml",          "--comment=debug",
                                                     "--mem=8G",    "-q",
                                                     "high",        "-H",
                                                     "python",      "train.py",
                                                     "-N",          "9"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(*o->allocation.nodes, 2);
  EXPECT_EQ(*o->allocation.ntasks, 4);
  EXPECT_EQ(o->allocation.partition, "gpu");
  EXPECT_EQ(*o->allocation.gpus_per_node, 4);
  EXPECT_EQ(o->allocation.gpu_type, "h100");
  EXPECT_EQ(*o->allocation.time_limit, absl::Minutes(30));
  EXPECT_EQ(o->allocation.job_name, "dev");
  EXPECT_TRUE(o->allocation.exclusive);
  EXPECT_EQ(o->allocation.account, "ml");
  EXPECT_EQ(o->allocation.comment, "debug");
  EXPECT_EQ(*o->mem_mib, 8192);
  EXPECT_EQ(o->qos, "high");
  EXPECT_TRUE(o->hold);
  // Parsing stops at the command: its own "-N 9" is its argument.
  EXPECT_EQ(o->command, (std::vector<std::string>{"python", "train.py", "-N", "9"}));
  EXPECT_EQ(o->allocation.command, o->command);

  const canopy::v1::JobSpec spec = srun::BuildAllocationSpec(o->allocation, "/work", "login1");
  EXPECT_EQ(spec.name(), "dev");
  EXPECT_EQ(spec.min_nodes(), 2);
  EXPECT_TRUE(spec.script().empty());  // an allocation, not a batch job
}

TEST(SallocOptionsTest, NoCommandMeansTheShellAndNoShellIsAFlag) {
  absl::StatusOr<SallocOptions> o = ParseSallocArgs({"--no-shell", "-N1", "--bell", "-Q"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->command.empty());
  EXPECT_TRUE(o->no_shell);
  EXPECT_TRUE(o->quiet);
}

TEST(SallocOptionsTest, InputEnvironmentLosesToTheCommandLine) {
  srun::SrunInput input;
  input.env = {{"SALLOC_PARTITION", "cpu"},
               {"SALLOC_ACCOUNT", "ml"},
               {"SALLOC_TIMELIMIT", "5"},
               {"SALLOC_EXCLUSIVE", "1"}};
  absl::StatusOr<SallocOptions> o = ParseSallocArgs({"-p", "gpu", "bash"}, input);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->allocation.partition, "gpu");
  EXPECT_EQ(o->allocation.account, "ml");
  EXPECT_EQ(*o->allocation.time_limit, absl::Minutes(5));
  EXPECT_TRUE(o->allocation.exclusive);
}

TEST(SallocOptionsTest, BadInput) {
  absl::StatusOr<SallocOptions> o = ParseSallocArgs({"--bogus"});
  ASSERT_FALSE(o.ok());
  EXPECT_THAT(o.status().message(), HasSubstr("unrecognized option '--bogus'"));
  EXPECT_THAT(o.status().message(), HasSubstr("salloc --help"));
  // srun's options salloc does not have stay unknown.
  EXPECT_THAT(ParseSallocArgs({"--label", "x"}).status().message(),
              HasSubstr("unrecognized option '--label'"));
  EXPECT_FALSE(ParseSallocArgs({"-N", "x"}).ok());
  EXPECT_FALSE(ParseSallocArgs({"--mem=lots"}).ok());
  EXPECT_EQ(slurm::ExitCodeOf(ParseSallocArgs({"--bogus"}).status()), 1);
}

TEST(SallocOptionsTest, HelpUsageVersion) {
  EXPECT_EQ(ParseSallocArgs({"--help", "-N", "x"})->info, slurm::InfoRequest::kHelp);
  EXPECT_EQ(ParseSallocArgs({"--usage"})->info, slurm::InfoRequest::kUsage);
  EXPECT_EQ(ParseSallocArgs({"-V"})->info, slurm::InfoRequest::kVersion);
  EXPECT_TRUE(absl::StartsWith(SallocInfoText(slurm::InfoRequest::kHelp), "Usage: salloc"));
  EXPECT_THAT(SallocInfoText(slurm::InfoRequest::kHelp), HasSubstr("--no-shell"));
  EXPECT_THAT(SallocInfoText(slurm::InfoRequest::kVersion), HasSubstr("slurm 22.05"));
}

TEST(SallocOptionsTest, DeferralImmediateAndKillCommand) {
  absl::StatusOr<SallocOptions> o =
      ParseSallocArgs({"-b", "now+60", "-d", "afterok:5", "-I5", "-KUSR1", "true"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->begin, "now+60");
  EXPECT_EQ(o->dependency, "afterok:5");
  EXPECT_EQ(o->immediate, absl::Seconds(5));
  EXPECT_EQ(o->kill_signal, SIGUSR1);
  o = ParseSallocArgs({"--immediate", "--kill-command", "--begin=16:00", "true"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->immediate, absl::ZeroDuration());  // no value: at once
  EXPECT_EQ(o->kill_signal, SIGTERM);
  EXPECT_EQ(ParseSallocArgs({"--kill-command=SIGINT", "true"})->kill_signal, SIGINT);
  EXPECT_FALSE(ParseSallocArgs({"-I0", "true"})->immediate.has_value());
  // Without -K/-I: the command runs on after a revoke; salloc waits as long as it takes.
  o = ParseSallocArgs({"true"});
  EXPECT_FALSE(o->kill_signal.has_value());
  EXPECT_FALSE(o->immediate.has_value());
  EXPECT_THAT(ParseSallocArgs({"-Ix", "true"}).status().message(),
              HasSubstr("Invalid --immediate value: x"));
  EXPECT_THAT(ParseSallocArgs({"-KNOPE", "true"}).status().message(),
              HasSubstr("Invalid --kill-command specification: NOPE"));
}

}  // namespace
}  // namespace canopy::ctl::salloc
