// Tests for sacctmgr's edits of the association tree.
#include "scheduler/fairshare/association_edit.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::fairshare {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

AssociationSpec Account(std::string name, int64_t shares, std::string parent = "") {
  AssociationSpec s;
  s.account = std::move(name);
  s.parent = std::move(parent);
  s.shares = shares;
  return s;
}
AssociationSpec User(std::string user, std::string account, int64_t shares = 1) {
  AssociationSpec s;
  s.account = std::move(account);
  s.user = std::move(user);
  s.shares = shares;
  return s;
}

AssociationTree Lab() {
  return *AssociationTree::Build({Account("research", 100), Account("vision", 70, "research"),
                                  Account("nlp", 30, "research"), User("alice", "vision"),
                                  User("bob", "nlp"), User("bob", "vision")});
}

TEST(AssociationEditTest, AddAppendsAndRefusesDuplicates) {
  std::vector<std::string> changed;
  absl::StatusOr<AssociationTree> t = EditAssociations(
      Lab(), AssociationEdit::kAdd, {Account("speech", 10, "research"), User("carol", "speech")},
      false, changed);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_GE(t->FindUser("carol", "speech"), 0);
  EXPECT_THAT(changed,
              ElementsAre("add account speech under research", "add user carol in speech"));
  absl::StatusOr<AssociationTree> again =
      EditAssociations(*t, AssociationEdit::kAdd, {User("carol", "speech")}, false, changed);
  EXPECT_EQ(again.status().code(), absl::StatusCode::kAlreadyExists);
  absl::StatusOr<AssociationTree> orphan =
      EditAssociations(*t, AssociationEdit::kAdd, {User("dan", "nowhere")}, false, changed);
  EXPECT_EQ(orphan.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(orphan.status().message(), HasSubstr("no such account"));
}

TEST(AssociationEditTest, ModifySetsSharesOnlyWhenAskedAndMergesAttributes) {
  AssociationSpec change = Account("vision", 5);
  change.attributes = {{"Description", "cv"}};
  std::vector<std::string> changed;
  absl::StatusOr<AssociationTree> kept =
      EditAssociations(Lab(), AssociationEdit::kModify, {change}, false, changed);
  ASSERT_TRUE(kept.ok());
  const AssociationTree::Node& v = kept->node(kept->FindAccount("vision"));
  EXPECT_EQ(v.spec.shares, 70);
  ASSERT_NE(v.spec.Attribute("description"), nullptr);
  EXPECT_EQ(*v.spec.Attribute("description"), "cv");
  absl::StatusOr<AssociationTree> set =
      EditAssociations(*kept, AssociationEdit::kModify, {change}, true, changed);
  ASSERT_TRUE(set.ok());
  EXPECT_EQ(set->node(set->FindAccount("vision")).spec.shares, 5);
  EXPECT_EQ(set->node(set->FindAccount("vision")).spec.attributes.size(), 1u);
  EXPECT_EQ(EditAssociations(Lab(), AssociationEdit::kModify, {User("zed", "nlp")}, true, changed)
                .status()
                .code(),
            absl::StatusCode::kNotFound);
}

TEST(AssociationEditTest, DeletingAnAccountTakesEverythingUnderIt) {
  std::vector<std::string> changed;
  absl::StatusOr<AssociationTree> t =
      EditAssociations(Lab(), AssociationEdit::kDelete, {Account("vision", 0)}, false, changed);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_LT(t->FindAccount("vision"), 0);
  EXPECT_LT(t->FindUser("alice", "vision"), 0);
  EXPECT_GE(t->FindUser("bob", "nlp"), 0);
  EXPECT_THAT(changed, ElementsAre("delete account vision", "delete user alice in vision",
                                   "delete user bob in vision"));
  EXPECT_EQ(EditAssociations(Lab(), AssociationEdit::kDelete, {Account("root", 0)}, false, changed)
                .status()
                .code(),
            absl::StatusCode::kNotFound);
}

TEST(AssociationEditTest, ReplaceBuildsTheGivenTree) {
  std::vector<std::string> changed;
  absl::StatusOr<AssociationTree> t = EditAssociations(
      Lab(), AssociationEdit::kReplace, {Account("a", 1), User("u", "a")}, false, changed);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->size(), 3u);
  EXPECT_LT(t->FindAccount("vision"), 0);
}

}  // namespace
}  // namespace canopy::fairshare
