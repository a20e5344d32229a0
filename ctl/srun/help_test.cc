// srun --help, --usage and --version against Slurm 22.05's texts.
#include "ctl/srun/help.h"

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "ctl/srun/options.h"
#include "gtest/gtest.h"

namespace canopy::ctl::srun {
namespace {

using slurm::InfoRequest;

TEST(SrunHelpTest, Texts) {
  const std::string help = SrunInfoText(InfoRequest::kHelp);
  EXPECT_TRUE(absl::StartsWith(help,
                               "Usage: srun [OPTIONS(0)... [executable(0) [args(0)...]]] [ : "
                               "[OPTIONS(N)...]] executable(N) [args(N)...]\n\n"
                               "Parallel run options:\n"
                               "  -A, --account=name          charge job to specified account\n"));
  EXPECT_TRUE(absl::EndsWith(
      help, "  -V, --version               output version information and exit\n\n"));
  for (absl::string_view option :
       {"--cpu-bind=", "--mpi=type", "--hint=", "--gpu-bind=...", "--gpus-per-task=n",
        "--mem-per-gpu=n", "--cpus-per-gpu=n", "--distribution=type", "--overcommit",
        "--reservation=name", "--deadline=time", "--delay-boot=mins", "--container",
        "--comment=name", "--wckey=wckey", "--mail-type=type", "--propagate[=rlimits]"}) {
    EXPECT_TRUE(absl::StrContains(help, option)) << option;
  }
  for (absl::string_view line : absl::StrSplit(help, '\n')) {
    if (!absl::StartsWith(line, "Usage:")) {
      EXPECT_LE(line.size(), 90u) << line;
    }
  }
  const std::string usage = SrunInfoText(InfoRequest::kUsage);
  EXPECT_TRUE(absl::StartsWith(usage, "Usage: srun [-N nnodes] [-n ntasks] [-i in] [-o out]"));
  EXPECT_TRUE(absl::EndsWith(usage, "            executable [args...]\n"));
  EXPECT_EQ(SrunInfoText(InfoRequest::kVersion), "slurm 22.05.8 (Canopy's srun)\n");
  EXPECT_TRUE(absl::StartsWith(SrunInfoText(InfoRequest::kCpuBindHelp), "CPU bind options:\n"));
}

TEST(SrunHelpTest, OptionsAskForThem) {
  EXPECT_EQ(ParseSrunArgs({"--help"})->info, InfoRequest::kHelp);
  EXPECT_EQ(ParseSrunArgs({"-h"})->info, InfoRequest::kHelp);
  EXPECT_EQ(ParseSrunArgs({"--usage", "--bogus"})->info, InfoRequest::kUsage);
  EXPECT_EQ(ParseSrunArgs({"-V"})->info, InfoRequest::kVersion);
  EXPECT_EQ(ParseSrunArgs({"--cpu-bind=help"})->info, InfoRequest::kCpuBindHelp);
  EXPECT_EQ(ParseSrunArgs({"--hint=help", "x"})->info, InfoRequest::kHintHelp);
  EXPECT_EQ(slurm::InfoExitCode(InfoRequest::kHelp), 0);
  EXPECT_EQ(slurm::InfoExitCode(InfoRequest::kCpuBindHelp), 255);
  EXPECT_EQ(slurm::InfoExitCode(InfoRequest::kHintHelp), 1);
  // srun acts on options in order: a bad value before --help is reported.
  absl::StatusOr<SrunOptions> o = ParseSrunArgs({"--time=abc", "--help"});
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().message(), "error: Invalid --time specification");
  EXPECT_EQ(slurm::ExitCodeOf(o.status()), 255);
}

}  // namespace
}  // namespace canopy::ctl::srun
