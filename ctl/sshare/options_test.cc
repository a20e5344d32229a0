#include "ctl/sshare/options.h"

#include "gtest/gtest.h"

namespace canopy::ctl::sshare {
namespace {

const char kTry[] = "\nTry \"sshare --help\" for more information";

TEST(SshareOptionsTest, EveryForm) {
  absl::StatusOr<SshareOptions> o =
      ParseSshareArgs({"-lU", "--accounts=nlp,Vision", "-u", "alice,bob", "-P", "--format",
                       "Account", "-o", "User%12", "--noheader", "ignored-operand"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->long_format);
  EXPECT_TRUE(o->users_only);
  EXPECT_TRUE(o->no_header);
  EXPECT_EQ(o->accounts, (std::vector<std::string>{"nlp", "vision"}));
  EXPECT_EQ(o->users, (std::vector<std::string>{"alice", "bob"}));
  EXPECT_EQ(o->format, "Account,User%12");
  EXPECT_EQ(o->mode, output::FieldsMode::kParsable2);
  EXPECT_FALSE(o->all_users);

  EXPECT_EQ(ParseSshareArgs({"-p"})->mode, output::FieldsMode::kParsable);
  EXPECT_TRUE(ParseSshareArgs({"-h"})->no_header);
  EXPECT_TRUE(ParseSshareArgs({"--all"})->all_users);
  EXPECT_TRUE(ParseSshareArgs({"--usage"})->help);
  EXPECT_TRUE(ParseSshareArgs({"--help"})->help);
  EXPECT_TRUE(ParseSshareArgs({"-e"})->help_format);
  EXPECT_TRUE(ParseSshareArgs({"--Users"})->users_only);
  EXPECT_TRUE(ParseSshareArgs({"--parsable2"}).ok());
}

TEST(SshareOptionsTest, AllAndUsersFollowSshareOrder) {
  // -a drops a user list given before or after it; -u after -a turns -a off again in sshare,
  // but -a is applied last, so only "-u X" after "-a" keeps X.
  EXPECT_TRUE(ParseSshareArgs({"-u", "bob", "-a"})->all_users);
  EXPECT_TRUE(ParseSshareArgs({"-u", "bob", "-a"})->users.empty());
  EXPECT_FALSE(ParseSshareArgs({"-a", "-u", "bob"})->all_users);
  EXPECT_EQ(ParseSshareArgs({"-a", "-u", "bob"})->users, (std::vector<std::string>{"bob"}));
  EXPECT_TRUE(ParseSshareArgs({"-u", "-1"})->all_users);
}

TEST(SshareOptionsTest, GetoptErrors) {
  EXPECT_EQ(ParseSshareArgs({"--bogus"}).status().message(),
            std::string("unrecognized option '--bogus'") + kTry);
  EXPECT_EQ(ParseSshareArgs({"-A"}).status().message(),
            std::string("option requires an argument -- 'A'") + kTry);
  EXPECT_EQ(ParseSshareArgs({"-Z"}).status().message(),
            std::string("invalid option -- 'Z'") + kTry);
  EXPECT_EQ(ParseSshareArgs({"--long=1"}).status().message(),
            std::string("option '--long' doesn't allow an argument") + kTry);
}

TEST(SshareOptionsTest, Version) {
  EXPECT_TRUE(ParseSshareArgs({"-V"})->version);
  EXPECT_TRUE(ParseSshareArgs({"--version"})->version);
  EXPECT_FALSE(ParseSshareArgs({})->version);
  absl::StatusOr<SshareOptions> o = ParseSshareArgs({"-V", "--help", "--bogus"});
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_TRUE(o->version);
  EXPECT_FALSE(o->help);
}

}  // namespace
}  // namespace canopy::ctl::sshare
