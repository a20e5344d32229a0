#include "ctl/client/cli_error.h"

#include <sstream>

#include "gtest/gtest.h"

namespace canopy::ctl::client {
namespace {

// $ srun -p nosuch true, and the same with salloc, as Slurm 22.05 words them; canopyd's
// refusal is worded for sbatch.
TEST(PrintAllocationRefusalTest, LeadingLinesAreErrorsAndTheReasonFollowsTheCommandsWords) {
  const std::string refusal =
      "invalid partition specified: nosuch\n"
      "Batch job submission failed: Invalid partition name specified";
  std::ostringstream srun;
  PrintAllocationRefusal("srun: error: ", "srun: error: Unable to allocate resources: ", refusal,
                         srun);
  EXPECT_EQ(srun.str(),
            "srun: error: invalid partition specified: nosuch\n"
            "srun: error: Unable to allocate resources: Invalid partition name specified\n");
  std::ostringstream salloc;
  PrintAllocationRefusal("salloc: error: ", "salloc: error: Job submit/allocate failed: ", refusal,
                         salloc);
  EXPECT_EQ(salloc.str(),
            "salloc: error: invalid partition specified: nosuch\n"
            "salloc: error: Job submit/allocate failed: Invalid partition name specified\n");
  // A one-line refusal is the reason alone.
  std::ostringstream one;
  PrintAllocationRefusal("srun: error: ", "srun: error: Unable to allocate resources: ",
                         "Requested node configuration is not available", one);
  EXPECT_EQ(one.str(),
            "srun: error: Unable to allocate resources: Requested node configuration is not "
            "available\n");
}

}  // namespace
}  // namespace canopy::ctl::client
