// sacctmgr dump for the reference cluster, compared line for line with what Slurm 22.05 wrote
// (tests/data/slurm-reference/accounting-outputs-22.05.txt), and load back.
#include "ctl/sacctmgr/flat_file.h"

#include "ctl/sacctmgr/test_cluster.h"
#include "gtest/gtest.h"

namespace canopy::ctl::sacctmgr {
namespace {

// $ sacctmgr dump anchor file=/tmp/refjobs/anchor.cfg   (stderr, each line after "sacctmgr: ")
constexpr char kDumpLines[] =
    "Cluster - 'anchor':Fairshare=1:QOS='normal'\n"
    "Parent - 'root'\n"
    "User - 'root':DefaultAccount='root':AdminLevel='Administrator':Fairshare=1\n"
    "Account - 'nlp':Description='nlp':Organization='lab':Fairshare=30\n"
    "Account - 'vision':Description='vision':Organization='lab':Fairshare=70\n"
    "Parent - 'nlp'\n"
    "User - 'root':DefaultAccount='root':AdminLevel='Administrator':Fairshare=1\n"
    "Parent - 'vision'\n"
    "User - 'root':DefaultAccount='root':AdminLevel='Administrator':Fairshare=1\n";

// $ cat /tmp/refjobs/anchor.cfg   (the header before those lines)
constexpr char kHeader[] =
    "# To edit this file start with a cluster line for the new cluster\n"
    "# Cluster - 'cluster_name':MaxTRESPerJob=node=50\n"
    "# Followed by Accounts you want in this fashion (root is created by default)...\n"
    "# Parent - 'root'\n"
    "# Account - 'cs':MaxTRESPerJob=node=5:MaxJobs=4:MaxTRESMinsPerJob=cpu=20:FairShare=399:"
    "MaxWallDurationPerJob=40:Description='Computer Science':Organization='LC'\n"
    "# Any of the options after a ':' can be left out and they can be in any order.\n"
    "# If you want to add any sub accounts just list the Parent THAT HAS ALREADY\n"
    "# BEEN CREATED before the account line in this fashion...\n"
    "# Parent - 'cs'\n"
    "# Account - 'test':MaxTRESPerJob=node=1:MaxJobs=1:MaxTRESMinsPerJob=cpu=1:FairShare=1:"
    "MaxWallDurationPerJob=1:Description='Test Account':Organization='Test'\n"
    "# To add users to a account add a line like this after a Parent - 'line'\n"
    "# User - 'lipari':MaxTRESPerJob=node=2:MaxJobs=3:MaxTRESMinsPerJob=cpu=4:FairShare=1:"
    "MaxWallDurationPerJob=1\n";

std::string Dumped(const canopy::v1::ListAssociationsResponse& answer) {
  std::string text;
  for (const slurm::FlatFileRecord& r : DumpRecords(AssociationView(answer))) {
    text += slurm::FormatFlatFileRecord(r) + "\n";
  }
  return text;
}

TEST(SacctmgrFlatFileTest, DumpMatchesSlurm) {
  EXPECT_EQ(Dumped(ReferenceCluster()), kDumpLines);
  EXPECT_EQ(std::string(kDumpHeader), kHeader);
}

TEST(SacctmgrFlatFileTest, DeeperLevelsComeAfterTheirParentsLevel) {
  canopy::v1::ListAssociationsResponse answer = ReferenceCluster();
  AddTestAssociation(answer, "asr", "", 5)->set_parent("nlp");
  AddTestAssociation(answer, "asr", "carol", 1)->mutable_attributes(0)->set_value("asr");
  const std::string text = Dumped(answer);
  EXPECT_NE(text.find("Parent - 'nlp'\n"
                      "User - 'root':DefaultAccount='root':AdminLevel='Administrator':"
                      "Fairshare=1\n"
                      "Account - 'asr':Description='asr':Organization='lab':Fairshare=5\n"
                      "Parent - 'vision'\n"),
            std::string::npos)
      << text;
  EXPECT_TRUE(text.ends_with(
      "Parent - 'asr'\nUser - 'carol':DefaultAccount='asr':AdminLevel='Administrator':"
      "Fairshare=1\n"))
      << text;
}

TEST(SacctmgrFlatFileTest, LoadSendsTheWholeTree) {
  absl::StatusOr<std::vector<slurm::FlatFileRecord>> records =
      slurm::ParseFlatFile(std::string(kHeader) + kDumpLines, "anchor.cfg");
  ASSERT_TRUE(records.ok()) << records.status();
  const AssociationView view(ReferenceCluster());
  absl::StatusOr<LoadPlan> plan = PlanLoad(*records, "", "anchor.cfg", view);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const canopy::v1::UpdateAssociationsRequest& r = plan->request;
  EXPECT_EQ(r.operation(), canopy::v1::UpdateAssociationsRequest::OPERATION_REPLACE);
  ASSERT_EQ(r.associations_size(), 5);
  EXPECT_EQ(r.associations(0).account(), "root");
  EXPECT_EQ(r.associations(0).user(), "root");
  EXPECT_EQ(r.associations(1).account(), "nlp");
  EXPECT_EQ(r.associations(1).parent(), "");
  EXPECT_EQ(r.associations(1).shares(), 30);
  EXPECT_EQ(AssociationView::Attribute(r.associations(1), "Organization"), "lab");
  EXPECT_EQ(r.associations(4).account(), "vision");
  EXPECT_EQ(r.associations(4).user(), "root");
  EXPECT_TRUE(
      plan->preview.starts_with(" For cluster anchor the associations become those of anchor.cfg:\n"
                                "  User - 'root':DefaultAccount='root'"))
      << plan->preview;
  // What was dumped loads back to the same tree.
  canopy::v1::ListAssociationsResponse reloaded;
  reloaded.set_cluster_name("anchor");
  *reloaded.mutable_associations() = r.associations();
  EXPECT_EQ(Dumped(reloaded), kDumpLines);
}

TEST(SacctmgrFlatFileTest, LoadErrors) {
  const AssociationView view(ReferenceCluster());
  auto error = [&](const std::string& text, const std::string& cluster = "") {
    absl::StatusOr<std::vector<slurm::FlatFileRecord>> records = slurm::ParseFlatFile(text, "f");
    EXPECT_TRUE(records.ok()) << records.status();
    return std::string(PlanLoad(*records, cluster, "f", view).status().message());
  };
  EXPECT_EQ(error("Cluster - 'other'\n"),
            " Cluster other is not this cluster (anchor); use cluster=anchor to load it here");
  EXPECT_TRUE(error("Cluster - 'other'\n", "anchor").empty());
  EXPECT_EQ(error("Parent - 'root'\n"), " No cluster name was given in f; use cluster=NAME");
  EXPECT_EQ(error("Cluster - 'anchor'\nParent - 'ml'\n"),
            " Parent 'ml' on line 2 was not created before it");
  EXPECT_EQ(error("Cluster - 'anchor'\nAccount - 'a'\n"), " No Parent line before line 2 of f");
  EXPECT_EQ(error("Cluster - 'anchor'\nParent - 'root'\nAccount - 'a':Fairshare=x\n"),
            " Bad Fairshare value on line 3: x");
}

}  // namespace
}  // namespace canopy::ctl::sacctmgr
