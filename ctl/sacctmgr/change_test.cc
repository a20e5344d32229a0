// The change plans of sacctmgr add|modify|delete on the reference cluster (test_cluster.h):
// what is printed before the commit question and what is sent to canopyd.
#include "ctl/sacctmgr/change.h"

#include "ctl/sacctmgr/test_cluster.h"
#include "gtest/gtest.h"

namespace canopy::ctl::sacctmgr {
namespace {

using Request = canopy::v1::UpdateAssociationsRequest;

ChangePlan Plan(const std::vector<std::string>& args,
                const canopy::v1::ListAssociationsResponse& answer = ReferenceCluster()) {
  absl::StatusOr<Invocation> inv = ParseSacctmgrArgs(args);
  EXPECT_TRUE(inv.ok()) << inv.status();
  return inv.ok() ? PlanChange(inv->command, AssociationView(answer)) : ChangePlan();
}

std::string Attr(const canopy::v1::Association& a, const std::string& key) {
  return AssociationView::Attribute(a, key);
}

TEST(SacctmgrChangeTest, AddAccount) {
  const ChangePlan p = Plan({"add", "account", "speech", "Fairshare=20"});
  EXPECT_EQ(p.out,
            " Adding Account(s)\n"
            "  speech\n"
            " Settings\n"
            "  Description     = Account Name\n"
            "  Organization    = Parent/Account Name\n"
            " Associations\n"
            "  A = speech     C = anchor    \n"
            " Settings\n"
            "  Fairshare     = 20\n"
            "  Parent        = root\n");
  EXPECT_EQ(p.err, "");
  ASSERT_EQ(p.requests.size(), 1u);
  const Request& r = p.requests[0];
  EXPECT_EQ(r.operation(), Request::OPERATION_ADD);
  ASSERT_EQ(r.associations_size(), 1);
  EXPECT_EQ(r.associations(0).account(), "speech");
  EXPECT_EQ(r.associations(0).parent(), "");
  EXPECT_EQ(r.associations(0).shares(), 20);
  EXPECT_EQ(Attr(r.associations(0), "Description"), "speech");
  EXPECT_EQ(Attr(r.associations(0), "Organization"), "speech");
}

TEST(SacctmgrChangeTest, AddSubAccountsTakeTheParentAsOrganization) {
  const ChangePlan p =
      Plan({"add", "account", "asr,tts", "parent=nlp", "description=speech", "maxjobs=4"});
  EXPECT_EQ(p.out,
            " Adding Account(s)\n  asr\n  tts\n Settings\n  Description     = speech\n"
            "  Organization    = Parent/Account Name\n Associations\n"
            "  A = asr        C = anchor    \n  A = tts        C = anchor    \n"
            " Settings\n  MaxJobs       = 4\n  Parent        = nlp\n");
  ASSERT_EQ(p.requests.size(), 1u);
  EXPECT_EQ(p.requests[0].associations(1).parent(), "nlp");
  EXPECT_EQ(p.requests[0].associations(1).shares(), 1);
  EXPECT_EQ(Attr(p.requests[0].associations(1), "Organization"), "nlp");
  EXPECT_EQ(Attr(p.requests[0].associations(1), "MaxJobs"), "4");
}

TEST(SacctmgrChangeTest, AddAccountErrors) {
  EXPECT_EQ(Plan({"add", "account", "nlp"}).out, " Nothing new added.\n");
  EXPECT_EQ(Plan({"add", "account", "nlp"}).exit_code, 1);
  const ChangePlan p = Plan({"add", "account", "x", "parent=nope"});
  EXPECT_EQ(p.err,
            " Parent account 'nope' doesn't exist on cluster anchor\n"
            "        Contact your admin to add this account.\n");
  EXPECT_TRUE(p.requests.empty());
  EXPECT_EQ(Plan({"add", "account", "fairshare=3"}).err, " Need name of account to add.\n");
  EXPECT_EQ(Plan({"add", "account", "x", "cluster=other"}).err,
            " This cluster 'other' doesn't exist.\n"
            "        Contact your admin to add it to accounting.\n");
}

TEST(SacctmgrChangeTest, AddUser) {
  const ChangePlan p = Plan({"add", "user", "alice", "account=vision,nlp", "fairshare=2"});
  EXPECT_EQ(p.out,
            " Adding User(s)\n"
            "  alice\n"
            " Settings =\n"
            "  Default Account = vision\n"
            " Associations =\n"
            "  U = alice     A = vision     C = anchor    \n"
            "  U = alice     A = nlp        C = anchor    \n"
            " Non Default Settings\n"
            "  Fairshare     = 2\n");
  ASSERT_EQ(p.requests.size(), 1u);
  const Request& r = p.requests[0];
  ASSERT_EQ(r.associations_size(), 2);
  EXPECT_EQ(r.associations(1).user(), "alice");
  EXPECT_EQ(r.associations(1).account(), "nlp");
  EXPECT_EQ(r.associations(1).shares(), 2);
  EXPECT_EQ(Attr(r.associations(1), "DefaultAccount"), "vision");
  // A known user only gets the new association, under their existing default.
  const ChangePlan q = Plan({"add", "user", "root", "account=nlp,speech"});
  EXPECT_EQ(q.err,
            " This account 'speech' doesn't exist.\n"
            "        Contact your admin to add this account.\n");
  EXPECT_EQ(Plan({"add", "user", "root", "account=nlp"}).out, " Nothing new added.\n");
  EXPECT_EQ(Plan({"add", "user", "bob"}).err, " Need name of acct to add user to.\n");
  const ChangePlan d = Plan({"add", "user", "bob", "defaultaccount=nlp", "adminlevel=admin"});
  EXPECT_EQ(d.out,
            " Adding User(s)\n  bob\n Settings =\n  Default Account = nlp\n"
            "  Admin Level     = Administrator\n Associations =\n"
            "  U = bob       A = nlp        C = anchor    \n");
}

TEST(SacctmgrChangeTest, ModifyAccount) {
  const ChangePlan p = Plan({"modify", "account", "nlp", "set", "fairshare=40", "descr=NLP"});
  EXPECT_EQ(p.out,
            " Modified accounts...\n"
            "  nlp\n"
            " Modified account associations...\n"
            "  C = anchor     A = nlp of root\n");
  ASSERT_EQ(p.requests.size(), 1u);
  EXPECT_EQ(p.requests[0].operation(), Request::OPERATION_MODIFY);
  EXPECT_TRUE(p.requests[0].set_shares());
  EXPECT_EQ(p.requests[0].associations(0).shares(), 40);
  EXPECT_EQ(Attr(p.requests[0].associations(0), "Description"), "nlp");
  EXPECT_EQ(Plan({"modify", "account", "nope", "set", "fairshare=1"}).out, " Nothing modified\n");
  EXPECT_EQ(Plan({"modify", "account", "nlp"}).err, " You didn't give me anything to set\n");
  EXPECT_EQ(Plan({"modify", "account", "set", "fairshare=1"}).exit_code, 1);
}

TEST(SacctmgrChangeTest, ModifyUser) {
  const ChangePlan p =
      Plan({"modify", "user", "root", "where", "account=nlp", "set", "fairshare=5", "maxjobs=-1"});
  EXPECT_EQ(p.out,
            " Modified user associations...\n"
            "  C = anchor     A = nlp                  U = root     \n");
  ASSERT_EQ(p.requests.size(), 1u);
  EXPECT_EQ(p.requests[0].associations_size(), 1);
  EXPECT_EQ(p.requests[0].associations(0).shares(), 5);
  // MaxJobs=-1 clears the limit: canopyd removes an attribute set to "".
  EXPECT_EQ(p.requests[0].associations(0).attributes(0).key(), "MaxJobs");
  EXPECT_EQ(p.requests[0].associations(0).attributes(0).value(), "");
  const ChangePlan d = Plan({"modify", "user", "root", "set", "defaultaccount=vision"});
  EXPECT_EQ(d.out, " Modified users...\n  root\n");
  ASSERT_EQ(d.requests.size(), 1u);
  EXPECT_FALSE(d.requests[0].set_shares());
  EXPECT_EQ(d.requests[0].associations_size(), 3);  // every association of root's
  EXPECT_EQ(Plan({"modify", "user", "root", "set", "defaultaccount=speech"}).exit_code, 1);
}

TEST(SacctmgrChangeTest, DeleteAccount) {
  const ChangePlan p = Plan({"delete", "account", "vision"});
  EXPECT_EQ(p.out, " Deleting accounts...\n  vision\n");
  ASSERT_EQ(p.requests.size(), 1u);
  EXPECT_EQ(p.requests[0].operation(), Request::OPERATION_DELETE);
  EXPECT_EQ(p.requests[0].associations(0).account(), "vision");
  EXPECT_EQ(Plan({"delete", "account", "root"}).err,
            " You are not allowed to remove the root account.\n Use remove cluster instead.\n");
  EXPECT_EQ(Plan({"delete", "account"}).err, " No conditions given to remove, not executing.\n");
  EXPECT_EQ(Plan({"delete", "account", "nope"}).out, " Nothing deleted\n");
}

TEST(SacctmgrChangeTest, DeleteRefusesToTakeAUsersDefaultAccount) {
  canopy::v1::ListAssociationsResponse answer = ReferenceCluster();
  AddTestAssociation(answer, "vision", "alice", 1)->mutable_attributes(0)->set_value("vision");
  AddTestAssociation(answer, "nlp", "alice", 1)->mutable_attributes(0)->set_value("vision");
  const ChangePlan p = Plan({"delete", "account", "vision"}, answer);
  EXPECT_EQ(p.err,
            " Users listed below have these as their Default Accounts.\n"
            "C = anchor     A = vision               U = alice    \n"
            " Please either remove the accounts listed above from list and resubmit,\n"
            " or change these users default account to remove the accounts.\n"
            " Changes Discarded\n");
  EXPECT_TRUE(p.requests.empty());
}

TEST(SacctmgrChangeTest, DeleteUsersOrTheirAssociations) {
  canopy::v1::ListAssociationsResponse answer = ReferenceCluster();
  AddTestAssociation(answer, "vision", "alice", 1)->mutable_attributes(0)->set_value("vision");
  AddTestAssociation(answer, "nlp", "alice", 1)->mutable_attributes(0)->set_value("vision");
  const ChangePlan users = Plan({"delete", "user", "alice"}, answer);
  EXPECT_EQ(users.out, " Deleting users...\n  alice\n");
  ASSERT_EQ(users.requests.size(), 1u);
  EXPECT_EQ(users.requests[0].associations_size(), 2);
  const ChangePlan one = Plan({"delete", "user", "alice", "where", "account=nlp"}, answer);
  EXPECT_EQ(one.out,
            " Deleting user associations...\n"
            "  C = anchor     A = nlp        U = alice    \n");
  ASSERT_EQ(one.requests.size(), 1u);
  EXPECT_EQ(one.requests[0].associations(0).user(), "alice");
  EXPECT_EQ(one.requests[0].associations(0).account(), "nlp");
  EXPECT_EQ(Plan({"delete", "user", "alice", "account=vision"}, answer).exit_code, 1);
  EXPECT_EQ(Plan({"delete", "user", "nobody"}, answer).out, " Nothing deleted\n");
}

}  // namespace
}  // namespace canopy::ctl::sacctmgr
