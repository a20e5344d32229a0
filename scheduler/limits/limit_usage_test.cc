#include "scheduler/limits/limit_usage.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/limits/association_limits.h"
#include "scheduler/limits/pass_limits.h"

namespace canopy::limits {
namespace {

using core::JobReason;
using ::testing::HasSubstr;

fairshare::AssociationSpec Assoc(const std::string& account, const std::string& user,
                                 std::vector<std::pair<std::string, std::string>> attrs = {}) {
  fairshare::AssociationSpec a;
  a.account = account;
  a.user = user;
  a.attributes = std::move(attrs);
  return a;
}

// root -> ml (GrpTRES gpu=8, MaxWall 2h) -> vision (GrpJobs=3); alice and bob in vision.
std::shared_ptr<const LimitRules> Rules(std::vector<QosSpec> qos) {
  auto tree = fairshare::AssociationTree::Build(
      {Assoc("ml", "", {{"GrpTRES", "gres/gpu=8"}, {"MaxWall", "2:00:00"}}),
       [] {
         fairshare::AssociationSpec v = Assoc("vision", "", {{"GrpJobs", "3"}});
         v.parent = "ml";
         return v;
       }(),
       Assoc("vision", "alice"), Assoc("vision", "bob", {{"MaxJobs", "1"}})});
  EXPECT_TRUE(tree.ok()) << tree.status();
  auto rules = std::make_shared<LimitRules>();
  rules->qos = std::make_shared<const QosTable>(*QosTable::Build(std::move(qos)));
  rules->tree = std::make_shared<const fairshare::AssociationTree>(*tree);
  absl::StatusOr<std::vector<AssociationLimits>> limits = LimitsOfTree(*tree, *rules->qos);
  EXPECT_TRUE(limits.ok()) << limits.status();
  rules->associations = *limits;
  rules->enforce = true;
  return rules;
}

QosSpec Qos(const std::string& name, std::vector<std::pair<std::string, std::string>> options) {
  QosSpec spec;
  spec.name = name;
  for (const auto& [k, v] : options) {
    EXPECT_TRUE(ApplyQosOption(k, v, spec).ok());
  }
  return spec;
}

core::Job Job(uint32_t id, const std::string& user, uint32_t uid, int nodes, int gpus,
              const std::string& qos = "normal") {
  core::Job j;
  j.id = core::JobId(id);
  j.user_name = user;
  j.user_id = uid;
  j.spec.Mutable().account = "vision";
  j.qos = qos;
  j.resources.min_nodes = nodes;
  j.resources.gpus_per_node = gpus;
  j.time_limit = absl::Hours(1);
  for (int i = 0; i < nodes; ++i) {
    j.allocation.nodes.push_back({core::NodeId(i), gpus, 1, 0, {}});
  }
  return j;
}

TEST(AssociationLimitsTest, UnsetValuesAreInheritedGroupLimitsAreNot) {
  std::shared_ptr<const LimitRules> r = Rules({});
  const int32_t alice = r->tree->FindUser("alice", "vision");
  const AssociationLimits& l = r->associations[alice];
  EXPECT_EQ(l.max_wall, absl::Hours(2));
  EXPECT_EQ(l.grp_tres.gpus, -1);
  EXPECT_EQ(r->associations[r->tree->FindAccount("ml")].grp_tres.gpus, 8);
  EXPECT_EQ(r->associations[r->tree->FindUser("bob", "vision")].max_jobs, 1);
}

TEST(AssociationLimitsTest, BadOptionsNameTheAssociation) {
  auto tree = fairshare::AssociationTree::Build(
      {Assoc("ml", "", {{"GrpTRES", "gpus=8"}}), Assoc("ml", "alice", {{"DefaultQOS", "gold"}})});
  ASSERT_TRUE(tree.ok());
  EXPECT_THAT(LimitsOfTree(*tree, QosTable()).status().message(),
              HasSubstr("account 'ml': GrpTRES: TRES 'gpus' is not one Canopy limits"));
  tree = fairshare::AssociationTree::Build({Assoc("ml", "alice", {{"DefaultQOS", "gold"}})});
  ASSERT_FALSE(tree.ok());  // the account must exist first
  tree = fairshare::AssociationTree::Build(
      {Assoc("ml", ""), Assoc("ml", "alice", {{"QOS", "normal"}, {"DefaultQOS", "normal"}})});
  ASSERT_TRUE(tree.ok());
  EXPECT_TRUE(LimitsOfTree(*tree, QosTable()).ok());
  tree = fairshare::AssociationTree::Build(
      {Assoc("ml", ""), Assoc("ml", "alice", {{"MaxJobs", "many"}})});
  EXPECT_EQ(LimitsOfTree(*tree, QosTable()).status().message(),
            "user 'alice' of account 'ml': MaxJobs: expected a count (-1 = no limit), got 'many'");
}

TEST(LimitUsageTest, CountsRunningJobsPerUserQosAndAccountChain) {
  LimitUsage u(Rules({Qos("normal", {{"MaxTRESPerUser", "gres/gpu=4"}})}));
  const core::Job a1 = Job(1, "alice", 1, 1, 3);
  u.Add(a1, a1.allocation.nodes);
  u.Add(a1, a1.allocation.nodes);  // counted once
  std::string detail;
  EXPECT_EQ(u.Check(Job(2, "alice", 1, 1, 2), &detail), JobReason::kQOSMaxGRESPerUser);
  EXPECT_EQ(detail,
            "QOS 'normal' MaxTRESPerUser gres/gpu=4: alice's running jobs hold 3 GPUs, the job "
            "asks for 2");
  EXPECT_EQ(u.Check(Job(2, "alice", 1, 1, 1)), JobReason::kNone);
  // bob: 3 + 4 > ml's GrpTRES of 8? no: 7. His own MaxJobs=1 is free.
  const core::Job b1 = Job(3, "bob", 2, 1, 4);
  EXPECT_EQ(u.Check(b1), JobReason::kNone);
  u.Add(b1, b1.allocation.nodes);
  EXPECT_EQ(u.Check(Job(4, "bob", 2, 1, 1)), JobReason::kQOSMaxGRESPerUser);  // 4 + 1 > 4
  EXPECT_EQ(u.Check(Job(4, "bob", 2, 1, 0)), JobReason::kAssocMaxJobsLimit);
  EXPECT_EQ(u.Check(Job(4, "alice", 1, 1, 1)), JobReason::kNone);  // 8 of 8
  const core::Job a2 = Job(4, "alice", 1, 1, 1);
  u.Add(a2, a2.allocation.nodes);
  EXPECT_EQ(u.Check(Job(5, "alice", 1, 1, 0)), JobReason::kAssocGrpJobsLimit);  // vision: 3 jobs
  u.Remove(core::JobId(3));
  EXPECT_EQ(u.Check(Job(5, "alice", 1, 1, 0)), JobReason::kNone);
  EXPECT_EQ(u.Check(Job(5, "bob", 2, 1, 4)), JobReason::kNone);
  // The QOS's per-user limit comes before the account's group limit.
  EXPECT_EQ(u.Check(Job(5, "bob", 2, 1, 5)), JobReason::kQOSMaxGRESPerUser);
}

TEST(LimitUsageTest, NewRulesRecountAndPassCopiesCountTheirOwnStarts) {
  LimitUsage u(Rules({}));
  const core::Job a1 = Job(1, "alice", 1, 1, 3);
  u.Add(a1, a1.allocation.nodes);
  u.SetRules(Rules({Qos("normal", {{"GrpTRES", "gres/gpu=4"}})}));
  EXPECT_EQ(u.Check(Job(2, "bob", 2, 1, 2)), JobReason::kQOSGrpGRES);
  PassLimits pass(&u);
  const core::Job b = Job(3, "bob", 2, 1, 1);
  EXPECT_EQ(pass.Check(b, nullptr), JobReason::kNone);
  pass.Take(b, b.allocation.nodes);
  EXPECT_EQ(pass.Check(Job(4, "bob", 2, 1, 1), nullptr), JobReason::kQOSGrpGRES);
  EXPECT_EQ(u.Check(Job(4, "bob", 2, 1, 1)), JobReason::kNone);  // the lifecycle's is untouched
}

TEST(LimitUsageTest, NeverRunnableJobsAndNoEnforcement) {
  LimitUsage u(Rules(
      {Qos("normal", {{"MaxTRESPerJob", "node=2"}, {"MaxJobsPerUser", "0"}}), Qos("big", {})}));
  EXPECT_EQ(u.NeverRunnable(Job(1, "alice", 1, 3, 1)).message(),
            "QOS 'normal' MaxTRESPerJob node=2: the job asks for 3 nodes (QOSMaxNodePerJobLimit)");
  EXPECT_EQ(u.NeverRunnable(Job(1, "alice", 1, 1, 1)).message(),
            "QOS 'normal' MaxJobsPerUser=0: alice runs 0 jobs (QOSMaxJobsPerUserLimit)");
  EXPECT_EQ(u.NeverRunnable(Job(1, "alice", 1, 1, 9, "big")).message(),
            "account 'ml' GrpTRES gres/gpu=8: the job asks for 9 GPUs (AssocGrpGRES)");
  core::Job slow = Job(1, "alice", 1, 1, 1, "big");
  slow.time_limit = absl::Hours(3);
  EXPECT_EQ(u.NeverRunnable(slow).message(),
            "account 'vision' MaxWall 2:00:00: the job's time limit is 3:00:00 "
            "(AssocMaxWallDurationPerJobLimit)");
  auto off = std::make_shared<LimitRules>(u.rules());
  off->enforce = false;
  u.SetRules(off);
  EXPECT_TRUE(u.NeverRunnable(Job(1, "alice", 1, 3, 1)).ok());
  EXPECT_EQ(u.Check(Job(1, "alice", 1, 3, 1)), JobReason::kNone);
}

}  // namespace
}  // namespace canopy::limits
