// PrivateData=jobs with a real ordinary user: the front ends run as `nobody` (setpriv) against
// a real canopyd over its unix socket, so canopyd identifies them by SO_PEERCRED. An ordinary
// user sees and controls only their own jobs; root (an operator) sees every job. Needs root to
// change user; skipped otherwise.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/front_end_test.h"

namespace canopy::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kConfig[] = R"(
cluster_name: itprivate
node_timeout: 30s
heartbeat_interval: 500ms
kill_wait: 2s
min_job_age: 600s
accounting:
  private_data: jobs
nodes:
  - names: gpu[1-2]
    cpus: 8
    memory_mib: 64000
partitions:
  - name: gpu
    nodes: ALL
    default: true
)";

constexpr uid_t kNobody = 65534;

class PrivateDataTest : public FrontEndTest {
 protected:
  PrivateDataTest() : FrontEndTest(kConfig) {}

  void SetUp() override {
    if (geteuid() != 0) {
      GTEST_SKIP() << "needs root to run the front ends as another user";
    }
    ASSERT_TRUE(StartCluster("gpu[1-2]", 2, 0));
    // The other user must reach the socket and write its job's output.
    chmod(cluster_.dir().c_str(), 0755);
    chmod((cluster_.dir() + "/state").c_str(), 0755);
    chmod(work_.c_str(), 0777);
  }

  // The front end `name` run as nobody, in the work directory.
  CommandResult AsNobody(const std::string& name, const std::vector<std::string>& args) {
    std::vector<std::string> argv = {"/usr/bin/setpriv",
                                     absl::StrCat("--reuid=", kNobody),
                                     absl::StrCat("--regid=", kNobody),
                                     "--clear-groups",
                                     "/bin/sh",
                                     "-c",
                                     "cd \"$CANOPY_TEST_CWD\" && exec \"$0\" \"$@\"",
                                     absl::StrCat(CANOPYCTL_DIR, "/", name)};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunCommand(argv, {{"CANOPY_CONTROLLER", cluster_.socket_target()},
                             {"CANOPY_TEST_CWD", work_},
                             {"HOME", "/"}});
  }

  static uint32_t JobIdOf(const CommandResult& sbatch) {
    uint32_t id = 0;
    if (sbatch.exit_code != 0 || !absl::SimpleAtoi(absl::StripAsciiWhitespace(sbatch.out), &id)) {
      ADD_FAILURE() << "sbatch failed (" << sbatch.exit_code << "): " << sbatch.out << sbatch.err;
    }
    return id;
  }
};

TEST_F(PrivateDataTest, AnOrdinaryUserSeesAndControlsOnlyTheirOwnJobs) {
  const uint32_t roots = JobIdOf(cluster_.FrontEndIn(
      "sbatch", {"--parsable", "-H", "-J", "rootjob", "-o", "/dev/null", "--wrap", "true"}, work_));
  const uint32_t theirs = JobIdOf(AsNobody(
      "sbatch", {"--parsable", "-H", "-J", "nobodyjob", "-o", "/dev/null", "--wrap", "true"}));
  const std::string root_id = absl::StrCat(roots);
  const std::string their_id = absl::StrCat(theirs);

  CommandResult r = AsNobody("squeue", {"-h", "-o", "%i %j %u"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, absl::StrCat(their_id, " nobodyjob nobody\n"));
  r = AsNobody("scontrol", {"show", "job", root_id});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("Invalid job id specified"));
  r = AsNobody("scontrol", {"show", "job", their_id});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("JobName=nobodyjob"));
  // Controlling another user's job is refused and changes nothing.
  r = AsNobody("scontrol", {"release", root_id});
  EXPECT_EQ(r.exit_code, 1);
  r = AsNobody("scancel", {root_id});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(cluster_.FrontEnd("squeue", {"-h", "-j", root_id, "-o", "%T %r"}).out,
            "PENDING JobHeldUser\n");  // still held, still there
  r = AsNobody("scontrol", {"reconfigure"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("slurm_reconfigure error: Invalid user id"));

  // Root, an operator, sees both.
  r = cluster_.FrontEnd("squeue", {"-h", "-o", "%j"});
  EXPECT_THAT(r.out, HasSubstr("rootjob"));
  EXPECT_THAT(r.out, HasSubstr("nobodyjob"));

  // Their own job runs as them; sacct then lists it, and only it.
  ASSERT_EQ(AsNobody("scontrol", {"release", their_id}).exit_code, 0);
  ASSERT_TRUE(WaitUntil(
      [&] {
        return AsNobody("squeue", {"-h", "-t", "all", "-j", their_id, "-o", "%T"}).out ==
               "COMPLETED\n";
      },
      absl::Seconds(30)))
      << cluster_.AgentLog();
  r = AsNobody("sacct", {"-a", "-n", "-X", "-P", "-o", "JobID,JobName,User"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(absl::StrCat(their_id, "|nobodyjob|nobody")));
  EXPECT_THAT(r.out, Not(HasSubstr("rootjob")));
  EXPECT_EQ(cluster_.FrontEnd("scancel", {root_id}).exit_code, 0);
}

}  // namespace
}  // namespace canopy::testing

// Slurm's AdminLevel: a user the accounts make an Operator acts on every job, as root does.
namespace canopy::testing {
namespace {

TEST_F(PrivateDataTest, AdminLevelOperatorMayControlOthersJobs) {
  const std::string roots = absl::StrCat(JobIdOf(cluster_.FrontEndIn(
      "sbatch", {"--parsable", "-H", "-J", "rootjob", "-o", "/dev/null", "--wrap", "true"},
      work_)));
  CommandResult r = AsNobody("scancel", {roots});
  EXPECT_NE(r.exit_code, 0);
  ASSERT_EQ(cluster_.FrontEnd("sacctmgr", {"-i", "add", "account", "ops"}).exit_code, 0);
  r = cluster_.FrontEnd("sacctmgr",
                        {"-i", "add", "user", "nobody", "account=ops", "AdminLevel=Operator"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = AsNobody("squeue", {"-h", "-j", roots, "-o", "%j"});
  EXPECT_EQ(r.out, "rootjob\n") << r.err;  // PrivateData no longer hides it
  r = AsNobody("scancel", {roots});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(cluster_.FrontEnd("squeue", {"-h", "-t", "all", "-j", roots, "-o", "%T"}).out,
            "CANCELLED\n");
}

}  // namespace
}  // namespace canopy::testing
