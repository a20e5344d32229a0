#include "ctl/sbatch/job_variables.h"

#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::ctl::sbatch {
namespace {

// The SLURM_* variables sbatch adds for `argv`, with nice value `prio`.
std::map<std::string, std::string> VariablesFor(const std::vector<std::string>& argv,
                                                int prio = 0) {
  absl::StatusOr<slurm::SbatchOptions> o = slurm::ParseSbatchCommandLine(argv);
  EXPECT_TRUE(o.ok()) << o.status();
  canopy::v1::JobSpec spec;
  AddSbatchVariables(*o, prio, spec);
  return {spec.environment().begin(), spec.environment().end()};
}

using Env = std::map<std::string, std::string>;

// Each case is what Slurm 22.05.8's sbatch gave its job (env | grep ^SLURM), less what the node
// sets.
TEST(SbatchVariablesTest, AsSlurmsSbatchSetsThem) {
  EXPECT_EQ(VariablesFor({"--wrap", "true"}), (Env{{"SLURM_PRIO_PROCESS", "0"}}));
  EXPECT_EQ(VariablesFor({"-c", "3", "--mem=2G"}, 7), (Env{{"SLURM_CPUS_PER_TASK", "3"},
                                                           {"SLURM_MEM_PER_NODE", "2048"},
                                                           {"SLURM_PRIO_PROCESS", "7"}}));
  EXPECT_EQ(VariablesFor({"-N2", "--gpus-per-node=2", "--gpus-per-task=1"}),
            (Env{{"SLURM_GPUS_PER_NODE", "2"},
                 {"SLURM_GPUS_PER_TASK", "1"},
                 {"SLURM_PRIO_PROCESS", "0"}}));
  // --gres is not --gpus-per-node: no SLURM_GPUS_PER_NODE (the node's SLURM_GPUS_ON_NODE says).
  EXPECT_EQ(VariablesFor({"--gres=gpu:2"}), (Env{{"SLURM_PRIO_PROCESS", "0"}}));
  EXPECT_EQ(VariablesFor({"-N2", "--gpus=3"}),
            (Env{{"SLURM_GPUS", "3"}, {"SLURM_PRIO_PROCESS", "0"}}));
  EXPECT_EQ(VariablesFor({"--gpus=h100:1", "--mem-per-gpu=100", "--cpus-per-gpu=2"}),
            (Env{{"SLURM_GPUS", "h100:1"},
                 {"SLURM_MEM_PER_GPU", "100"},
                 {"SLURM_CPUS_PER_GPU", "2"},
                 {"SLURM_PRIO_PROCESS", "0"}}));
  EXPECT_EQ(VariablesFor({"-O", "-n2", "--distribution=cyclic", "--dependency=afterany:1"}),
            (Env{{"SLURM_OVERCOMMIT", "1"},
                 {"SLURM_DISTRIBUTION", "cyclic"},
                 {"SLURM_JOB_DEPENDENCY", "afterany:1"},
                 {"SLURM_PRIO_PROCESS", "0"}}));
}

TEST(SbatchVariablesTest, AnArraysShape) {
  auto shape = [](const std::string& spec) {
    Env env = VariablesFor({"--array=" + spec});
    return std::vector<std::string>{env["SLURM_ARRAY_TASK_COUNT"], env["SLURM_ARRAY_TASK_MIN"],
                                    env["SLURM_ARRAY_TASK_MAX"], env["SLURM_ARRAY_TASK_STEP"]};
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(shape("1-5:2"), (V{"3", "1", "5", "2"}));
  EXPECT_EQ(shape("1,3,7"), (V{"3", "1", "7", "1"}));
  EXPECT_EQ(shape("0-3%2"), (V{"4", "0", "3", "1"}));
  EXPECT_EQ(shape("2-10:4"), (V{"3", "2", "10", "4"}));
  EXPECT_EQ(shape("5"), (V{"1", "5", "5", "1"}));
  EXPECT_EQ(shape("0-15:3%4"), (V{"6", "0", "15", "3"}));
}

// The options' variables win over what the environment already had.
TEST(SbatchVariablesTest, OverrideTheEnvironment) {
  absl::StatusOr<slurm::SbatchOptions> o = slurm::ParseSbatchCommandLine({"-c", "2"});
  ASSERT_TRUE(o.ok());
  canopy::v1::JobSpec spec;
  (*spec.mutable_environment())["SLURM_CPUS_PER_TASK"] = "8";
  (*spec.mutable_environment())["SLURM_PRIO_PROCESS"] = "19";
  AddSbatchVariables(*o, 0, spec);
  EXPECT_EQ(spec.environment().at("SLURM_CPUS_PER_TASK"), "2");
  EXPECT_EQ(spec.environment().at("SLURM_PRIO_PROCESS"), "0");
}

// Each GPU option's own words: a type given to one is not the others'.
TEST(SbatchVariablesTest, EachGpuOptionAsWritten) {
  EXPECT_EQ(VariablesFor({"--gpus-per-node=h100:2", "--gpus-per-task=1"}),
            (Env{{"SLURM_GPUS_PER_NODE", "h100:2"},
                 {"SLURM_GPUS_PER_TASK", "1"},
                 {"SLURM_PRIO_PROCESS", "0"}}));
  // A later --gres replaces --gpus-per-node, and sets no such variable.
  EXPECT_EQ(VariablesFor({"--gpus-per-node=2", "--gres=gpu:4"}),
            (Env{{"SLURM_PRIO_PROCESS", "0"}}));
}

}  // namespace
}  // namespace canopy::ctl::sbatch
