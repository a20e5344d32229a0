// scontrol's hostlist commands, checked against outputs and exit codes of Slurm 22.05's own
// scontrol (see common/slurm/hostlist_test.cc for the expression corner cases).
#include "ctl/scontrol/scontrol.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "gtest/gtest.h"

namespace canopy::ctl::scontrol {
namespace {

struct Result {
  int code;
  std::string out;
  std::string err;
};

Result Sc(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int code = RunScontrol(args, out, err);
  return {code, out.str(), err.str()};
}

TEST(ScontrolTest, ShowHostnamesListsOnePerLine) {
  Result r = Sc({"show", "hostnames", "gpu[001-003]"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "gpu001\ngpu002\ngpu003\n");
  EXPECT_EQ(r.err, "");
}

TEST(ScontrolTest, KeywordsMayBeAbbreviated) {
  EXPECT_EQ(Sc({"sho", "hostn", "n[1-2]"}).out, "n1\nn2\n");
}

TEST(ScontrolTest, ShowHostnamesBadExpressionExitsZeroLikeSlurm) {
  Result r = Sc({"show", "hostnames", "gpu[3-1]"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("Invalid hostlist: gpu[3-1]\n"), std::string::npos) << r.err;
}

TEST(ScontrolTest, ShowHostnamesWithoutArgumentReadsSlurmNodelist) {
  unsetenv("SLURM_NODELIST");
  Result r = Sc({"show", "hostnames"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.err, "scontrol: error: host list is empty\n");
  // Slurm 22.05 reads SLURM_NODELIST here, not SLURM_JOB_NODELIST.
  setenv("SLURM_JOB_NODELIST", "x[1-2]", 1);
  setenv("SLURM_NODELIST", "n[1-2]", 1);
  EXPECT_EQ(Sc({"show", "hostnames"}).out, "n1\nn2\n");
  setenv("SLURM_NODELIST", "", 1);
  r = Sc({"show", "hostnames"});
  EXPECT_EQ(r.out + r.err, "");
  unsetenv("SLURM_NODELIST");
  unsetenv("SLURM_JOB_NODELIST");
}

TEST(ScontrolTest, ShowHostlistRewritesExpressionsAsSlurmDoes) {
  EXPECT_EQ(Sc({"show", "hostlist", "b0[1,3-4]"}).out, "b0[1,3-4]\n");
  EXPECT_EQ(Sc({"show", "hostlist", "rack[1-2]-gpu[01-02]"}).out,
            "rack1-gpu[01-02],rack2-gpu[01-02]\n");
  EXPECT_EQ(Sc({"show", "hostlist", "n1,n2,n2,n3"}).out, "n[1-2,2-3]\n");
  EXPECT_EQ(Sc({"show", "hostlistsorted", "n3,n1,n2,n1,b,a"}).out, "a,b,n[1,1-3]\n");
  EXPECT_EQ(Sc({"show", "hostlist=n[1-3]"}).out, "n[1-3]\n");
  Result r = Sc({"show", "hostnames", "a", "b"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "too many arguments for keyword:show\n");
}

TEST(ScontrolTest, ShowHostlistReadsAFileOfNames) {
  const std::string path = ::testing::TempDir() + "/scontrol-hosts.txt";
  { std::ofstream(path) << "n[3-4]\nn1,n[1-2]\n"; }
  EXPECT_EQ(Sc({"show", "hostlist", path}).out, "n[3-4,1,1-2]\n");
  Result r = Sc({"show", "hostlist", "/no/such/file"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "Can not open /no/such/file\n");
}

TEST(ScontrolTest, ShowHostlistKeepsOrderAndSortedSorts) {
  EXPECT_EQ(Sc({"show", "hostlist", "gpu003,gpu001,gpu002"}).out, "gpu[003,001-002]\n");
  EXPECT_EQ(Sc({"show", "hostlistsorted", "gpu003,gpu001,gpu002"}).out, "gpu[001-003]\n");
  EXPECT_EQ(Sc({"show", "hostlist", "a,b,a"}).out, "a,b,a\n");
}

TEST(ScontrolTest, ShowHostlistErrorsExitOne) {
  Result r = Sc({"show", "hostlist", "gpu[3-1]"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("Invalid hostlist: gpu[3-1]\n"), std::string::npos);
  r = Sc({"show", "hostlist"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err.rfind("invalid encode argument\n", 0), 0u);
}

TEST(ScontrolTest, UnknownEntityAndKeyword) {
  Result r = Sc({"show", "foo"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "invalid entity:foo for keyword:show \n");
  EXPECT_EQ(Sc({"frobnicate"}).code, 1);
}

TEST(ScontrolTest, NoReservationsLikeSlurm) {
  Result r = Sc({"show", "reservation"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "No reservations in the system\n");
  EXPECT_EQ(r.err, "");
  r = Sc({"show", "res", "maint"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "Reservation maint not found\n");
  r = Sc({"-Q", "show", "res", "maint"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "");
}

TEST(ScontrolTest, SuspendAndResumeAreNotSupported) {
  Result r = Sc({"suspend", "5,6_1"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "Requested operation not supported on this system for job 5\n"
            "Requested operation not supported on this system for job 6_1\n");
  r = Sc({"resume", "7", "8"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err,
            "Requested operation not supported on this system for job 7\n"
            "Requested operation not supported on this system for job 8\n");
  r = Sc({"suspend", "x"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "Invalid job id specified for job x\n");
  r = Sc({"suspend"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "too few arguments for keyword:suspend\n");
}

TEST(ScontrolTest, BadArgumentsAreRefusedBeforeAnyRpc) {
  Result r = Sc({"show", "node", "gpu[3-1]"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "unable to parse node list gpu[3-1]\n");
  r = Sc({"show", "step", "5.x"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "slurm_get_job_steps error: Invalid job id specified\n");
  // Slurm 22.05 does nothing and exits 0 when no job id follows batch_script.
  r = Sc({"write", "batch_script"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out + r.err, "");
  r = Sc({"write", "config"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "invalid write argument:config\n");
}

TEST(ScontrolTest, DrainWithoutReasonIsRefusedBeforeAnyRpc) {
  Result r = Sc({"update", "NodeName=gpu001", "State=DRAIN"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "You must specify a reason when DOWNING or DRAINING a node. Request denied\n");
}

}  // namespace
}  // namespace canopy::ctl::scontrol
