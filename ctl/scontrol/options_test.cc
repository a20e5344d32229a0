#include "ctl/scontrol/options.h"

#include "gtest/gtest.h"

namespace canopy::ctl::scontrol {
namespace {

TEST(ScontrolOptionsTest, KeywordsAndEntities) {
  absl::StatusOr<ScontrolRequest> r = ParseScontrolArgs({"sho", "hostn=n[1-2]"});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->command, Command::kShowHostnames);
  EXPECT_EQ(r->args, (std::vector<std::string>{"n[1-2]"}));
  EXPECT_EQ(ParseScontrolArgs({"show", "hostlistsorted", "a"})->command,
            Command::kShowHostlistSorted);
  EXPECT_EQ(ParseScontrolArgs({"show", "hostl", "a"})->command, Command::kShowHostlist);
  EXPECT_EQ(ParseScontrolArgs({"show", "t"})->command, Command::kShowTopology);
  EXPECT_EQ(ParseScontrolArgs({"u", "NodeName=a"})->command, Command::kUpdate);
  EXPECT_EQ(ParseScontrolArgs({"ping"})->command, Command::kPing);
  EXPECT_EQ(ParseScontrolArgs({"show"}).status().message(), "too few arguments for keyword:show");
  EXPECT_EQ(ParseScontrolArgs({"show", "foo"}).status().message(),
            "invalid entity:foo for keyword:show ");
  EXPECT_EQ(ParseScontrolArgs({"pin"}).status().message(), "invalid keyword: pin");
}

TEST(ScontrolOptionsTest, NewShowEntities) {
  EXPECT_EQ(ParseScontrolArgs({"show", "node", "gpu001"})->command, Command::kShowNode);
  EXPECT_EQ(ParseScontrolArgs({"show", "nodes"})->command, Command::kShowNode);
  EXPECT_EQ(ParseScontrolArgs({"show", "n"})->command, Command::kShowNode);
  EXPECT_EQ(ParseScontrolArgs({"show", "node=gpu[001-002]"})->args,
            (std::vector<std::string>{"gpu[001-002]"}));
  EXPECT_EQ(ParseScontrolArgs({"show", "partition"})->command, Command::kShowPartition);
  EXPECT_EQ(ParseScontrolArgs({"show", "pa", "gpu"})->command, Command::kShowPartition);
  EXPECT_EQ(ParseScontrolArgs({"show", "PartitionName=gpu"})->command, Command::kShowPartition);
  EXPECT_EQ(ParseScontrolArgs({"show", "config"})->command, Command::kShowConfig);
  EXPECT_EQ(ParseScontrolArgs({"show", "c"})->command, Command::kShowConfig);
  EXPECT_EQ(ParseScontrolArgs({"show", "reservation"})->command, Command::kShowReservation);
  EXPECT_EQ(ParseScontrolArgs({"show", "res"})->command, Command::kShowReservation);
  EXPECT_EQ(ParseScontrolArgs({"show", "ReservationName=r1"})->command, Command::kShowReservation);
  EXPECT_EQ(ParseScontrolArgs({"show", "steps"})->command, Command::kShowSteps);
  EXPECT_EQ(ParseScontrolArgs({"show", "step", "5.0"})->command, Command::kShowSteps);
  // Too short to tell apart from Slurm's other entities.
  EXPECT_EQ(ParseScontrolArgs({"show", "p"}).status().message(),
            "invalid entity:p for keyword:show ");
  EXPECT_EQ(ParseScontrolArgs({"show", "s"}).status().message(),
            "invalid entity:s for keyword:show ");
  EXPECT_EQ(ParseScontrolArgs({"show", "nodename=gpu001"}).status().message(),
            "invalid entity:nodename for keyword:show ");
}

TEST(ScontrolOptionsTest, WriteBatchScript) {
  absl::StatusOr<ScontrolRequest> r = ParseScontrolArgs({"write", "batch_script", "5", "-"});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->command, Command::kWriteBatchScript);
  EXPECT_EQ(r->args, (std::vector<std::string>{"5", "-"}));
  EXPECT_EQ(ParseScontrolArgs({"write", "batch"})->args, std::vector<std::string>{});
  EXPECT_EQ(ParseScontrolArgs({"write"}).status().message(), "too few arguments for keyword:write");
  EXPECT_EQ(ParseScontrolArgs({"write", "batch_script", "5", "f", "g"}).status().message(),
            "too many arguments for keyword:write");
  EXPECT_EQ(ParseScontrolArgs({"write", "bat", "5"}).status().message(),
            "invalid write argument:bat");
  EXPECT_EQ(ParseScontrolArgs({"writ", "batch_script", "5"}).status().message(),
            "invalid keyword: writ");
}

TEST(ScontrolOptionsTest, GetoptOptionsAnywhereOnTheLine) {
  absl::StatusOr<ScontrolRequest> r = ParseScontrolArgs({"-o", "show", "-dv", "topology", "-v"});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->command, Command::kShowTopology);
  EXPECT_TRUE(r->one_liner);
  EXPECT_TRUE(r->details);
  EXPECT_EQ(r->verbose, 2);
  EXPECT_TRUE(ParseScontrolArgs({"--onel", "ping"})->one_liner);  // getopt abbreviation
  EXPECT_EQ(
      ParseScontrolArgs({"--bogus", "ping"}).status().message(),
      "scontrol: unrecognized option '--bogus'\nTry \"scontrol --help\" for more information");
  EXPECT_EQ(ParseScontrolArgs({"-Z", "ping"}).status().message(),
            "scontrol: invalid option -- 'Z'\nTry \"scontrol --help\" for more information");
}

TEST(ScontrolOptionsTest, NodeUpdate) {
  absl::StatusOr<canopy::v1::UpdateNodeRequest> r =
      ParseNodeUpdate({"nodename=gpu[1-2]", "State=DRAIN", "Reason=bad fan"});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->nodes(), "gpu[1-2]");
  EXPECT_EQ(r->action(), canopy::v1::UpdateNodeRequest::ACTION_DRAIN);
  EXPECT_EQ(r->reason(), "bad fan");
  EXPECT_EQ(ParseNodeUpdate({"NodeName=a", "State=undrain"})->action(),
            canopy::v1::UpdateNodeRequest::ACTION_RESUME);
  EXPECT_EQ(ParseNodeUpdate({"x"}).status().message(),
            "scontrol: error: Invalid input: x\nRequest aborted");
  EXPECT_EQ(ParseNodeUpdate({"Weight=1"}).status().message(),
            "scontrol: error: Update of this parameter is not supported: Weight=1\n"
            "Request aborted");
  EXPECT_EQ(ParseNodeUpdate({"State=bogus"}).status().message(),
            "scontrol: error: Invalid node state specified");
}

TEST(ScontrolOptionsTest, Version) {
  EXPECT_EQ(ParseScontrolArgs({"-V"})->command, Command::kVersion);
  EXPECT_EQ(ParseScontrolArgs({"--version", "show", "job"})->command, Command::kVersion);
  EXPECT_EQ(ParseScontrolArgs({"-V", "--bogus"})->command, Command::kVersion);
  EXPECT_EQ(ParseScontrolArgs({"version"})->command, Command::kVersion);
  EXPECT_EQ(ParseScontrolArgs({"vers"})->command, Command::kVersion);
  EXPECT_FALSE(ParseScontrolArgs({"ver"}).ok());  // shorter than scontrol's 4 letters
}

}  // namespace
}  // namespace canopy::ctl::scontrol
