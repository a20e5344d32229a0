#include "agent/runtime/job_environment.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::agent::runtime {
namespace {

using ::testing::Contains;
using ::testing::Key;
using ::testing::Not;

canopy::v1::LaunchJob TwoNodeJob() {
  canopy::v1::LaunchJob l;
  canopy::v1::Job* job = l.mutable_job();
  job->set_job_id(42);
  job->set_user_id(1000);
  job->set_group_id(100);
  job->set_user_name("alice");
  job->add_nodes("gpu001");
  job->add_nodes("gpu002");
  job->set_partition("batch");
  job->set_restart_count(1);
  job->set_qos("normal");
  canopy::v1::JobSpec* spec = job->mutable_spec();
  spec->set_name("train");
  spec->set_partition("ignored");
  spec->set_account("ml");
  spec->set_submit_dir("/home/alice");
  spec->set_submit_host("login1");
  spec->set_ntasks_per_node(4);
  (*spec->mutable_environment())["PATH"] = "/usr/bin";
  (*spec->mutable_environment())["SLURM_JOB_ID"] = "stale";
  l.set_node_index(1);
  l.add_gpu_indexes(2);
  l.add_gpu_indexes(3);
  l.set_cpus(16);
  l.set_topology_addr("spine1.leaf2.gpu002");
  l.set_topology_addr_pattern("switch.switch.node");
  l.set_cluster_name("canopy");
  return l;
}

TEST(JobEnvironmentTest, BatchVariablesExact) {
  const Environment env = BuildJobEnvironment(TwoNodeJob(), NodeIdentity{"gpu002", false});
  const Environment expected = {
      {"PATH", "/usr/bin"},
      {"SLURM_JOB_ID", "42"},
      {"SLURM_JOBID", "42"},
      {"SLURM_JOB_NAME", "train"},
      {"SLURM_JOB_NODELIST", "gpu[001-002]"},
      {"SLURM_NODELIST", "gpu[001-002]"},
      {"SLURM_JOB_NUM_NODES", "2"},
      {"SLURM_NNODES", "2"},
      {"SLURM_NTASKS", "8"},
      {"SLURM_NPROCS", "8"},
      {"SLURM_NTASKS_PER_NODE", "4"},
      {"SLURM_TASKS_PER_NODE", "4(x2)"},
      {"SLURM_CPUS_ON_NODE", "16"},
      {"SLURM_JOB_CPUS_PER_NODE", "16(x2)"},
      {"SLURM_JOB_PARTITION", "batch"},
      {"SLURM_JOB_ACCOUNT", "ml"},
      {"SLURM_JOB_QOS", "normal"},
      {"SLURM_JOB_USER", "alice"},
      {"SLURM_JOB_UID", "1000"},
      {"SLURM_JOB_GID", "100"},
      {"SLURM_SUBMIT_DIR", "/home/alice"},
      {"SLURM_SUBMIT_HOST", "login1"},
      {"SLURM_CLUSTER_NAME", "canopy"},
      {"SLURM_RESTART_COUNT", "1"},
      {"SLURMD_NODENAME", "gpu002"},
      {"SLURM_NODEID", "1"},
      {"SLURM_PROCID", "0"},
      {"SLURM_LOCALID", "0"},
      {"SLURM_GTIDS", "0"},
      {"SLURM_TOPOLOGY_ADDR", "spine1.leaf2.gpu002"},
      {"SLURM_TOPOLOGY_ADDR_PATTERN", "switch.switch.node"},
      {"SLURM_GPUS_ON_NODE", "2"},
      {"SLURM_JOB_GPUS", "2,3"},
      {"CUDA_VISIBLE_DEVICES", "2,3"},
  };
  EXPECT_EQ(env, expected);
}

TEST(JobEnvironmentTest, ExportNoneAmdArrayAndNoGpus) {
  canopy::v1::LaunchJob l = TwoNodeJob();
  l.mutable_job()->mutable_spec()->set_export_none(true);
  l.mutable_job()->set_array_job_id(40);
  l.mutable_job()->set_array_task_id(2);
  Environment env = BuildJobEnvironment(l, NodeIdentity{"gpu002", true});
  EXPECT_THAT(env, Not(Contains(Key("PATH"))));
  EXPECT_THAT(env, Not(Contains(Key("CUDA_VISIBLE_DEVICES"))));
  EXPECT_EQ(env["ROCR_VISIBLE_DEVICES"], "2,3");
  EXPECT_EQ(env["SLURM_ARRAY_JOB_ID"], "40");
  EXPECT_EQ(env["SLURM_ARRAY_TASK_ID"], "2");

  l.clear_gpu_indexes();
  env = BuildJobEnvironment(l, NodeIdentity{"gpu002", false});
  EXPECT_THAT(env, Not(Contains(Key("CUDA_VISIBLE_DEVICES"))));
  EXPECT_THAT(env, Not(Contains(Key("SLURM_JOB_GPUS"))));
  EXPECT_THAT(env, Not(Contains(Key("SLURM_GPUS_ON_NODE"))));
}

TEST(JobEnvironmentTest, TaskCounts) {
  canopy::v1::LaunchJob l = TwoNodeJob();
  canopy::v1::JobSpec* spec = l.mutable_job()->mutable_spec();
  spec->set_ntasks_per_node(0);
  spec->set_ntasks(5);
  l.mutable_job()->add_nodes("gpu003");
  Environment env = BuildJobEnvironment(l, NodeIdentity{"gpu002", false});
  EXPECT_EQ(env["SLURM_NTASKS"], "5");
  EXPECT_EQ(env["SLURM_TASKS_PER_NODE"], "2(x2),1");
  EXPECT_THAT(env, Not(Contains(Key("SLURM_NTASKS_PER_NODE"))));

  // Neither -n nor --ntasks-per-node: as in Slurm, no SLURM_NTASKS (srun then runs a task per
  // node).
  spec->set_ntasks(0);
  env = BuildJobEnvironment(l, NodeIdentity{"gpu002", false});
  EXPECT_THAT(env, Not(Contains(Key("SLURM_NTASKS"))));
  EXPECT_THAT(env, Not(Contains(Key("SLURM_NPROCS"))));
  EXPECT_EQ(env["SLURM_TASKS_PER_NODE"], "1(x3)");
}

// Slurm leaves these out rather than set them empty or 0: a first run has no
// SLURM_RESTART_COUNT, a job without an account no SLURM_JOB_ACCOUNT.
TEST(JobEnvironmentTest, WhatSlurmLeavesOut) {
  canopy::v1::LaunchJob l = TwoNodeJob();
  l.mutable_job()->set_restart_count(0);
  l.mutable_job()->clear_qos();
  l.mutable_job()->mutable_spec()->clear_account();
  const Environment env = BuildJobEnvironment(l, NodeIdentity{"gpu002", false});
  EXPECT_THAT(env, Not(Contains(Key("SLURM_RESTART_COUNT"))));
  EXPECT_THAT(env, Not(Contains(Key("SLURM_JOB_ACCOUNT"))));
  EXPECT_THAT(env, Not(Contains(Key("SLURM_JOB_QOS"))));
}

TEST(JobEnvironmentTest, StepOverridesSrunAndJobVariables) {
  canopy::v1::LaunchStep step;
  step.set_job_id(42);
  step.set_step_id(3);
  step.set_node_index(0);
  step.add_task_ranks(4);
  step.add_task_ranks(5);
  step.set_ntasks(6);
  step.set_step_nodelist("gpu002");
  step.set_step_num_nodes(1);
  step.set_tasks_per_node("2");
  (*step.mutable_environment())["HOME"] = "/home/alice";
  (*step.mutable_environment())["SLURM_PROCID"] = "99";
  (*step.mutable_environment())["SLURM_NTASKS"] = "99";
  Environment env = BuildStepEnvironment(TwoNodeJob(), step, NodeIdentity{"gpu002", false}, 5, 1);
  EXPECT_EQ(env["HOME"], "/home/alice");
  EXPECT_EQ(env["SLURM_STEP_ID"], "3");
  EXPECT_EQ(env["SLURM_STEPID"], "3");
  EXPECT_EQ(env["SLURM_PROCID"], "5");
  EXPECT_EQ(env["SLURM_LOCALID"], "1");
  EXPECT_EQ(env["SLURM_NODEID"], "0");
  EXPECT_EQ(env["SLURM_NTASKS"], "6");
  EXPECT_EQ(env["SLURM_NPROCS"], "6");
  EXPECT_EQ(env["SLURM_STEP_NUM_TASKS"], "6");
  EXPECT_EQ(env["SLURM_STEP_NODELIST"], "gpu002");
  EXPECT_EQ(env["SLURM_STEP_NUM_NODES"], "1");
  EXPECT_EQ(env["SLURM_STEP_TASKS_PER_NODE"], "2");
  EXPECT_EQ(env["SLURM_TASKS_PER_NODE"], "2");
  EXPECT_EQ(env["SLURM_GTIDS"], "4,5");  // the step's ranks on this node
  EXPECT_EQ(env["SLURM_JOB_ID"], "42");
  EXPECT_EQ(env["CUDA_VISIBLE_DEVICES"], "2,3");
  EXPECT_EQ(env["SLURM_CPUS_ON_NODE"], "16");
  EXPECT_EQ(env["SLURMD_NODENAME"], "gpu002");
  EXPECT_EQ(EnvironmentStrings({{"A", "1"}, {"B", ""}}), (std::vector<std::string>{"A=1", "B="}));
}

// --export=NONE with the login environment loaded: the login environment underneath, the
// submitter's SLURM_* variables kept, nothing else of the submitter's, the job's own on top.
TEST(JobEnvironmentTest, ExportNoneKeepsSlurmVariablesOverTheLoginEnvironment) {
  canopy::v1::LaunchJob l = TwoNodeJob();
  canopy::v1::JobSpec& spec = *l.mutable_job()->mutable_spec();
  spec.set_export_none(true);
  (*spec.mutable_environment())["EDITOR"] = "vi";
  (*spec.mutable_environment())["SLURM_GET_USER_ENV"] = "1";
  (*spec.mutable_environment())["SLURM_EXPORT_ENV"] = "NONE";
  (*spec.mutable_environment())["HOME"] = "/submitter";
  EXPECT_TRUE(WantsLoginEnvironment(l));
  const Environment login = {
      {"HOME", "/home/alice"}, {"PATH", "/opt/bin:/usr/bin"}, {"SLURM_JOB_ID", "stale"}};
  Environment env = BuildJobEnvironment(l, NodeIdentity{"gpu002", false}, &login);
  EXPECT_EQ(env["HOME"], "/home/alice");
  EXPECT_EQ(env["PATH"], "/opt/bin:/usr/bin");
  EXPECT_THAT(env, Not(Contains(Key("EDITOR"))));
  EXPECT_EQ(env["SLURM_EXPORT_ENV"], "NONE");
  EXPECT_EQ(env["SLURM_GET_USER_ENV"], "1");
  EXPECT_EQ(env["SLURM_JOB_ID"], "42");

  // A list: what the submitter sent wins over the login environment.
  spec.set_export_none(false);
  env = BuildJobEnvironment(l, NodeIdentity{"gpu002", false}, &login);
  EXPECT_EQ(env["HOME"], "/submitter");
  EXPECT_EQ(env["EDITOR"], "vi");
  spec.mutable_environment()->erase("SLURM_GET_USER_ENV");
  EXPECT_FALSE(WantsLoginEnvironment(l));
}

TEST(JobEnvironmentTest, TheUmaskIsTheSubmittersOctalMaskTakenOutOfTheEnvironment) {
  auto take = [](std::vector<std::string> env) { return TakeUmask(env); };
  std::vector<std::string> env = {"PATH=/bin", "SLURM_UMASK=0027", "HOME=/h"};
  EXPECT_EQ(TakeUmask(env), std::optional<mode_t>(027));
  EXPECT_EQ(env, (std::vector<std::string>{"PATH=/bin", "HOME=/h"}));
  EXPECT_EQ(take({"SLURM_UMASK=077"}), std::optional<mode_t>(077));
  EXPECT_EQ(take({"SLURM_UMASK=0"}), std::optional<mode_t>(0));
  EXPECT_EQ(take({"PATH=/bin"}), std::nullopt);
  EXPECT_EQ(take({"SLURM_UMASK="}), std::nullopt);
  EXPECT_EQ(take({"SLURM_UMASK=0089"}), std::nullopt);
  EXPECT_EQ(take({"SLURM_UMASK=01777"}), std::nullopt);
  EXPECT_EQ(take({"SLURM_UMASK=-022"}), std::nullopt);
  env = {"SLURM_UMASK=junk"};
  EXPECT_EQ(TakeUmask(env), std::nullopt);
  EXPECT_TRUE(env.empty());
}

}  // namespace
}  // namespace canopy::agent::runtime
