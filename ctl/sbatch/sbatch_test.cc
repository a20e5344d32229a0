// sbatch --test-only's line, against the one Slurm 22.05 printed in
// tests/data/slurm-reference/accounting-outputs-22.05.txt.
#include "ctl/sbatch/sbatch.h"

#include "gtest/gtest.h"

namespace canopy::ctl::sbatch {
namespace {

TEST(SbatchTestOnlyTest, LineMatchesSlurm) {
  canopy::v1::SubmitJobResponse r;
  r.set_job_id(1222);
  r.mutable_expected_start()->set_seconds(absl::ToUnixSeconds(
      absl::FromCivil(absl::CivilSecond(2026, 12, 3, 4, 11, 1), absl::UTCTimeZone())));
  for (const char* n : {"gpu013", "gpu014", "gpu015", "gpu016"}) {
    r.add_expected_nodes(n);
  }
  r.set_expected_cpus(4);
  r.set_partition("gpu");
  EXPECT_EQ(TestOnlyLine(r, absl::UTCTimeZone()),
            "Job 1222 to start at 2026-12-03T04:11:01 using 4 processors on nodes gpu[013-016] "
            "in partition gpu");
}

}  // namespace
}  // namespace canopy::ctl::sbatch
