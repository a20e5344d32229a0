// sshare's output for the reference cluster of tests/data/slurm-reference/accounting-outputs-
// 22.05.txt (accounts nlp with Fairshare=30 and vision with 70 under root, user root in root,
// nlp and vision, no usage yet), compared byte for byte with what Slurm 22.05 printed there.
#include "ctl/sshare/render.h"

#include <limits>

#include "gtest/gtest.h"

namespace canopy::ctl::sshare {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

class SshareRenderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    shares_.set_fair_tree(true);
    Add("root", "", 0, 1, 0.0, 0.0, 1.0, false, 0.0, kInf);
    Add("root", "root", 1, 1, 1.0 / 101, 0.0, 0.0, true, 1.0, kInf);
    Add("nlp", "", 1, 30, 30.0 / 101, 0.0, 0.0, false, 0.0, kInf);
    Add("nlp", "root", 2, 1, 1.0, 0.0, 0.0, true, 1.0, kInf);
    Add("vision", "", 1, 70, 70.0 / 101, 0.0, 0.0, false, 0.0, kInf);
    Add("vision", "root", 2, 1, 1.0, 0.0, 0.0, true, 1.0, kInf);
  }

  canopy::v1::ShareRow* Add(const std::string& account, const std::string& user, int depth,
                            int64_t raw_shares, double norm_shares, double norm_usage,
                            double effective_usage, bool has_fairshare, double fairshare,
                            double level_fs) {
    canopy::v1::ShareRow* r = shares_.add_rows();
    r->set_account(account);
    r->set_user(user);
    r->set_depth(depth);
    r->set_raw_shares(raw_shares);
    r->set_norm_shares(norm_shares);
    r->set_norm_usage(norm_usage);
    r->set_effective_usage(effective_usage);
    r->set_has_fairshare(has_fairshare);
    r->set_fairshare(fairshare);
    r->set_level_fs(level_fs);
    return r;
  }

  std::string Render(const std::vector<std::string>& args, const std::string& caller = "root") {
    absl::StatusOr<SshareOptions> o = ParseSshareArgs(args);
    EXPECT_TRUE(o.ok()) << o.status();
    absl::StatusOr<std::string> text = RenderSshare(*o, shares_, caller);
    EXPECT_TRUE(text.ok()) << text.status();
    return text.value_or("");
  }

  canopy::v1::GetSharesResponse shares_;
};

// $ sshare
constexpr char kDefault[] =
    "Account                    User  RawShares  NormShares    RawUsage  EffectvUsage  FairShare \n"
    "-------------------- ---------- ---------- ----------- ----------- ------------- ---------- \n"
    "root                                          0.000000           0      1.000000            \n"
    " root                      root          1    0.009901           0      0.000000   1.000000 \n"
    " nlp                                    30    0.297030           0      0.000000            \n"
    "  nlp                      root          1    1.000000           0      0.000000   1.000000 \n"
    " vision                                 70    0.693069           0      0.000000            \n"
    "  vision                   root          1    1.000000           0      0.000000   1.000000 "
    "\n";

// $ sshare -l   (and the same for sshare -a -l)
constexpr char kLong[] =
    "Account                    User  RawShares  NormShares    RawUsage   NormUsage  EffectvUsage  "
    "FairShare    LevelFS                    GrpTRESMins                    TRESRunMins \n"
    "-------------------- ---------- ---------- ----------- ----------- ----------- ------------- "
    "---------- ---------- ------------------------------ ------------------------------ \n"
    "root                                          0.000000           0                  1.000000  "
    "                                                    cpu=0,mem=0,energy=0,node=0,b+ \n"
    " root                      root          1    0.009901           0    0.000000      0.000000  "
    " 1.000000        inf                                cpu=0,mem=0,energy=0,node=0,b+ \n"
    " nlp                                    30    0.297030           0    0.000000      0.000000  "
    "                 inf                                cpu=0,mem=0,energy=0,node=0,b+ \n"
    "  nlp                      root          1    1.000000           0    0.000000      0.000000  "
    " 1.000000        inf                                cpu=0,mem=0,energy=0,node=0,b+ \n"
    " vision                                 70    0.693069           0    0.000000      0.000000  "
    "                 inf                                cpu=0,mem=0,energy=0,node=0,b+ \n"
    "  vision                   root          1    1.000000           0    0.000000      0.000000  "
    " 1.000000        inf                                cpu=0,mem=0,energy=0,node=0,b+ \n";

TEST_F(SshareRenderTest, DefaultMatchesSlurm) { EXPECT_EQ(Render({}), kDefault); }

TEST_F(SshareRenderTest, LongMatchesSlurm) {
  EXPECT_EQ(Render({"-l"}), kLong);
  EXPECT_EQ(Render({"-a", "-l"}), kLong);
}

TEST_F(SshareRenderTest, Parsable2AllMatchesSlurm) {
  // $ sshare -P -a
  EXPECT_EQ(Render({"-P", "-a"}, "alice"),
            "Account|User|RawShares|NormShares|RawUsage|EffectvUsage|FairShare\n"
            "root|||0.000000|0|1.000000|\n"
            " root|root|1|0.009901|0|0.000000|1.000000\n"
            " nlp||30|0.297030|0|0.000000|\n"
            "  nlp|root|1|1.000000|0|0.000000|1.000000\n"
            " vision||70|0.693069|0|0.000000|\n"
            "  vision|root|1|1.000000|0|0.000000|1.000000\n");
}

TEST_F(SshareRenderTest, UsersOnlyAccountColumnMatchesSlurm) {
  // $ sshare -U --format Account --noheader
  EXPECT_EQ(Render({"-U", "--format", "Account", "--noheader"}),
            "root                 \n"
            "nlp                  \n"
            "vision               \n");
}

TEST_F(SshareRenderTest, WithoutAllOnlyTheCallersUserRowsAreShown) {
  EXPECT_EQ(Render({"-P", "-n", "-o", "Account,User"}, "alice"), "root|\n nlp|\n vision|\n");
  EXPECT_EQ(Render({"-P", "-n", "-o", "Account,User", "-u", "root"}, "alice"),
            "root|\n root|root\n nlp|\n  nlp|root\n vision|\n  vision|root\n");
  EXPECT_EQ(Render({"-P", "-n", "-o", "Account,User", "-u", "bob"}, "root"),
            "root|\n nlp|\n vision|\n");
  EXPECT_EQ(Render({"-P", "-n", "-o", "Account,User", "-u", "-1"}, "alice"),
            "root|\n root|root\n nlp|\n  nlp|root\n vision|\n  vision|root\n");
}

// $ sshare -A vision -a: the account named is the top of the tree printed, as in Slurm 22.05
// ("vision||70" and " vision|root", not indented as under root).
TEST_F(SshareRenderTest, AccountsFilterRowsByAccount) {
  EXPECT_EQ(Render({"-p", "-n", "-A", "NLP", "-o", "Account,User,RawShares"}),
            "nlp||30|\n nlp|root|1|\n");
  EXPECT_EQ(Render({"-n", "-A", "vision", "-a"}),
            "vision                                  70    0.693069           0      0.000000      "
            "      \n"
            " vision                    root          1    1.000000           0      0.000000   "
            "1.000000 \n");
  EXPECT_EQ(Render({"-P", "-n", "-A", "root", "-o", "Account,User"}), "root|\n root|root\n");
  // A sub-account named with its parent stays under it; one named without it heads its own tree.
  Add("cv", "", 2, 10, 1.0, 0.0, 0.0, false, 0.0, kInf);
  Add("cv", "root", 3, 1, 1.0, 0.0, 0.0, true, 1.0, kInf);
  EXPECT_EQ(Render({"-P", "-n", "-A", "vision,cv", "-o", "Account,User"}),
            "vision|\n vision|root\n cv|\n  cv|root\n");
  EXPECT_EQ(Render({"-P", "-n", "-A", "nlp,cv", "-o", "Account,User"}),
            "nlp|\n nlp|root\ncv|\n cv|root\n");
}

TEST_F(SshareRenderTest, FormatNamesArePrefixesWithWidths) {
  EXPECT_EQ(Render({"-n", "-U", "-o", "u%6,rawu,norms%8,LevelFS,e,f"}),
            "  root           0 0.009901        inf      0.000000   1.000000 \n"
            "  root           0 1.000000        inf      0.000000   1.000000 \n"
            "  root           0 1.000000        inf      0.000000   1.000000 \n");
}

TEST_F(SshareRenderTest, ClassicFairShareHasNoLevelFsColumnAndParentSharesShow) {
  shares_.set_fair_tree(false);
  shares_.mutable_rows(2)->set_raw_shares(-1);
  shares_.mutable_rows(2)->set_raw_usage(1234.9);
  const std::string text = Render({"-l", "-P"});
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare|"
            "GrpTRESMins|TRESRunMins");
  EXPECT_NE(text.find(" nlp||parent|0.297030|1234|0.000000|0.000000|||cpu=0,mem=0,energy=0,"
                      "node=0,billing=0,fs/disk=0,vmem=0,pages=0\n"),
            std::string::npos)
      << text;
}

TEST_F(SshareRenderTest, UnknownFieldIsSsharesError) {
  absl::StatusOr<SshareOptions> o = ParseSshareArgs({"-o", "Account,Bogus"});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(RenderSshare(*o, shares_, "root").status().message(),
            "Invalid field requested: \"Bogus\"");
}

TEST(SshareFieldNamesTest, FourToALine) {
  EXPECT_EQ(RenderSshareFieldNames(),
            "Account           Cluster           EffectvUsage      FairShare        \n"
            "LevelFS           ID                NormShares        NormUsage        \n"
            "Partition         RawShares         RawUsage          User             \n"
            "GrpTRESMins       TRESRunMins      \n");
}

}  // namespace
}  // namespace canopy::ctl::sshare
