#include "common/os/gnu_flags.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace canopy::os {
namespace {

std::vector<std::string> Rewrite(std::vector<std::string> args) {
  std::vector<char*> argv;
  for (std::string& a : args) {
    argv.push_back(a.data());
  }
  AcceptDashedFlags(static_cast<int>(argv.size()), argv.data());
  return args;
}

TEST(GnuFlagsTest, DashesInNamesBecomeUnderscoresValuesAndOperandsStay) {
  EXPECT_EQ(Rewrite({"canopyd", "--log-level=debug", "--state-dir", "/var/x-y", "-v",
                     "--port_file=a-b", "--", "--not-a-flag"}),
            (std::vector<std::string>{"canopyd", "--log_level=debug", "--state_dir", "/var/x-y",
                                      "-v", "--port_file=a-b", "--", "--not-a-flag"}));
}

}  // namespace
}  // namespace canopy::os
