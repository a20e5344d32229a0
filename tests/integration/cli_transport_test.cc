// The command line's two ways to canopyd: over its unix socket canopyctl speaks gRPC's protocol
// itself (ctl/client/unix_grpc_call.h); with CANOPY_CLI_TRANSPORT=grpc, and over TCP, it goes
// through gRPC's client library. A real canopyd: the same commands print the same answers and
// the same errors either way.
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/local_cluster.h"

namespace canopy::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr char kConfig[] = R"(
cluster_name: transport
nodes:
  - names: gpu[1-2]
    cpus: 8
    gpus: {type: h100, count: 4}
partitions:
  - name: gpu
    nodes: ALL
    default: true
)";

class CliTransportTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(cluster_.StartController().ok()); }

  // Runs `name args` over the unix socket, directly (grpc == false) or through gRPC's client.
  CommandResult Run(bool grpc, const std::string& name, const std::vector<std::string>& args) {
    cluster_.SetFrontEndVariable("CANOPY_CLI_TRANSPORT", grpc ? "grpc" : "");
    return cluster_.FrontEnd(name, args);
  }

  // Submits a held job (it stays queued: there is no agent) and returns its id.
  uint32_t SubmitHeld(bool grpc, const std::string& name) {
    const CommandResult r =
        Run(grpc, "sbatch", {"-H", "-J", name, "-o", "/dev/null", "--wrap", "true"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_THAT(r.out, StartsWith("Submitted batch job "));
    uint32_t id = 0;
    EXPECT_TRUE(absl::SimpleAtoi(absl::StripAsciiWhitespace(r.out.substr(20)), &id)) << r.out;
    return id;
  }

  LocalCluster cluster_{kConfig};
};

TEST_F(CliTransportTest, BothWaysSubmitListShowAndCancelAlike) {
  const uint32_t direct = SubmitHeld(false, "same");
  const uint32_t through_grpc = SubmitHeld(true, "same");
  ASSERT_EQ(through_grpc, direct + 1);

  // Sorted by id: squeue's default order puts newer submissions first, and these two may fall
  // in one second or in two.
  for (bool grpc : {false, true}) {
    const CommandResult listed = Run(grpc, "squeue", {"-h", "-S", "i", "-o", "%i %j %T %r"});
    EXPECT_EQ(listed.exit_code, 0) << listed.err;
    EXPECT_EQ(listed.out, absl::StrCat(direct, " same PENDING JobHeldUser\n", through_grpc,
                                       " same PENDING JobHeldUser\n"));
  }
  // scontrol show job prints the same record either way (the ids aside).
  const CommandResult shown_direct = Run(false, "scontrol", {"show", "job", absl::StrCat(direct)});
  const CommandResult shown_grpc = Run(true, "scontrol", {"show", "job", absl::StrCat(direct)});
  ASSERT_EQ(shown_direct.exit_code, 0) << shown_direct.err;
  EXPECT_THAT(shown_direct.out, HasSubstr(absl::StrCat("JobId=", direct, " JobName=same")));
  EXPECT_EQ(shown_grpc.out, shown_direct.out);

  EXPECT_EQ(Run(false, "scancel", {absl::StrCat(direct)}).exit_code, 0);
  EXPECT_EQ(Run(true, "scancel", {absl::StrCat(through_grpc)}).exit_code, 0);
  const CommandResult left = Run(false, "squeue", {"-h", "-o", "%i"});
  EXPECT_EQ(left.out, "");
}

TEST_F(CliTransportTest, TheControllersRefusalReadsTheSameBothWays) {
  const CommandResult direct = Run(false, "scontrol", {"show", "job", "424242"});
  const CommandResult through_grpc = Run(true, "scontrol", {"show", "job", "424242"});
  EXPECT_NE(direct.exit_code, 0);
  EXPECT_THAT(direct.err, HasSubstr("Invalid job id specified"));
  EXPECT_EQ(through_grpc.exit_code, direct.exit_code);
  EXPECT_EQ(through_grpc.err, direct.err);
}

TEST_F(CliTransportTest, AStoppedControllerIsReportedAsUnreachableBothWays) {
  cluster_.StopController();
  for (bool grpc : {false, true}) {
    const CommandResult r = Run(grpc, "squeue", {});
    EXPECT_EQ(r.exit_code, 1) << (grpc ? "grpc: " : "direct: ") << r.out;
    EXPECT_THAT(r.err,
                HasSubstr(absl::StrCat("cannot reach canopyd at ", cluster_.socket_target())))
        << (grpc ? "grpc" : "direct");
    EXPECT_THAT(r.err, HasSubstr("is it running")) << (grpc ? "grpc" : "direct");
    // Which client spoke: the direct one names the socket it could not connect to, gRPC's
    // says it in its own words. So the variable is honoured and the default path is direct.
    const std::string direct_words =
        absl::StrCat("(connect to ", cluster_.socket_target().substr(5), ": ");
    if (grpc) {
      EXPECT_THAT(r.err, Not(HasSubstr(direct_words)));
    } else {
      EXPECT_THAT(r.err, HasSubstr(direct_words));
    }
  }
}

TEST_F(CliTransportTest, OverTcpTheCommandsUseGrpcsChannel) {
  const uint32_t id = SubmitHeld(false, "tcp");
  // canopyctl --controller 127.0.0.1:PORT: TCP, through gRPC's library.
  const CommandResult shown =
      RunCommand({CANOPYCTL_PATH, "--controller", cluster_.address(), "jobs"});
  EXPECT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_THAT(shown.out, HasSubstr(absl::StrCat(id)));
}

}  // namespace
}  // namespace canopy::testing
