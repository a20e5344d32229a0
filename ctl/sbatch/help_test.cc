// sbatch --help, --usage and --version against Slurm 22.05's texts, and the first pass that picks
// them out of a command line.
#include "ctl/sbatch/help.h"

#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "common/slurm/sbatch_options.h"
#include "ctl/sbatch/sbatch.h"
#include "gtest/gtest.h"

namespace canopy::ctl::sbatch {
namespace {

using slurm::InfoRequest;

struct RunResult {
  int exit_code;
  std::string out;
  std::string err;
};

RunResult RunWith(const std::vector<std::string>& args) {
  std::istringstream in;
  std::ostringstream out;
  std::ostringstream err;
  const int rc = RunSbatch(args, in, out, err);
  return RunResult{rc, out.str(), err.str()};
}

TEST(SbatchHelpTest, HelpUsageAndVersionExitZeroBeforeAnythingElse) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"--help"}, {"-h"}, {"--time=abc", "--help"}, {"-N", "2", "-h", "job.sh"}}) {
    RunResult r = RunWith(args);
    EXPECT_EQ(r.exit_code, 0) << args[0];
    EXPECT_EQ(r.out, SbatchInfoText(InfoRequest::kHelp)) << args[0];
    EXPECT_EQ(r.err, "") << args[0];
  }
  RunResult usage = RunWith({"--usage"});
  EXPECT_EQ(usage.exit_code, 0);
  EXPECT_TRUE(absl::StartsWith(usage.out, "Usage: sbatch [-N nnodes] [-n ntasks]\n"));
  EXPECT_TRUE(absl::EndsWith(usage.out, "              executable [args...]\n"));
  EXPECT_EQ(RunWith({"-V"}).out, "slurm 22.05.8 (Canopy's sbatch)\n");
  EXPECT_EQ(RunWith({"--version"}).exit_code, 0);
  // The first one wins; one after the script is the script's argument.
  EXPECT_EQ(RunWith({"--usage", "--help"}).out, SbatchInfoText(InfoRequest::kUsage));
  EXPECT_EQ(slurm::FindSbatchInfoRequest({"job.sh", "--help"}).value(), InfoRequest::kNone);
}

TEST(SbatchHelpTest, GetoptErrorsStillFirst) {
  RunResult r = RunWith({"--bogus", "--help"});
  EXPECT_EQ(r.exit_code, 255);
  EXPECT_EQ(r.err,
            "sbatch: unrecognized option '--bogus'\nTry \"sbatch --help\" for more information\n");
}

TEST(SbatchHelpTest, HelpListsOptionsInSlurmsLayout) {
  const std::string help = SbatchInfoText(InfoRequest::kHelp);
  EXPECT_TRUE(absl::StartsWith(
      help,
      "Usage: sbatch [OPTIONS(0)...] [ : [OPTIONS(N)...]] script(0) [args(0)...]\n\n"
      "Parallel run options:\n"
      "  -a, --array=indexes         job array index values\n"));
  EXPECT_TRUE(absl::EndsWith(help,
                             "Help options:\n"
                             "  -h, --help                  show this help message\n"
                             "      --usage                 display brief usage message\n"
                             "\n"
                             "Other options:\n"
                             "  -V, --version               output version information and exit\n"
                             "\n"));
  for (absl::string_view option : {"--comment=name",
                                   "--mail-type=type",
                                   "--mail-user=user",
                                   "--wckey=wckey",
                                   "--gpus-per-task=n",
                                   "--gpu-bind=...",
                                   "--cpus-per-gpu=n",
                                   "--mem-per-gpu=n",
                                   "--distribution=type",
                                   "--hint=",
                                   "--exclusive[=user]",
                                   "--overcommit",
                                   "--reservation=name",
                                   "--deadline=time",
                                   "--delay-boot=mins",
                                   "--container",
                                   "--uid=user_id",
                                   "--gid=group_id",
                                   "--wait",
                                   "--export-file=file|fd",
                                   "--get-user-env",
                                   "--propagate[=rlimits]",
                                   "--parsable"}) {
    EXPECT_TRUE(absl::StrContains(help, option)) << option;
  }
  // Only options sbatch accepts: srun's --cpu-bind and --mpi are not among them.
  EXPECT_FALSE(absl::StrContains(help, "--cpu-bind"));
  EXPECT_FALSE(absl::StrContains(help, "--mpi"));
  for (absl::string_view line : absl::StrSplit(help, '\n')) {
    EXPECT_LE(line.size(), 90u) << line;
  }
}

TEST(SbatchHelpTest, HintHelpPrintsAndExitsOne) {
  std::istringstream in("#!/bin/sh\ntrue\n");
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(RunSbatch({"--hint=help"}, in, out, err), 1);
  EXPECT_TRUE(absl::StartsWith(out.str(), "Application hint options:\n"));
}

}  // namespace
}  // namespace canopy::ctl::sbatch
