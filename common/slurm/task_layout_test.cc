#include "common/slurm/task_layout.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::slurm {
namespace {

using ::testing::ElementsAre;

TEST(TaskLayoutTest, BlockDistributionLikeSlurm) {
  absl::StatusOr<TaskLayout> l = LayOutTasks(4, 4, 8, 0);
  ASSERT_TRUE(l.ok());
  EXPECT_THAT(l->tasks_per_node, ElementsAre(2, 2, 2, 2));
  EXPECT_THAT(l->first_rank, ElementsAre(0, 2, 4, 6));
  EXPECT_EQ(l->TasksPerNodeString(), "2(x4)");
  l = LayOutTasks(4, 0, 0, 2);
  EXPECT_EQ(l->ntasks, 8);
  l = LayOutTasks(4, 0, 2, 0);  // fewer tasks than nodes: fewer nodes
  EXPECT_EQ(l->nodes, 2);
  l = LayOutTasks(4, 4, 2, 0);  // even with -N: srun's "setting nnodes to 2"
  EXPECT_EQ(l->nodes, 2);
  l = LayOutTasks(3, 3, 7, 0);
  EXPECT_EQ(l->TasksPerNodeString(), "3,2(x2)");
  l = LayOutTasks(3, 0, 5, 2);  // -n 5 at two per node needs three nodes
  EXPECT_EQ(l->nodes, 3);
  EXPECT_THAT(l->tasks_per_node, ElementsAre(2, 2, 1));
  EXPECT_FALSE(LayOutTasks(2, 3, 0, 0).ok());
  EXPECT_FALSE(LayOutTasks(2, 2, 9, 4).ok());
  EXPECT_EQ(LayOutTasks(0, 0, 0, 0).status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(TaskLayoutTest, CompressCountsAsSlurmPrintsThem) {
  EXPECT_EQ(CompressCounts({2, 2, 2, 1}), "2(x3),1");
  EXPECT_EQ(CompressCounts({1}), "1");
  EXPECT_EQ(CompressCounts({3, 2, 2}), "3,2(x2)");
  EXPECT_EQ(CompressCounts({}), "");
}

// --ntasks-per-node times the node count is computed in 64 bits: too many tasks is an error,
// not an int32 product that wrapped around.
TEST(TaskLayoutTest, HugeTaskCountsAreRefusedNotWrapped) {
  absl::StatusOr<TaskLayout> l = LayOutTasks(4, 4, 0, 1 << 30);
  ASSERT_FALSE(l.ok());
  EXPECT_THAT(l.status().message(), ::testing::HasSubstr("more tasks than a step may have"));
  l = LayOutTasks(4, 4, 2147483647, 1 << 30);
  ASSERT_TRUE(l.ok()) << l.status();  // fits the per-node limit arithmetic; steps.cc caps it
  EXPECT_EQ(l->ntasks, 2147483647);
}

}  // namespace
}  // namespace canopy::slurm
