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

TEST(SrunOptionsTest, AllocationAndStep) {
  absl::StatusOr<SrunOptions> o =
      ParseSrunArgs({"-N", "2", "--gres=gpu:2", "-w", "gpu[1-2]", "-D", "sub", "/bin/hostname"});
  ASSERT_TRUE(o.ok()) << o.status();
  canopy::v1::JobSpec spec = BuildAllocationSpec(*o, "/cwd", "login1");
  EXPECT_EQ(spec.name(), "hostname");
  EXPECT_EQ(spec.min_nodes(), 2);
  EXPECT_EQ(spec.gpus_per_node(), 2);
  EXPECT_EQ(spec.required_nodes(), "gpu[1-2]");
  EXPECT_TRUE(spec.script().empty());
  canopy::v1::CreateStepRequest step =
      BuildStepRequest(*o, 7, {{"A", "1"}, {"SLURM_JOB_ID", "7"}}, "/cwd");
  EXPECT_EQ(step.job_id(), 7u);
  EXPECT_EQ(step.nodes(), 2);
  EXPECT_EQ(step.argv(0), "/bin/hostname");
  EXPECT_EQ(step.work_dir(), "/cwd/sub");
  EXPECT_EQ(step.environment().size(), 2u);  // --export default ALL
}

}  // namespace
}  // namespace canopy::ctl::srun
