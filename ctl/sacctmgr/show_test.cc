// sacctmgr show|list for the reference cluster (test_cluster.h), compared byte for byte with
// what Slurm 22.05 printed in tests/data/slurm-reference/accounting-outputs-22.05.txt.
#include "ctl/sacctmgr/show.h"

#include "ctl/sacctmgr/test_cluster.h"
#include "gtest/gtest.h"

namespace canopy::ctl::sacctmgr {
namespace {

std::string Show(const std::vector<std::string>& args,
                 const canopy::v1::ListAssociationsResponse& answer = ReferenceCluster()) {
  absl::StatusOr<Invocation> inv = ParseSacctmgrArgs(args);
  EXPECT_TRUE(inv.ok()) << inv.status();
  if (!inv.ok()) {
    return "";
  }
  absl::StatusOr<std::string> text =
      RenderShow(inv->options, inv->command, AssociationView(answer));
  EXPECT_TRUE(text.ok()) << text.status();
  return text.value_or("");
}

TEST(SacctmgrShowTest, UserAssociationsAccountColumnMatchesSlurm) {
  // $ sacctmgr -n -s list user root format=account%20
  EXPECT_EQ(Show({"-n", "-s", "list", "user", "root", "format=account%20"}),
            "                 nlp \n"
            "              vision \n"
            "                root \n");
}

TEST(SacctmgrShowTest, AssociationsMatchSlurm) {
  // $ sacctmgr show assoc format=cluster,account,user,fairshare,qos
  EXPECT_EQ(Show({"show", "assoc", "format=cluster,account,user,fairshare,qos"}),
            "   Cluster    Account       User     Share                  QOS \n"
            "---------- ---------- ---------- --------- -------------------- \n"
            "    anchor       root                    1               normal \n"
            "    anchor       root       root         1               normal \n"
            "    anchor        nlp                   30               normal \n"
            "    anchor        nlp       root         1               normal \n"
            "    anchor     vision                   70               normal \n"
            "    anchor     vision       root         1               normal \n");
}

TEST(SacctmgrShowTest, ParsableAccountsMatchSlurm) {
  // $ sacctmgr -P show account
  EXPECT_EQ(Show({"-P", "show", "account"}),
            "Account|Descr|Org\n"
            "nlp|nlp|lab\n"
            "root|default root account|root\n"
            "vision|vision|lab\n");
}

TEST(SacctmgrShowTest, DefaultFormats) {
  EXPECT_EQ(Show({"list", "users"}),
            "      User   Def Acct     Admin \n"
            "---------- ---------- --------- \n"
            "      root       root Administ+ \n");
  EXPECT_EQ(Show({"-p", "show", "assoc", "where", "account=nlp"}),
            "Cluster|Account|User|Partition|Share|Priority|GrpJobs|GrpTRES|GrpSubmit|GrpWall|"
            "GrpTRESMins|MaxJobs|MaxTRES|MaxTRESPerNode|MaxSubmit|MaxWall|MaxTRESMins|QOS|"
            "Def QOS|GrpTRESRunMins|\n"
            "anchor|nlp|||30|||||||||||||normal|||\n"
            "anchor|nlp|root||1|||||||||||||normal|||\n");
}

}  // namespace
}  // namespace canopy::ctl::sacctmgr
