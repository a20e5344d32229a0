#include "ctl/sacctmgr/command.h"

#include <sstream>

#include "ctl/sacctmgr/sacctmgr.h"
#include "gtest/gtest.h"

namespace canopy::ctl::sacctmgr {
namespace {

Command Parse(const std::vector<std::string>& args) {
  absl::StatusOr<Invocation> inv = ParseSacctmgrArgs(args);
  EXPECT_TRUE(inv.ok()) << inv.status();
  return inv.ok() ? inv->command : Command();
}

std::string Error(const std::vector<std::string>& args) {
  absl::StatusOr<Invocation> inv = ParseSacctmgrArgs(args);
  EXPECT_FALSE(inv.ok());
  return std::string(inv.status().message());
}

TEST(SacctmgrCommandTest, GlobalOptions) {
  absl::StatusOr<Invocation> inv =
      ParseSacctmgrArgs({"-i", "-n", "-s", "list", "user", "-P", "root", "--readonly"});
  ASSERT_TRUE(inv.ok()) << inv.status();
  EXPECT_TRUE(inv->options.immediate);
  EXPECT_TRUE(inv->options.no_header);
  EXPECT_TRUE(inv->options.readonly);
  EXPECT_EQ(inv->options.mode, output::FieldsMode::kParsable2);
  EXPECT_TRUE(inv->command.with_assoc);  // -s
  EXPECT_EQ(inv->command.names, (std::vector<std::string>{"root"}));
  EXPECT_EQ(ParseSacctmgrArgs({"-p", "show", "assoc"})->options.mode,
            output::FieldsMode::kParsable);
  EXPECT_TRUE(ParseSacctmgrArgs({"--help"})->options.help);
  EXPECT_EQ(ParseSacctmgrArgs({"-V"})->command.verb, Verb::kVersion);
  EXPECT_EQ(ParseSacctmgrArgs(
                {"--immediate", "--noheader", "--parsable2", "--associations", "--quiet", "help"})
                ->command.verb,
            Verb::kHelp);
}

TEST(SacctmgrCommandTest, VerbsAndEntitiesArePrefixes) {
  EXPECT_EQ(Parse({"show", "assoc"}).entity, Entity::kAssociation);
  EXPECT_EQ(Parse({"list", "associations"}).entity, Entity::kAssociation);
  EXPECT_EQ(Parse({"sho", "ac"}).entity, Entity::kAccount);
  EXPECT_EQ(Parse({"LIST", "acct"}).entity, Entity::kAccount);
  EXPECT_EQ(Parse({"list", "u"}).entity, Entity::kUser);
  EXPECT_EQ(Parse({"create", "a", "x"}).verb, Verb::kAdd);
  EXPECT_EQ(Parse({"m", "user", "x", "set", "f=1"}).verb, Verb::kModify);
  EXPECT_EQ(Parse({"update", "account", "x", "set", "f=1"}).verb, Verb::kModify);
  EXPECT_EQ(Parse({"remove", "user", "x"}).verb, Verb::kDelete);
  EXPECT_EQ(Parse({"del", "acc", "x"}).verb, Verb::kDelete);
}

TEST(SacctmgrCommandTest, ShowConditionsAndFormat) {
  const Command c = Parse({"show", "assoc", "where", "Accounts=NLP,vision", "users=root",
                           "cluster=anchor", "format=cluster,account%20"});
  EXPECT_EQ(c.accounts, (std::vector<std::string>{"nlp", "vision"}));
  EXPECT_EQ(c.users, (std::vector<std::string>{"root"}));
  EXPECT_EQ(c.clusters, (std::vector<std::string>{"anchor"}));
  EXPECT_EQ(c.format, (std::vector<std::string>{"cluster", "account%20"}));
  const Command a = Parse({"list", "account", "names=nlp", "descr=x", "org=lab", "withassoc"});
  EXPECT_EQ(a.names, (std::vector<std::string>{"nlp"}));
  EXPECT_EQ(a.descriptions, (std::vector<std::string>{"x"}));
  EXPECT_EQ(a.organizations, (std::vector<std::string>{"lab"}));
  EXPECT_TRUE(a.with_assoc);
  const Command u =
      Parse({"list", "user", "alice,bob", "ac=nlp", "defaultaccount=nlp", "adminlevel=none"});
  EXPECT_EQ(u.names, (std::vector<std::string>{"alice", "bob"}));
  EXPECT_EQ(u.accounts, (std::vector<std::string>{"nlp"}));
  EXPECT_EQ(u.default_accounts, (std::vector<std::string>{"nlp"}));
  EXPECT_EQ(u.admin_levels, (std::vector<std::string>{"none"}));
}

TEST(SacctmgrCommandTest, AddSettings) {
  const Command a = Parse({"add", "account", "vision,nlp", "Fairshare=70", "Parent=root",
                           "Description='Vision Lab'", "Organization=lab", "MaxJobs=10",
                           "maxw=1:00:00", "GrpTRES=gres/gpu=8"});
  EXPECT_EQ(a.entity, Entity::kAccount);
  EXPECT_EQ(a.names, (std::vector<std::string>{"vision", "nlp"}));
  EXPECT_EQ(a.shares, 70);
  EXPECT_EQ(a.parent, "root");
  EXPECT_EQ(*Setting(a, "description"), "vision lab");  // sacctmgr lower-cases it
  EXPECT_EQ(*Setting(a, "Organization"), "lab");
  EXPECT_EQ(*Setting(a, "MaxJobs"), "10");
  EXPECT_EQ(*Setting(a, "MaxWallDurationPerJob"), "1:00:00");
  EXPECT_EQ(*Setting(a, "GrpTRES"), "gres/gpu=8");
  EXPECT_TRUE(a.any_setting);
  const Command u = Parse({"add", "user", "alice", "Account=vision", "DefaultAccount=vision",
                           "AdminLevel=op", "Fairshare=parent"});
  EXPECT_EQ(u.names, (std::vector<std::string>{"alice"}));
  EXPECT_EQ(u.accounts, (std::vector<std::string>{"vision"}));
  EXPECT_EQ(*Setting(u, "DefaultAccount"), "vision");
  EXPECT_EQ(*Setting(u, "AdminLevel"), "Operator");
  EXPECT_EQ(u.shares, kParentShares);
}

TEST(SacctmgrCommandTest, ModifyAndDeleteSplitOnWhereAndSet) {
  const Command m =
      Parse({"modify", "user", "where", "name=alice", "account=nlp", "set", "fairshare=5"});
  EXPECT_EQ(m.names, (std::vector<std::string>{"alice"}));
  EXPECT_EQ(m.accounts, (std::vector<std::string>{"nlp"}));
  EXPECT_EQ(m.shares, 5);
  EXPECT_TRUE(m.any_condition);
  const Command bare = Parse({"modify", "account", "nlp", "set", "Description=NLP group"});
  EXPECT_EQ(bare.names, (std::vector<std::string>{"nlp"}));
  EXPECT_EQ(*Setting(bare, "Description"), "nlp group");
  const Command d = Parse({"delete", "user", "alice", "where", "account=vision"});
  EXPECT_EQ(d.names, (std::vector<std::string>{"alice"}));
  EXPECT_EQ(d.accounts, (std::vector<std::string>{"vision"}));
}

TEST(SacctmgrCommandTest, DumpAndLoad) {
  const Command d = Parse({"dump", "anchor", "file=/tmp/anchor.cfg"});
  EXPECT_EQ(d.verb, Verb::kDump);
  EXPECT_EQ(d.cluster, "anchor");
  EXPECT_EQ(d.file, "/tmp/anchor.cfg");
  const Command l = Parse({"load", "/tmp/anchor.cfg", "cluster=anchor", "clean"});
  EXPECT_EQ(l.verb, Verb::kLoad);
  EXPECT_EQ(l.file, "/tmp/anchor.cfg");
  EXPECT_EQ(l.cluster, "anchor");
  EXPECT_EQ(Error({"dump"}), " We need a cluster to dump.");
  EXPECT_EQ(Error({"dump", "a", "b"}), " Can only do one cluster at a time.  Already doing a");
  EXPECT_EQ(Error({"load"}), " No filename given.");
  EXPECT_EQ(Error({"dump", "a", "bogus=1"}), " Unknown option: bogus=1");
}

TEST(SacctmgrCommandTest, SacctmgrsErrors) {
  EXPECT_EQ(Error({"frobnicate"}), "invalid keyword: frobnicate");
  EXPECT_EQ(Error({"show", "things"}),
            "No valid entity in list command\n"
            "Input line must include \"Account\", \"Association\", \"Cluster\", "
            "\"Configuration\",\n\"Event\", \"Federation\", \"Problem\", \"QOS\", \"Resource\", "
            "\"Reservation\",\n\"RunAwayJobs\", \"Stats\", \"Transaction\", \"TRES\", \"User\", "
            "or \"WCKey\"");
  EXPECT_EQ(Error({"add"}),
            "No valid entity in add command\nInput line must include \"Account\", \"Cluster\", "
            "\"Coordinator\", \"Federation\", \"QOS\", \"Resource\", or \"User\"");
  EXPECT_EQ(Error({"modify", "x"}),
            "No valid entity in modify command\nInput line must include \"Account\", "
            "\"Cluster\", \"Federation\", \"Job\", \"QOS\", \"Resource\" or \"User\"");
  EXPECT_EQ(Error({"delete", "x"}),
            "No valid entity in delete command\nInput line must include \"Account\", "
            "\"Cluster\", \"Coordinator\", \"Federation\", \"QOS\", \"Resource\", or \"User\"");
  EXPECT_EQ(Error({"show", "assoc", "bogus=1"}),
            " Unknown condition: bogus=1\n Use keyword 'set' to modify value");
  EXPECT_EQ(Error({"add", "account", "x", "bogus=1"}),
            " Unknown option: bogus=1\n Use keyword 'where' to modify condition");
  EXPECT_EQ(Error({"add", "account", "x", "fairshare=abc"}),
            "sacctmgr: error: Invalid value for FairShare (abc)");
  EXPECT_EQ(Error({"modify", "account", "x", "set", "name=y"}),
            " Can't modify the name of an account");
  EXPECT_EQ(Error({"add", "user", "x", "adminlevel=king"}), " Unknown AdminLevel: king");
  EXPECT_EQ(Error({"--bogus"}),
            "sacctmgr: unrecognized option '--bogus'\nTry \"sacctmgr --help\" for more "
            "information");
  EXPECT_EQ(Error({"-X"}),
            "sacctmgr: invalid option -- 'X'\nTry \"sacctmgr --help\" for more information");
  EXPECT_EQ(ParseSacctmgrArgs({"show", "cluster"}).status().code(),
            absl::StatusCode::kUnimplemented);
  EXPECT_EQ(ParseSacctmgrArgs({}).status().code(), absl::StatusCode::kUnimplemented);
}

TEST(SacctmgrCommandTest, ParseErrorsExitOneBeforeAnyCall) {
  std::ostringstream out, err;
  EXPECT_EQ(RunSacctmgr({"frobnicate"}, out, err), 1);
  EXPECT_EQ(err.str(), "invalid keyword: frobnicate\n");
  EXPECT_EQ(out.str(), "");
  std::ostringstream out2, err2;
  EXPECT_EQ(RunSacctmgr({"-r", "add", "account", "x"}, out2, err2), 1);
  EXPECT_EQ(err2.str(), "Can't run this command in readonly mode.\n");
  std::ostringstream out3, err3;
  EXPECT_EQ(RunSacctmgr({"help"}, out3, err3), 0);
  EXPECT_EQ(out3.str(), SacctmgrUsage());
}

}  // namespace
}  // namespace canopy::ctl::sacctmgr
