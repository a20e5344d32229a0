#include "ctl/srun/requests.h"

#include "gtest/gtest.h"

namespace canopy::ctl::srun {
namespace {

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

// srun -c inside a job run with another -c: the step's tasks see srun's (Slurm 22.05's srun).
TEST(SrunOptionsTest, AStepsOwnCpusPerTask) {
  absl::StatusOr<SrunOptions> o = ParseSrunArgs({"-c", "2", "env"});
  ASSERT_TRUE(o.ok()) << o.status();
  canopy::v1::CreateStepRequest step = BuildStepRequest(
      *o, 7, {{"SLURM_CPUS_PER_TASK", "4"}, {"SLURM_MEM_PER_NODE", "300"}}, "/cwd");
  EXPECT_EQ(step.environment().at("SLURM_CPUS_PER_TASK"), "2");
  EXPECT_EQ(step.environment().at("SLURM_MEM_PER_NODE"), "300");
  o = ParseSrunArgs({"env"});
  ASSERT_TRUE(o.ok()) << o.status();
  step = BuildStepRequest(*o, 7, {{"SLURM_CPUS_PER_TASK", "4"}}, "/cwd");
  EXPECT_EQ(step.environment().at("SLURM_CPUS_PER_TASK"), "4");
}

TEST(SrunOptionsTest, AllocationRecordsWhatSlurmShows) {
  SrunInput input;
  input.now = absl::FromUnixSeconds(1'800'000'000);
  absl::StatusOr<SrunOptions> o =
      ParseSrunArgs({"-n", "4", "--gpus-per-task=1", "--mem-per-gpu=2G", "--comment=c", "--wckey=w",
                     "--mail-type=BEGIN", "--mail-user=u", "--reservation=r",
                     "--deadline=now+1hour", "--delay-boot=1", "--container=/oci",
                     "--cpus-per-gpu=2", "--gpu-bind=none", "-O", "--exclusive=mcs", "x"},
                    input);
  ASSERT_TRUE(o.ok()) << o.status();
  o->run_as_uid = 5;
  canopy::v1::JobSpec spec = BuildAllocationSpec(*o, "/cwd", "login1");
  EXPECT_EQ(spec.gpus_per_task(), 1);
  EXPECT_EQ(spec.gpus_per_node(), 4);  // 4 tasks on one node
  EXPECT_EQ(spec.mem_per_gpu_mib(), 2048);
  EXPECT_EQ(spec.mem_per_node_mib(), 4 * 2048);
  EXPECT_EQ(spec.comment(), "c");
  EXPECT_EQ(spec.wckey(), "w");
  EXPECT_EQ(spec.mail_type(), "BEGIN");
  EXPECT_EQ(spec.mail_user(), "u");
  EXPECT_EQ(spec.reservation(), "r");
  EXPECT_EQ(spec.deadline().seconds(), 1'800'003'600);
  EXPECT_EQ(spec.delay_boot().seconds(), 60);
  EXPECT_EQ(spec.container(), "/oci");
  EXPECT_EQ(spec.cpus_per_gpu(), 2);
  EXPECT_EQ(spec.gpu_bind(), "none");
  EXPECT_TRUE(spec.overcommit());
  EXPECT_TRUE(spec.exclusive());
  EXPECT_EQ(spec.exclusive_mode(), "mcs");
  EXPECT_EQ(spec.run_as_uid(), 5u);
  EXPECT_FALSE(spec.has_run_as_gid());
}

}  // namespace
}  // namespace canopy::ctl::srun
