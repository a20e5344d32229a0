#include "scheduler/fairshare/priority.h"

#include "gtest/gtest.h"

namespace canopy::fairshare {
namespace {

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

core::Job JobOf(int nodes, int cpus_per_node, absl::Time eligible) {
  core::Job job;
  job.resources.min_nodes = nodes;
  job.resources.cpus_per_node = cpus_per_node;
  job.eligible_time = eligible;
  return job;
}

// The reference cluster's sprio (tests/data/slurm-reference/accounting-outputs-22.05.txt):
// 16 nodes x 8 CPUs, weights Age=1000 Fairshare=1000 JobSize=1000, both jobs of a user with
// factor 1.0 just submitted: bigwait2 (-N16, 1 CPU per node) 1000 + 562 = 1562, small (-N1)
// 1000 + 35 = 1035.
TEST(PriorityTest, MatchesSprioOnTheReferenceCluster) {
  PriorityWeights w;
  w.age = 1000;
  w.fairshare = 1000;
  w.job_size = 1000;
  PriorityContext c;
  c.now = kNow;
  c.fairshare = 1.0;
  c.cluster_nodes = 16;
  c.cluster_cpus = 128;
  const Priority big = Weigh(ComputeFactors(JobOf(16, 1, kNow), c, w), w, 0);
  EXPECT_EQ(big.age, 0u);
  EXPECT_EQ(big.fairshare, 1000u);
  EXPECT_EQ(big.job_size, 562u);
  EXPECT_EQ(big.total, 1562u);
  const Priority small = Weigh(ComputeFactors(JobOf(1, 1, kNow), c, w), w, 0);
  EXPECT_EQ(small.job_size, 35u);
  EXPECT_EQ(small.total, 1035u);
}

TEST(PriorityTest, AgeGrowsToMaxAgeAndNiceSubtracts) {
  PriorityWeights w;
  w.age = 1000;
  w.max_age = absl::Hours(10);
  PriorityContext c;
  c.now = kNow;
  EXPECT_EQ(Weigh(ComputeFactors(JobOf(1, 1, kNow - absl::Hours(5)), c, w), w, 0).age, 500u);
  EXPECT_EQ(Weigh(ComputeFactors(JobOf(1, 1, kNow - absl::Hours(50)), c, w), w, 0).age, 1000u);
  EXPECT_EQ(Weigh(ComputeFactors(JobOf(1, 1, kNow - absl::Hours(5)), c, w), w, 100).total, 400u);
  // Never below 1: 0 means held.
  EXPECT_EQ(Weigh(ComputeFactors(JobOf(1, 1, kNow), c, w), w, 5000).total, 1u);
}

TEST(PriorityTest, FavorSmallTurnsJobSizeAround) {
  PriorityWeights w;
  w.job_size = 1000;
  w.favor_small = true;
  PriorityContext c;
  c.now = kNow;
  c.cluster_nodes = 16;
  c.cluster_cpus = 128;
  EXPECT_EQ(Weigh(ComputeFactors(JobOf(16, 8, kNow), c, w), w, 0).job_size, 0u);
  EXPECT_EQ(Weigh(ComputeFactors(JobOf(1, 1, kNow), c, w), w, 0).job_size, 964u);  // 1 - .0352
}

}  // namespace
}  // namespace canopy::fairshare
