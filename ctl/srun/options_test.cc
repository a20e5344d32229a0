#include "ctl/srun/options.h"

#include <string>
#include <vector>

#include "common/slurm/option_values.h"
#include "common/slurm/recorded_option_values.h"
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
  EXPECT_EQ(slurm::ExitCodeOf(ParseSrunArgs({"-N", "2"}).status()), 1);
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

TEST(SrunOptionsTest, OptionsSlurmsSrunShares) {
  SrunInput input;
  input.now = absl::FromUnixSeconds(1'800'000'000);
  absl::StatusOr<SrunOptions> o = ParseSrunArgs({"--comment=c",
                                                 "--wckey=w",
                                                 "--mail-type=FAIL",
                                                 "--mail-user=u",
                                                 "--open-mode=append",
                                                 "--propagate",
                                                 "--gpus-per-task=a100:2",
                                                 "--gpu-bind=closest",
                                                 "--cpus-per-gpu=4",
                                                 "--mem-per-gpu=2G",
                                                 "-m",
                                                 "block:cyclic",
                                                 "--mpi=pmix",
                                                 "--cpu-bind=cores",
                                                 "--cpu_bind=verbose,map_cpu:0,1",
                                                 "-O",
                                                 "--reservation=r",
                                                 "--deadline=now+1hour",
                                                 "--delay-boot=2",
                                                 "--container=/oci",
                                                 "--uid=0",
                                                 "--gid=0",
                                                 "-W",
                                                 "30",
                                                 "--test-only",
                                                 "--exclusive=user",
                                                 "python",
                                                 "x.py"},
                                                input);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->comment, "c");
  EXPECT_EQ(o->wckey, "w");
  EXPECT_EQ(o->mail_type, slurm::kMailFail);
  EXPECT_EQ(o->mail_user, "u");
  EXPECT_EQ(o->open_mode, slurm::OpenMode::kAppend);
  EXPECT_EQ(o->propagate, "ALL");
  EXPECT_EQ(o->gpus_per_task, 2);
  EXPECT_EQ(o->gpu_type, "a100");
  EXPECT_EQ(o->gpu_bind, "closest");
  EXPECT_EQ(o->cpus_per_gpu, 4);
  EXPECT_EQ(o->mem_per_gpu_mib, 2048);
  EXPECT_EQ(o->distribution, "block:cyclic");
  EXPECT_EQ(o->mpi, "pmix");
  EXPECT_EQ(o->cpu_bind, "verbose,map_cpu:0,1");
  EXPECT_TRUE(o->overcommit);
  EXPECT_EQ(o->reservation, "r");
  EXPECT_EQ(o->deadline, input.now + absl::Hours(1));
  EXPECT_EQ(o->delay_boot, absl::Minutes(2));
  EXPECT_EQ(o->container, "/oci");
  EXPECT_EQ(o->uid, "0");
  EXPECT_EQ(o->gid, "0");
  EXPECT_EQ(o->wait_seconds, 30);
  EXPECT_TRUE(o->test_only);
  EXPECT_TRUE(o->exclusive);
  EXPECT_EQ(o->exclusive_mode, slurm::ExclusiveMode::kUser);
  EXPECT_EQ(o->command, (std::vector<std::string>{"python", "x.py"}));
  // Bare --exclusive still works, and =oversubscribe is not exclusive.
  EXPECT_TRUE(ParseSrunArgs({"--exclusive", "x"})->exclusive);
  EXPECT_FALSE(ParseSrunArgs({"--exclusive=oversubscribe", "x"})->exclusive);
  EXPECT_EQ(*ParseSrunArgs({"-W0", "x"})->wait_seconds, 0);
}

TEST(SrunOptionsTest, BadValuesWithSrunsTextsAndExitCodes) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
    int exit_code;
  };
  const std::vector<Case> cases = {
      {{"--mail-type=bogus", "x"}, "error: Invalid --mail-type specification", 255},
      {{"--open-mode=x", "x"}, "error: Invalid --open-mode specification", 255},
      {{"--gpus-per-task=0", "x"}, "error: Invalid generic resource (gres) specification", 1},
      {{"--gpu-bind=bogus", "x"}, "error: Invalid --gpu-bind argument: gpu:bogus", 255},
      {{"--cpus-per-gpu=x", "x"}, "error: Invalid numeric value \"x\" for --cpus-per-gpu.", 1},
      {{"--mem-per-gpu=x", "x"}, "error: Invalid --mem-per-gpu specification", 255},
      {{"-m", "bogus", "x"}, "error: Invalid --distribution specification", 255},
      {{"--cpu-bind=numa", "x"},
       "error: unrecognized --cpu-bind argument \"numa\"\nfatal: Failed to parse --cpu-bind= "
       "values.",
       1},
      {{"--hint=bogus", "x"}, "error: unrecognized --hint argument \"bogus\", see --hint=help", 1},
      {{"--deadline=25:00", "x"},
       "error: Invalid time specification (pos=2): 25:00\nerror: Invalid --deadline "
       "specification",
       255},
      {{"--delay-boot=x", "x"}, "error: Invalid --delay-boot specification", 255},
      {{"--exclusive=x", "x"}, "error: Invalid --exclusive specification", 255},
      {{"-W", "-1", "x"}, "error: Invalid numeric value \"-1\" for --wait.", 1},
      {{"--propagate=bad", "x"},
       "error: Bad rlimit name: bad\nerror: --propagate=bad is not valid.",
       1},
      {{"--bogus", "x"},
       "unrecognized option '--bogus'\nTry \"srun --help\" for more information",
       255},
      {{"-n", "1"}, "fatal: No command given to execute.", 1},
      // srun has no --get-user-env, --export-file, --requeue or --parsable (sbatch's).
      {{"--get-user-env", "x"},
       "unrecognized option '--get-user-env'\nTry \"srun --help\" for more information",
       255},
      {{"--parsable", "x"},
       "unrecognized option '--parsable'\nTry \"srun --help\" for more information",
       255},
  };
  for (const Case& c : cases) {
    absl::StatusOr<SrunOptions> o = ParseSrunArgs(c.args);
    ASSERT_FALSE(o.ok()) << c.args[0];
    EXPECT_EQ(o.status().message(), c.message) << c.args[0];
    EXPECT_EQ(slurm::ExitCodeOf(o.status()), c.exit_code) << c.args[0];
  }
  // --hint is dropped, unchecked, when --cpu-bind binds too (Slurm's validate_hint_option).
  EXPECT_FALSE(ParseSrunArgs({"--hint=bogus", "--cpu-bind=cores", "x"})->hint.has_value());
}

TEST(SrunOptionsTest, InputEnvironment) {
  SrunInput input;
  input.env = {
      {"SLURM_MPI_TYPE", "pmi2"},   {"SLURM_CPU_BIND", "cores"}, {"SLURM_DISTRIBUTION", "cyclic"},
      {"SLURM_GPUS_PER_TASK", "1"}, {"SLURM_MEM_PER_GPU", "1G"}, {"SLURM_OVERCOMMIT", "1"},
      {"SLURM_RESERVATION", "r"},   {"SLURM_WCKEY", "w"},        {"SLURM_JOB_NAME", "not-read"}};
  absl::StatusOr<SrunOptions> o = ParseSrunArgs({"--mpi=none", "x"}, input);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->mpi, "none");  // the command line wins
  EXPECT_EQ(o->cpu_bind, "cores");
  EXPECT_EQ(o->distribution, "cyclic");
  EXPECT_EQ(o->gpus_per_task, 1);
  EXPECT_EQ(o->mem_per_gpu_mib, 1024);
  EXPECT_TRUE(o->overcommit);
  EXPECT_EQ(o->reservation, "r");
  EXPECT_EQ(o->wckey, "w");
  EXPECT_EQ(o->job_name, "");
  input.env = {{"SLURM_DISTRIBUTION", "bogus"}};
  EXPECT_EQ(ParseSrunArgs({"x"}, input).status().message(),
            "error: Invalid --distribution specification");
}

// srun --jobid=ID --overlap attaches a step to a running job (steps always share its CPUs).
TEST(SrunOptionsTest, Overlap) {
  absl::StatusOr<SrunOptions> o = ParseSrunArgs({"--jobid=7", "--overlap", "hostname"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->overlap);
  EXPECT_EQ(*o->jobid, 7u);
  EXPECT_FALSE(ParseSrunArgs({"hostname"})->overlap);
  SrunInput input;
  input.env = {{"SLURM_OVERLAP", "1"}, {"SLURM_OVERCOMMIT", "1"}};
  EXPECT_TRUE(ParseSrunArgs({"hostname"}, input)->overlap);
  input.env = {{"SLURM_OVERLAP", "0"}, {"SLURM_OVERCOMMIT", "1"}};
  o = ParseSrunArgs({"hostname"}, input);
  EXPECT_FALSE(o->overlap);
  EXPECT_TRUE(o->overcommit);  // one flag's false value leaves the other alone
}

// submitit runs its tasks with srun --unbuffered.
TEST(SrunOptionsTest, Unbuffered) {
  EXPECT_TRUE(ParseSrunArgs({"--unbuffered", "python"})->unbuffered);
  EXPECT_TRUE(ParseSrunArgs({"-u", "python"})->unbuffered);
  EXPECT_FALSE(ParseSrunArgs({"python"})->unbuffered);
  SrunInput input;
  input.env = {{"SLURM_UNBUFFEREDIO", "1"}};
  EXPECT_TRUE(ParseSrunArgs({"python"}, input)->unbuffered);
}

}  // namespace
}  // namespace canopy::ctl::srun
