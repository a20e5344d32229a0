// Fair-share arithmetic against values computed by hand.
#include "scheduler/fairshare/fair_share.h"

#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::fairshare {
namespace {

using ::testing::DoubleNear;

const absl::Time kT0 = absl::FromUnixSeconds(1'800'000'000);

AssociationTree Tree(std::vector<AssociationSpec> specs) {
  absl::StatusOr<AssociationTree> tree = AssociationTree::Build(std::move(specs));
  EXPECT_TRUE(tree.ok()) << tree.status();
  return *std::move(tree);
}

// Usage without decay, so the numbers are the ones charged.
UsageLedger Ledger(const std::vector<std::tuple<std::string, std::string, double>>& usage) {
  UsageLedger ledger(DecayOptions{absl::ZeroDuration(), ResetPeriod::kNone}, kT0);
  for (const auto& [account, user, seconds] : usage) {
    ledger.Charge(account, user, seconds, kT0, kT0 + absl::Seconds(1));
  }
  return ledger;
}

const ShareRow& Row(const AssociationTree& tree, const std::vector<ShareRow>& rows,
                    const std::string& user, const std::string& account) {
  return rows[user.empty() ? tree.FindAccount(account) : tree.FindUser(user, account)];
}

// The reference cluster before any job ran: what `sshare` printed there.
TEST(FairShareTest, ReferenceClusterWithoutUsage) {
  const AssociationTree tree = Tree({{"root", "root", "", 1, {}},
                                     {"nlp", "", "", 30, {}},
                                     {"vision", "", "", 70, {}},
                                     {"nlp", "root", "", 1, {}},
                                     {"vision", "root", "", 1, {}}});
  const std::vector<ShareRow> rows =
      ComputeFairShare(tree, Ledger({}), kT0 + absl::Seconds(5), FairShareOptions());
  EXPECT_EQ(rows[0].norm_shares, 0.0);
  EXPECT_EQ(rows[0].effective_usage, 1.0);
  EXPECT_THAT(Row(tree, rows, "root", "root").norm_shares, DoubleNear(1.0 / 101, 1e-12));
  EXPECT_THAT(Row(tree, rows, "", "nlp").norm_shares, DoubleNear(30.0 / 101, 1e-12));
  EXPECT_THAT(Row(tree, rows, "", "vision").norm_shares, DoubleNear(70.0 / 101, 1e-12));
  EXPECT_EQ(Row(tree, rows, "root", "vision").norm_shares, 1.0);
  for (const char* account : {"root", "nlp", "vision"}) {
    EXPECT_EQ(Row(tree, rows, "root", account).fairshare, 1.0) << account;  // all tied
    EXPECT_EQ(Row(tree, rows, "root", account).effective_usage, 0.0);
    EXPECT_TRUE(std::isinf(Row(tree, rows, "root", account).level_fs));
  }
}

// A three-level tree:
//   root -> A (60), B (40); A -> A1 (50), A2 (50); A1 -> u1, u2; A2 -> u3; B -> u4, u5
//   usage u1 10, u2 30, u3 10, u4 50, u5 0  =>  A1 40, A2 10, A 50, B 50, total 100
// Root level: A  S .6 U .5 LF 1.2; B  S .4 U .5 LF .8       => A before B
// Under A:    A1 S .5 U .8 LF .625; A2 S .5 U .2 LF 2.5     => A2 before A1
// Under A2:   u3 LF 1;  under A1: u1 S .5 U .25 LF 2, u2 LF .667;  under B: u5 inf, u4 .5
// Ranks (5 users): u3 5, u1 4, u2 3, u5 2, u4 1 -> factors 1.0 .8 .6 .4 .2
TEST(FairShareTest, FairTreeRanksAThreeLevelTreeByHand) {
  const AssociationTree tree = Tree({{"A", "", "", 60, {}},
                                     {"B", "", "", 40, {}},
                                     {"A1", "", "A", 50, {}},
                                     {"A2", "", "A", 50, {}},
                                     {"A1", "u1", "", 1, {}},
                                     {"A1", "u2", "", 1, {}},
                                     {"A2", "u3", "", 1, {}},
                                     {"B", "u4", "", 1, {}},
                                     {"B", "u5", "", 1, {}}});
  const UsageLedger ledger =
      Ledger({{"A1", "u1", 10}, {"A1", "u2", 30}, {"A2", "u3", 10}, {"B", "u4", 50}});
  const std::vector<ShareRow> rows =
      ComputeFairShare(tree, ledger, kT0 + absl::Seconds(1), FairShareOptions());
  EXPECT_DOUBLE_EQ(Row(tree, rows, "", "A").level_fs, 1.2);
  EXPECT_DOUBLE_EQ(Row(tree, rows, "", "B").level_fs, 0.8);
  EXPECT_DOUBLE_EQ(Row(tree, rows, "", "A1").level_fs, 0.625);
  EXPECT_DOUBLE_EQ(Row(tree, rows, "", "A2").level_fs, 2.5);
  EXPECT_DOUBLE_EQ(Row(tree, rows, "u1", "A1").level_fs, 2.0);
  EXPECT_DOUBLE_EQ(Row(tree, rows, "", "A").raw_usage, 50);
  EXPECT_DOUBLE_EQ(Row(tree, rows, "", "A1").effective_usage, 0.8);
  EXPECT_DOUBLE_EQ(Row(tree, rows, "u2", "A1").norm_usage, 0.3);
  EXPECT_DOUBLE_EQ(Row(tree, rows, "u3", "A2").fairshare, 1.0);
  EXPECT_DOUBLE_EQ(Row(tree, rows, "u1", "A1").fairshare, 0.8);
  EXPECT_DOUBLE_EQ(Row(tree, rows, "u2", "A1").fairshare, 0.6);
  EXPECT_DOUBLE_EQ(Row(tree, rows, "u5", "B").fairshare, 0.4);
  EXPECT_DOUBLE_EQ(Row(tree, rows, "u4", "B").fairshare, 0.2);
}

// Two accounts with the same LF have their users ranked together: x2 and y2 (no usage, LF
// infinite) share the top rank, x1 and y1 (LF .5) the next one.
TEST(FairShareTest, TiedAccountsHaveTheirChildrenMerged) {
  const AssociationTree tree = Tree({{"X", "", "", 1, {}},
                                     {"Y", "", "", 1, {}},
                                     {"X", "x1", "", 1, {}},
                                     {"X", "x2", "", 1, {}},
                                     {"Y", "y1", "", 1, {}},
                                     {"Y", "y2", "", 1, {}}});
  const std::vector<ShareRow> rows = ComputeFairShare(
      tree, Ledger({{"X", "x1", 5}, {"Y", "y1", 5}}), kT0 + absl::Seconds(1), FairShareOptions());
  EXPECT_DOUBLE_EQ(Row(tree, rows, "", "X").level_fs, 1.0);
  EXPECT_DOUBLE_EQ(Row(tree, rows, "", "Y").level_fs, 1.0);
  EXPECT_DOUBLE_EQ(Row(tree, rows, "x2", "X").fairshare, 1.0);
  EXPECT_DOUBLE_EQ(Row(tree, rows, "y2", "Y").fairshare, 1.0);
  EXPECT_DOUBLE_EQ(Row(tree, rows, "x1", "X").fairshare, 0.5);
  EXPECT_DOUBLE_EQ(Row(tree, rows, "y1", "Y").fairshare, 0.5);
}

// Classic: root -> A (70), B (30); A -> a1 (1), a2 (3); B -> b. Usage a1 10, a2 50, b 40.
//   A: S .7, U .6, UE .6.  a1: S .7 x .25 = .175, U .1, UE .1 + (.6 - .1) x .25 = .225,
//   F = 2^(-.225/.175).  a2: S .525, U .5, UE .5 + (.6 - .5) x .75 = .575, F = 2^(-.575/.525)
TEST(FairShareTest, ClassicFactorByHand) {
  const AssociationTree tree = Tree({{"A", "", "", 70, {}},
                                     {"B", "", "", 30, {}},
                                     {"A", "a1", "", 1, {}},
                                     {"A", "a2", "", 3, {}},
                                     {"B", "b", "", 1, {}}});
  FairShareOptions classic;
  classic.algorithm = FairShareAlgorithm::kClassic;
  const std::vector<ShareRow> rows =
      ComputeFairShare(tree, Ledger({{"A", "a1", 10}, {"A", "a2", 50}, {"B", "b", 40}}),
                       kT0 + absl::Seconds(1), classic);
  EXPECT_DOUBLE_EQ(Row(tree, rows, "", "A").effective_usage, 0.6);
  EXPECT_DOUBLE_EQ(Row(tree, rows, "", "A").fairshare, std::exp2(-0.6 / 0.7));
  EXPECT_DOUBLE_EQ(Row(tree, rows, "a1", "A").norm_shares, 0.175);
  EXPECT_DOUBLE_EQ(Row(tree, rows, "a1", "A").effective_usage, 0.225);
  EXPECT_DOUBLE_EQ(Row(tree, rows, "a1", "A").fairshare, std::exp2(-0.225 / 0.175));
  EXPECT_DOUBLE_EQ(Row(tree, rows, "a2", "A").fairshare, std::exp2(-0.575 / 0.525));
  // A user that used exactly its share gets 0.5.
  EXPECT_DOUBLE_EQ(Row(tree, rows, "b", "B").fairshare, std::exp2(-0.4 / 0.3));
}

// Decay over simulated days moves the ranking: the heavy user of last week recovers.
TEST(FairShareTest, DecayOverDaysLetsTheHeavyUserRecover) {
  const AssociationTree tree = Tree(
      {{"A", "", "", 1, {}}, {"B", "", "", 1, {}}, {"A", "a", "", 1, {}}, {"B", "b", "", 1, {}}});
  UsageLedger ledger(DecayOptions{absl::Hours(24), ResetPeriod::kNone}, kT0);
  ledger.Charge("A", "a", 8.0, kT0, kT0 + absl::Hours(1));  // 8 GPUs, an hour, day 0
  ledger.Charge("B", "b", 1.0, kT0 + absl::Hours(72), kT0 + absl::Hours(73));  // 1 GPU, day 3
  const std::vector<ShareRow> day3 =
      ComputeFairShare(tree, ledger, kT0 + absl::Hours(73), FairShareOptions());
  // a's usage has halved three times (8/8 = 1 unit-hour-equivalent) and b's is fresh (1): a is
  // still heavier (its charge also decayed less within the hour), so b ranks first.
  EXPECT_GT(Row(tree, day3, "b", "B").fairshare, Row(tree, day3, "a", "A").fairshare);
  const std::vector<ShareRow> day6 =
      ComputeFairShare(tree, ledger, kT0 + absl::Hours(24 * 6 + 1), FairShareOptions());
  const double a3 = Row(tree, day3, "", "A").raw_usage;
  EXPECT_THAT(Row(tree, day6, "", "A").raw_usage * 8, DoubleNear(a3, a3 * 1e-12));  // 3 half-lives
}

}  // namespace
}  // namespace canopy::fairshare
