// squeue --help, --usage, -V and a stray operand, through the main (none of them reaches the
// controller).
#include "ctl/squeue/help.h"

#include <sstream>

#include "ctl/squeue/squeue.h"
#include "gtest/gtest.h"

namespace canopy::ctl::squeue {
namespace {

struct Result {
  int rc;
  std::string out;
  std::string err;
};

Result RunWith(const std::vector<std::string>& args) {
  std::ostringstream out;
  std::ostringstream err;
  const int rc = RunSqueue(args, out, err);
  return {rc, out.str(), err.str()};
}

TEST(SqueueHelpTest, InfoRequests) {
  const Result help = RunWith({"--help"});
  EXPECT_EQ(help.rc, 0);
  EXPECT_EQ(help.out, SqueueHelp());
  EXPECT_EQ(help.out.substr(0, 24), "Usage: squeue [OPTIONS]\n");
  EXPECT_NE(help.out.find("  -S, --sort=fields               comma separated list of fields to "
                          "sort on\n"),
            std::string::npos);
  EXPECT_EQ(help.out.find("yaml"), std::string::npos);
  EXPECT_EQ(RunWith({"--usage", "-V"}).out, SqueueUsage());
  EXPECT_EQ(RunWith({"-V", "--help"}).out, "slurm 22.05.8 (Canopy's squeue)\n");
  EXPECT_EQ(SqueueUsage(),
            "Usage: squeue [-A account] [--clusters names] [-i seconds] [--job jobid]\n"
            "              [-n name] [-o format] [-p partitions] [--qos qos]\n"
            "              [--reservation reservation] [--sort fields] [--start]\n"
            "              [--step step_id] [-t states] [-u user_name] [--usage]\n"
            "              [-L licenses] [-w nodes] [--federation] [--local] [--sibling]\n"
            "\t      [-ahjlrsv]\n");
}

// $ squeue foo: the error on stderr, the usage on stdout, exit 1.
TEST(SqueueHelpTest, StrayOperandPrintsTheUsage) {
  const Result r = RunWith({"foo"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err, "squeue: error: Unrecognized option: foo\n");
  EXPECT_EQ(r.out, SqueueUsage());
}

// getopt's errors and squeue's own: exit 1 (not 255 as sbatch).
TEST(SqueueHelpTest, BadInputExitsOne) {
  Result r = RunWith({"--bogus"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err,
            "squeue: unrecognized option '--bogus'\nTry \"squeue --help\" for more information\n");
  r = RunWith({"-i", "0"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err, "squeue: error: --iterate=0\n");
  r = RunWith({"-l", "-o", "%i"});
  EXPECT_EQ(r.err,
            "squeue: fatal: Options -o(--format) and -l(--long) are mutually exclusive. Please "
            "remove one and retry.\n");
}

}  // namespace
}  // namespace canopy::ctl::squeue
