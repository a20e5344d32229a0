// Issue #10 end to end: a real canopyd with multifactor priority, enforced associations and
// backfill, one agent hosting 4 nodes of 4 fake GPUs, driven with the real sbatch, squeue,
// sshare, sprio and sacctmgr. Accounts are refused or resolved at submit, sshare and sprio show
// the tree and the factors, squeue --start and sbatch --test-only show backfill's plan, sacctmgr
// changes and the usage ledger survive kill -9 of canopyd.
#include <pwd.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/local_cluster.h"

namespace canopy::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// The user the tests run as: jobs are submitted as this user, so the accounts list it.
std::string Me() {
  const passwd* pw = getpwuid(getuid());
  return pw != nullptr ? pw->pw_name : absl::StrCat(getuid());
}

std::string Config() {
  return absl::StrCat(R"(
cluster_name: itacct
node_timeout: 5s
heartbeat_interval: 500ms
kill_wait: 2s
nodes:
  - names: gpu[1-4]
    cpus: 8
    memory_mib: 64000
    gpus: {type: h100, count: 4}
partitions:
  - name: gpu
    nodes: ALL
    default: true
    max_time: "1:00:00"
topology_plugin: topology/tree
topology:
  switches:
    - name: leaf1
      nodes: gpu[1-2]
    - name: leaf2
      nodes: gpu[3-4]
    - name: spine
      switches: leaf[1-2]
priority:
  type: priority/multifactor
  weight_fairshare: 10000
  weight_age: 1000
  weight_job_size: 1000
scheduler:
  type: sched/backfill
  parameters: {bf_interval: 1}
accounting:
  storage_enforce: associations
accounts:
  - name: vision
    fairshare: 70
    users: [{name: )",
                      Me(), R"(, default_account: vision}]
  - name: nlp
    fairshare: 30
    users: [)",
                      Me(), R"(]
)");
}

class AccountingIntegrationTest : public ::testing::Test {
 protected:
  AccountingIntegrationTest() : cluster_(Config()) {}

  void SetUp() override {
    work_ = cluster_.dir() + "/work";
    std::filesystem::create_directories(work_);
    ASSERT_TRUE(cluster_.StartController().ok()) << cluster_.ControllerLog();
    ASSERT_TRUE(
        cluster_
            .StartAgent("gpu[1-4]", {"--fake_gpus", "4", "--spool_dir", cluster_.dir() + "/spool"})
            .ok());
    ASSERT_TRUE(WaitUntil(
        [&] {
          return absl::StrContains(cluster_.FrontEnd("sinfo", {"-h", "-o", "%t %D"}).out, "idle 4");
        },
        absl::Seconds(30)))
        << cluster_.ControllerLog();
  }

  CommandResult Run(const std::string& command, const std::vector<std::string>& args) {
    return cluster_.FrontEndIn(command, args, work_);
  }

  uint32_t Sbatch(const std::vector<std::string>& args) {
    std::vector<std::string> all = {"--parsable"};
    all.insert(all.end(), args.begin(), args.end());
    const CommandResult r = Run("sbatch", all);
    uint32_t id = 0;
    if (r.exit_code != 0 || !absl::SimpleAtoi(absl::StripAsciiWhitespace(r.out), &id)) {
      ADD_FAILURE() << "sbatch failed (" << r.exit_code << "): " << r.out << r.err;
    }
    return id;
  }

  std::string State(uint32_t id) {
    return std::string(
        absl::StripAsciiWhitespace(Run("squeue", {"-h", "-j", absl::StrCat(id), "-o", "%T"}).out));
  }

  // The sshare -a -P -l row of (account, user): its '|'-separated fields.
  std::vector<std::string> ShareRow(const std::string& account, const std::string& user) {
    const CommandResult r = Run("sshare", {"-a", "-P", "-n"});
    for (absl::string_view line : absl::StrSplit(r.out, '\n', absl::SkipEmpty())) {
      std::vector<std::string> f = absl::StrSplit(line, '|');
      if (f.size() > 2 && absl::StripAsciiWhitespace(f[0]) == account && f[1] == user) {
        return f;
      }
    }
    ADD_FAILURE() << "no sshare row for " << account << "/" << user << " in:\n" << r.out;
    return {};
  }

  LocalCluster cluster_;
  std::string work_;
};

TEST_F(AccountingIntegrationTest, AccountsAreEnforcedAndResolved) {
  const CommandResult bad = Run("sbatch", {"-A", "nosuchaccount", "--wrap", "true"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.err,
            "sbatch: error: Batch job submission failed: Invalid account or account/partition "
            "combination specified\n");
  const uint32_t id = Sbatch({"-t", "5", "--wrap", "true"});
  ASSERT_NE(id, 0u);
  // -t all: the jobs may have ended already.
  EXPECT_EQ(Run("squeue", {"-h", "-t", "all", "-j", absl::StrCat(id), "-o", "%a"}).out, "vision\n");
  const uint32_t nlp = Sbatch({"-A", "nlp", "-t", "5", "--wrap", "true"});
  EXPECT_EQ(Run("squeue", {"-h", "-t", "all", "-j", absl::StrCat(nlp), "-o", "%a"}).out, "nlp\n");
}

// sshare lists an account's users before its sub-accounts, each by name, as Slurm sorts its
// association hierarchy: nlp before vision here, though the config names vision first.
TEST_F(AccountingIntegrationTest, SshareListsTheHierarchyInSlurmsOrder) {
  const CommandResult r = Run("sshare", {"-a", "-P", "-n", "-o", "Account,User"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, absl::StrCat("root|\n nlp|\n  nlp|", Me(), "\n vision|\n  vision|", Me(), "\n"));
}

// A job that fills the cluster, then two queued jobs: sprio shows their factors, squeue --start
// the reservation backfill made, sbatch --test-only where a new job would go.
TEST_F(AccountingIntegrationTest, SprioStartAndTestOnlyShowThePlan) {
  const uint32_t big = Sbatch({"-N", "4", "--gpus-per-node=4", "-t", "10", "--wrap", "sleep 600"});
  ASSERT_TRUE(WaitUntil([&] { return State(big) == "RUNNING"; }, absl::Seconds(30)))
      << cluster_.ControllerLog();
  const uint32_t next = Sbatch({"-N", "2", "--gpus-per-node=4", "-t", "5", "--wrap", "true"});
  const uint32_t other =
      Sbatch({"-A", "nlp", "-N", "1", "--gpus-per-node=4", "-t", "5", "--wrap", "true"});

  // Not listed, as in Slurm: a held job (priority 0), one whose begin time is to come.
  const uint32_t held = Sbatch({"-H", "-N", "1", "-t", "5", "--wrap", "true"});
  const uint32_t later = Sbatch({"--begin", "now+1hour", "-N", "1", "-t", "5", "--wrap", "true"});

  const CommandResult sprio = Run("sprio", {"-h", "-o", "%i %Y %F %J"});
  EXPECT_EQ(sprio.exit_code, 0) << sprio.err;
  EXPECT_THAT(sprio.out, HasSubstr(absl::StrCat(next, " ")));
  EXPECT_THAT(sprio.out, HasSubstr(absl::StrCat(other, " ")));
  EXPECT_THAT(sprio.out, Not(HasSubstr(absl::StrCat(held, " "))));
  EXPECT_THAT(sprio.out, Not(HasSubstr(absl::StrCat(later, " "))));
  EXPECT_EQ(Run("scancel", {absl::StrCat(held), absl::StrCat(later)}).exit_code, 0);

  // Within a couple of backfill cycles (bf_interval=1) both have reservations at the big job's
  // end, about 10 minutes from now.
  ASSERT_TRUE(WaitUntil(
      [&] {
        const std::string out = Run("squeue", {"--start", "-h", "-o", "%i %S %Y"}).out;
        return !absl::StrContains(out, "N/A") && absl::StrContains(out, absl::StrCat(next, " "));
      },
      absl::Seconds(20)))
      << Run("squeue", {"--start"}).out << cluster_.ControllerLog();

  const CommandResult test = Run("sbatch", {"--test-only", "-N", "1", "-t", "5", "--wrap", "true"});
  EXPECT_EQ(test.exit_code, 0) << test.err;
  EXPECT_THAT(test.err, HasSubstr(absl::StrCat("sbatch: Job ", later + 1, " to start at ")));
  EXPECT_THAT(test.err, HasSubstr(" in partition gpu\n"));
  // Nothing was queued.
  EXPECT_EQ(Run("squeue", {"-h", "-j", absl::StrCat(later + 1)}).exit_code, 1);
  EXPECT_EQ(Run("scancel", {absl::StrCat(big)}).exit_code, 0);
}

// sacctmgr's change and the usage a job ran up are both still there after kill -9.
TEST_F(AccountingIntegrationTest, AssociationsAndUsageSurviveKill9) {
  const CommandResult add = Run("sacctmgr", {"-i", "add", "account", "speech", "fairshare=10"});
  ASSERT_EQ(add.exit_code, 0) << add.out << add.err;
  ASSERT_EQ(Run("sacctmgr", {"-i", "add", "user", Me(), "account=speech"}).exit_code, 0);
  const uint32_t id = Sbatch({"-A", "speech", "--gpus-per-node=4", "-t", "5", "--wrap", "sleep 2"});
  ASSERT_TRUE(
      WaitUntil([&] { return State(id) == "COMPLETED" || State(id).empty(); }, absl::Seconds(30)))
      << cluster_.ControllerLog();

  cluster_.CrashController();
  ASSERT_TRUE(cluster_.StartController().ok()) << cluster_.ControllerLog();
  const CommandResult assoc =
      Run("sacctmgr", {"-n", "-P", "show", "assoc", "format=account,user,fairshare"});
  EXPECT_THAT(assoc.out, HasSubstr("speech||10\n"));
  EXPECT_THAT(assoc.out, HasSubstr(absl::StrCat("speech|", Me(), "|1\n")));
  // The restart recomputed fair share from the stored ledger: 4 GPUs for about 2 s.
  const std::vector<std::string> row = ShareRow("speech", Me());
  ASSERT_GE(row.size(), 5u);
  double usage = 0;
  ASSERT_TRUE(absl::SimpleAtod(row[4], &usage)) << row[4];
  EXPECT_GT(usage, 4.0);
  EXPECT_LT(usage, 4.0 * 30);
}

}  // namespace
}  // namespace canopy::testing
