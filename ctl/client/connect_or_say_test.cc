#include "ctl/client/connect_or_say.h"

#include <cstdlib>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::ctl::client {
namespace {

using ::testing::HasSubstr;

// Nothing in the environment names a controller, so only the flag can.
class ConnectOrSayTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"CANOPY_CONTROLLER", "CANOPY_CONFIG", "SLURM_CONF"}) {
      unsetenv(name);
    }
  }
};

TEST_F(ConnectOrSayTest, AMalformedAddressIsSaidAsTheProgramsError) {
  std::ostringstream err;
  absl::StatusOr<ControllerClient> client = ConnectOrSay("sprio", err, "no port here");
  EXPECT_EQ(client.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(err.str(), "sprio: error: " + std::string(client.status().message()) + "\n");
}

TEST_F(ConnectOrSayTest, NoControllerConfiguredSaysHowToNameOne) {
  std::ostringstream err;
  absl::StatusOr<ControllerClient> client = ConnectOrSay("squeue", err);
  ASSERT_EQ(client.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(err.str(), "squeue: error: " + std::string(client.status().message()) + "\n");
  EXPECT_THAT(err.str(), HasSubstr("--controller HOST:PORT"));
}

TEST_F(ConnectOrSayTest, ReachableAddressSaysNothing) {
  std::ostringstream err;
  // Connect only resolves and builds the channel; no call is made, so no server is needed.
  absl::StatusOr<ControllerClient> client = ConnectOrSay("sinfo", err, "127.0.0.1:1");
  EXPECT_TRUE(client.ok()) << client.status();
  EXPECT_EQ(err.str(), "");
}

}  // namespace
}  // namespace canopy::ctl::client
