// SLURM_UMASK as the front ends add it: the caller's mask in four octal digits, never over one
// the caller already has (a step inside a batch job keeps the submitter's).
#include "ctl/client/process_env.h"

#include <sys/stat.h>

#include "gtest/gtest.h"

namespace canopy::ctl::client {
namespace {

TEST(ProcessEnvTest, TheCallersUmaskIsAddedInOctalUnlessOneIsThere) {
  std::map<std::string, std::string> env = {{"HOME", "/h"}};
  AddUmask(env, 027);
  EXPECT_EQ(env.at("SLURM_UMASK"), "0027");
  AddUmask(env, 077);
  EXPECT_EQ(env.at("SLURM_UMASK"), "0027");  // kept

  const mode_t before = umask(0077);
  std::map<std::string, std::string> caller;
  AddCallerUmask(caller);
  umask(before);
  EXPECT_EQ(caller.at("SLURM_UMASK"), "0077");
  EXPECT_EQ(umask(before), before) << "the process's mask was changed";
}

}  // namespace
}  // namespace canopy::ctl::client
