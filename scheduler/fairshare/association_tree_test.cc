#include "scheduler/fairshare/association_tree.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::fairshare {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// `sacctmgr dump` of the reference cluster (tests/data/slurm-reference/accounting-outputs).
constexpr char kDump[] = R"(Cluster - 'anchor':Fairshare=1
Parent - 'root'
User - 'root':DefaultAccount='root':AdminLevel='Administrator':Fairshare=1
Account - 'nlp':Description='nlp':Organization='lab':Fairshare=30
Account - 'vision':Description='vision':Organization='lab':Fairshare=70
Parent - 'nlp'
User - 'root':DefaultAccount='root':AdminLevel='Administrator':Fairshare=1
Parent - 'vision'
User - 'root':DefaultAccount='root':AdminLevel='Administrator':Fairshare=1
)";

AssociationTree Load(const std::string& text, std::string* cluster = nullptr) {
  absl::StatusOr<std::vector<slurm::FlatFileRecord>> records = slurm::ParseFlatFile(text, "f");
  EXPECT_TRUE(records.ok()) << records.status();
  absl::StatusOr<AssociationTree> tree = AssociationTree::FromFlatFile(*records, cluster);
  EXPECT_TRUE(tree.ok()) << tree.status();
  return tree.ok() ? *std::move(tree) : AssociationTree();
}

TEST(AssociationTreeTest, LoadsAndDumpsSlurmsFlatFile) {
  std::string cluster;
  const AssociationTree tree = Load(kDump, &cluster);
  EXPECT_EQ(cluster, "anchor");
  ASSERT_EQ(tree.size(), 6u);  // root, root/root, nlp, vision, nlp/root, vision/root
  const int32_t nlp = tree.FindAccount("nlp");
  ASSERT_GE(nlp, 0);
  EXPECT_EQ(tree.node(nlp).spec.shares, 30);
  EXPECT_EQ(tree.node(nlp).parent, tree.root());
  EXPECT_GE(tree.FindUser("root", "vision"), 0);
  EXPECT_EQ(tree.FindUser("alice", "vision"), -1);
  EXPECT_EQ(tree.DefaultAccount("root"), "root");
  EXPECT_EQ(tree.DefaultAccount("nobody"), "");
  EXPECT_EQ(tree.UserAssociations().size(), 3u);
  std::string dumped;
  for (const slurm::FlatFileRecord& r : tree.ToFlatFile("anchor")) {
    dumped += slurm::FormatFlatFileRecord(r) + "\n";
  }
  EXPECT_EQ(dumped, kDump);
}

TEST(AssociationTreeTest, SubAccountsAndDefaultAccounts) {
  const AssociationTree tree = Load(R"(Parent - 'root'
Account - 'ml':Fairshare=60
Account - 'hpc':Fairshare=40
Parent - 'ml'
Account - 'vision':Fairshare=parent
User - 'carol':Fairshare=2
Parent - 'vision'
User - 'alice':DefaultAccount='vision'
User - 'carol':DefaultAccount='ml'
)");
  const int32_t vision = tree.FindAccount("vision");
  EXPECT_EQ(tree.node(vision).parent, tree.FindAccount("ml"));
  EXPECT_EQ(tree.node(vision).spec.shares, kParentShares);
  EXPECT_EQ(tree.node(tree.FindUser("alice", "vision")).spec.shares, 1);  // the default
  EXPECT_EQ(tree.DefaultAccount("carol"), "ml");
  EXPECT_EQ(tree.DefaultAccount("alice"), "vision");
  // Pre-order, children in configuration order: ml's sub-account vision came before carol@ml.
  std::vector<std::string> order;
  for (int32_t u : tree.UserAssociations()) {
    order.push_back(tree.node(u).spec.user + "@" + tree.node(u).spec.account);
  }
  EXPECT_THAT(order, ElementsAre("alice@vision", "carol@vision", "carol@ml"));
}

TEST(AssociationTreeTest, RefusesWhatIsNotATree) {
  auto error = [](std::vector<AssociationSpec> specs) {
    return std::string(AssociationTree::Build(std::move(specs)).status().message());
  };
  EXPECT_THAT(error({{"a", "", "nope", 1, {}}}), HasSubstr("parent account nope does not exist"));
  EXPECT_THAT(error({{"a", "", "", 1, {}}, {"a", "", "", 1, {}}}), HasSubstr("given twice"));
  EXPECT_THAT(error({{"x", "alice", "", 1, {}}}), HasSubstr("no such account"));
  EXPECT_THAT(error({{"root", "", "", 1, {}}}), HasSubstr("always exists"));
  EXPECT_THAT(error({{"a", "", "", -5, {}}}), HasSubstr("negative"));
  absl::StatusOr<std::vector<slurm::FlatFileRecord>> bad =
      slurm::ParseFlatFile("Parent - 'root'\nAccount - 'a':Fairshare=lots\n", "f");
  ASSERT_TRUE(bad.ok());
  EXPECT_THAT(AssociationTree::FromFlatFile(*bad, nullptr).status().message(),
              HasSubstr("line 2: Fairshare='lots'"));
}

}  // namespace
}  // namespace canopy::fairshare
