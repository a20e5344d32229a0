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

}  // namespace
}  // namespace canopy::ctl::srun
