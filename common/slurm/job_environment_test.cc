#include "common/slurm/job_environment.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::slurm {
namespace {

using ::testing::Contains;
using ::testing::Key;
using ::testing::Not;

JobEnvironmentInput ThreeNodeJob() {
  JobEnvironmentInput j;
  j.job_id = 7;
  j.job_name = "train";
  j.nodes = {"gpu1", "gpu2", "gpu3"};
  j.ntasks = 5;
  j.partition = "batch";
  j.account = "ml";
  j.user_name = "alice";
  j.user_id = 1000;
  j.group_id = 100;
  j.cluster_name = "canopy";
  j.node_name = "gpu2";
  j.node_index = 1;
  j.cpus = 4;
  j.gpu_indexes = {0, 1};
  return j;
}

TEST(JobEnvironmentTest, BatchTasksUseTheStepRule) {
  Environment env = JobVariables(ThreeNodeJob());
  EXPECT_EQ(env["SLURM_NTASKS"], "5");
  EXPECT_EQ(env["SLURM_TASKS_PER_NODE"], "2(x2),1");
  EXPECT_EQ(env["SLURM_JOB_NODELIST"], "gpu[1-3]");
  EXPECT_EQ(env["SLURM_JOB_CPUS_PER_NODE"], "4(x3)");
  EXPECT_EQ(env["CUDA_VISIBLE_DEVICES"], "0,1");
  EXPECT_EQ(env["SLURM_GPUS_ON_NODE"], "2");
  EXPECT_THAT(env, Not(Contains(Key("SLURM_NTASKS_PER_NODE"))));
  EXPECT_THAT(env, Not(Contains(Key("SLURM_ARRAY_JOB_ID"))));

  JobEnvironmentInput per_node = ThreeNodeJob();
  per_node.ntasks = 0;
  per_node.ntasks_per_node = 2;
  per_node.amd_gpus = true;
  per_node.array_job_id = 6;
  per_node.array_task_id = 1;
  env = JobVariables(per_node);
  EXPECT_EQ(env["SLURM_NTASKS"], "6");
  EXPECT_EQ(env["SLURM_TASKS_PER_NODE"], "2(x3)");
  EXPECT_EQ(env["SLURM_NTASKS_PER_NODE"], "2");
  EXPECT_EQ(env["ROCR_VISIBLE_DEVICES"], "0,1");
  EXPECT_THAT(env, Not(Contains(Key("CUDA_VISIBLE_DEVICES"))));
  EXPECT_EQ(env["SLURM_ARRAY_JOB_ID"], "6");
  EXPECT_EQ(env["SLURM_ARRAY_TASK_ID"], "1");

  JobEnvironmentInput one_per_node = ThreeNodeJob();
  one_per_node.ntasks = 0;
  env = JobVariables(one_per_node);
  EXPECT_THAT(env, Not(Contains(Key("SLURM_NTASKS"))));
  EXPECT_EQ(env["SLURM_TASKS_PER_NODE"], "1(x3)");
}

// What a job gets from its own submission or allocation, and only sometimes: an enclosing job's
// value must not pass for this one's.
TEST(JobEnvironmentTest, JobOwnVariables) {
  for (const char* own : {"SLURM_NTASKS", "SLURM_RESTART_COUNT", "SLURM_CPUS_PER_TASK",
                          "SLURM_ARRAY_TASK_ID", "SLURM_JOB_DEPENDENCY", "SLURM_JOB_QOS"}) {
    EXPECT_TRUE(IsJobOwnVariable(own)) << own;
  }
  for (const char* other : {"SLURM_JOB_ID", "SLURM_UMASK", "SLURM_EXPORT_ENV", "PATH",
                            "SLURM_NTASKSX", "_SLURM_SPANK_OPTION_x"}) {
    EXPECT_FALSE(IsJobOwnVariable(other)) << other;
  }
}

// Only the options given, GPU counts as they were written.
TEST(JobEnvironmentTest, SubmitOptionVariables) {
  EXPECT_TRUE(SubmitOptionVariables({}).empty());
  SubmitOptionsInput in;
  in.cpus_per_task = 4;
  in.mem_per_node_mib = 0;  // --mem=0: the whole node
  in.gpus_per_node = "h100:8";
  in.gpus_per_task = "1";
  in.overcommit = true;
  in.distribution = "block:cyclic";
  EXPECT_EQ(SubmitOptionVariables(in), (Environment{{"SLURM_CPUS_PER_TASK", "4"},
                                                    {"SLURM_MEM_PER_NODE", "0"},
                                                    {"SLURM_GPUS_PER_NODE", "h100:8"},
                                                    {"SLURM_GPUS_PER_TASK", "1"},
                                                    {"SLURM_OVERCOMMIT", "1"},
                                                    {"SLURM_DISTRIBUTION", "block:cyclic"}}));
}

// A job confined to its GPUs' device files sees them numbered from 0 (ConstrainDevices); the
// node's numbers stay in SLURM_JOB_GPUS.
TEST(JobEnvironmentTest, ConfinedGpusAreNumberedFromZero) {
  JobEnvironmentInput j = ThreeNodeJob();
  j.gpu_indexes = {2, 5, 7};
  j.gpus_confined = true;
  Environment env = JobVariables(j);
  EXPECT_EQ(env["CUDA_VISIBLE_DEVICES"], "0,1,2");
  EXPECT_EQ(env["SLURM_JOB_GPUS"], "2,5,7");
  EXPECT_EQ(env["SLURM_GPUS_ON_NODE"], "3");
  j.gpus_confined = false;
  EXPECT_EQ(JobVariables(j)["CUDA_VISIBLE_DEVICES"], "2,5,7");
}

// salloc's command runs on the submit host: the allocation's variables, none of a node's.
TEST(JobEnvironmentTest, AllocationVariablesHaveNothingOfOneNode) {
  Environment env = AllocationVariables(ThreeNodeJob());
  EXPECT_EQ(env["SLURM_JOB_ID"], "7");
  EXPECT_EQ(env["SLURM_JOB_NODELIST"], "gpu[1-3]");
  EXPECT_EQ(env["SLURM_JOB_NUM_NODES"], "3");
  EXPECT_EQ(env["SLURM_TASKS_PER_NODE"], "2(x2),1");
  EXPECT_EQ(env["SLURM_JOB_CPUS_PER_NODE"], "4(x3)");
  for (const char* node_only :
       {"SLURMD_NODENAME", "SLURM_NODEID", "SLURM_CPUS_ON_NODE", "SLURM_PROCID", "SLURM_LOCALID",
        "CUDA_VISIBLE_DEVICES", "SLURM_JOB_GPUS", "SLURM_TOPOLOGY_ADDR"}) {
    EXPECT_THAT(env, Not(Contains(Key(node_only))));
  }
  // The batch script's are the same plus this node's.
  Environment batch = JobVariables(ThreeNodeJob());
  for (const auto& [key, value] : env) {
    EXPECT_EQ(batch[key], value) << key;
  }
  EXPECT_EQ(batch["SLURMD_NODENAME"], "gpu2");
}

TEST(JobEnvironmentTest, StepVariablesOverrideTheJobs) {
  StepEnvironmentInput step;
  step.step_id = 2;
  step.node_index = 0;
  step.ntasks = 4;
  step.nodelist = "gpu[2-3]";
  step.num_nodes = 2;
  step.tasks_per_node = "2(x2)";
  Environment env = StepVariables(ThreeNodeJob(), step, 3, 1);
  EXPECT_EQ(env["SLURM_STEP_ID"], "2");
  EXPECT_EQ(env["SLURM_PROCID"], "3");
  EXPECT_EQ(env["SLURM_LOCALID"], "1");
  EXPECT_EQ(env["SLURM_NODEID"], "0");
  EXPECT_EQ(env["SLURM_NTASKS"], "4");
  EXPECT_EQ(env["SLURM_TASKS_PER_NODE"], "2(x2)");
  EXPECT_EQ(env["SLURM_JOB_NODELIST"], "gpu[1-3]");
  EXPECT_EQ(EnvironmentStrings({{"A", "1"}, {"B", ""}}), (std::vector<std::string>{"A=1", "B="}));
}

}  // namespace
}  // namespace canopy::slurm
