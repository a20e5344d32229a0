#include "ctl/srun/options.h"

#include "gtest/gtest.h"

namespace canopy::ctl::srun {
namespace {

TEST(SrunOptionsTest, ParsesOptionsAndStopsAtTheCommand) {
  absl::StatusOr<SrunOptions> o = ParseSrunArgs({"-N2",
                                                 "-n",
                                                 "8",
                                                 "--ntasks-per-node=4",
                                                 "-l",
                                                 "-o",
                                                 "out-%t",
                                                 "-J",
                                                 "train",
                                                 "--jobid=42",
                                                 "-D",
                                                 "work",
                                                 "--export=NONE",
                                                 "-p",
                                                 "gpu",
                                                 "-t",
                                                 "10",
                                                 "--gpus-per-node=h100:4",
                                                 "--exclusive",
                                                 "-A",
                                                 "acct",
                                                 "python",
                                                 "-l",
                                                 "x.py"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(*o->nodes, 2);
  EXPECT_EQ(*o->ntasks, 8);
  EXPECT_EQ(*o->ntasks_per_node, 4);
  EXPECT_TRUE(o->label);
  EXPECT_EQ(o->output, "out-%t");
  EXPECT_EQ(o->job_name, "train");
  EXPECT_EQ(*o->jobid, 42u);
  EXPECT_EQ(o->chdir, "work");
  ASSERT_TRUE(o->export_env.has_value());
  EXPECT_FALSE(o->export_env->all);
  EXPECT_EQ(o->partition, "gpu");
  EXPECT_EQ(*o->time_limit, absl::Minutes(10));
  EXPECT_EQ(*o->gpus_per_node, 4);
  EXPECT_EQ(o->gpu_type, "h100");
  EXPECT_TRUE(o->exclusive);
  EXPECT_EQ(o->account, "acct");
  EXPECT_EQ(o->command, (std::vector<std::string>{"python", "-l", "x.py"}));
}

TEST(SrunOptionsTest, Errors) {
  EXPECT_EQ(ParseSrunArgs({"-N", "2"}).status().message(), "fatal: No command given to execute.");
  EXPECT_EQ(ParseSrunArgs({"--bogus", "x"}).status().message(),
            "unrecognized option '--bogus'\nTry \"srun --help\" for more information");
  EXPECT_EQ(ParseSrunArgs({"-n", "zero", "x"}).status().message(),
            "error: Invalid numeric value \"zero\" for --ntasks.");
  EXPECT_FALSE(ParseSrunArgs({"--gres=nvme:1", "x"}).ok());
  EXPECT_FALSE(ParseSrunArgs({"-n"}).ok());
}

TEST(SrunOptionsTest, GetoptRulesAndSharedValueTexts) {
  absl::StatusOr<SrunOptions> o =
      ParseSrunArgs({"--part=gpu", "-lvN2-4", "--ntasks-per", "2", "x"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->partition, "gpu");
  EXPECT_TRUE(o->label);
  EXPECT_EQ(o->verbose, 1);
  EXPECT_EQ(*o->nodes, 2);
  EXPECT_EQ(*o->max_nodes, 4);
  EXPECT_EQ(*o->ntasks_per_node, 2);
  const std::string kTry = "\nTry \"srun --help\" for more information";
  EXPECT_EQ(ParseSrunArgs({"-Z", "x"}).status().message(), "invalid option -- 'Z'" + kTry);
  EXPECT_EQ(ParseSrunArgs({"x", "-Z"}).value().command, (std::vector<std::string>{"x", "-Z"}));
  EXPECT_EQ(ParseSrunArgs({"-n"}).status().message(), "option requires an argument -- 'n'" + kTry);
  EXPECT_EQ(ParseSrunArgs({"--label=1", "x"}).status().message(),
            "option '--label' doesn't allow an argument" + kTry);
  EXPECT_EQ(
      ParseSrunArgs({"--ex", "x"}).status().message(),
      "option '--ex' is ambiguous; possibilities: '--export' '--exclude' '--exclusive'" + kTry);
  // Values are sbatch's (Slurm parses them once, in slurm_opt.c).
  EXPECT_EQ(ParseSrunArgs({"-t", "abc", "x"}).status().message(),
            "error: Invalid --time specification");
  EXPECT_EQ(ParseSrunArgs({"-N", "x", "x"}).status().message(),
            "error: \"x\" is not a valid node count");
  EXPECT_EQ(ParseSrunArgs({"--gpus-per-node=x", "x"}).status().message(),
            "error: Invalid generic resource (gres) specification");
  EXPECT_EQ(*ParseSrunArgs({"-t", "0", "x"})->time_limit, absl::InfiniteDuration());
}

}  // namespace
}  // namespace canopy::ctl::srun
