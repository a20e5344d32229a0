// SPANK plugins' options in sbatch: accepted on the command line and in #SBATCH lines like
// sbatch's own (getopt's rules, prefixes included), kept in order for the plugins.
#include "common/slurm/sbatch_options.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::slurm {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

const std::vector<ExtraOption> kPluginOptions = {{"container-image", ArgKind::kRequired},
                                                 {"container-writable", ArgKind::kNone},
                                                 {"tmp-size", ArgKind::kOptional}};

TEST(SbatchPluginOptionsTest, DirectivesThenCommandLineInOrder) {
  absl::StatusOr<SbatchOptions> o = ParseSbatch(
      "#!/bin/sh\n#SBATCH --container-image=nvcr.io/pytorch\n#SBATCH -N 2\n",
      {"--container-writable", "--tmp-size=10G", "--container-im", "ubuntu", "-p", "gpu"}, {},
      kPluginOptions);
  ASSERT_TRUE(o.ok()) << o.status();
  EXPECT_EQ(o->partition, "gpu");
  EXPECT_THAT(
      o->plugin_options,
      ElementsAre(Pair("container-image", "nvcr.io/pytorch"), Pair("container-writable", ""),
                  Pair("tmp-size", "10G"), Pair("container-image", "ubuntu")));
}

TEST(SbatchPluginOptionsTest, UnknownWithoutThePluginAndHelpStillFound) {
  absl::StatusOr<SbatchOptions> o = ParseSbatchCommandLine({"--container-writable"});
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().message(),
            "unrecognized option '--container-writable'\nTry \"sbatch --help\" for more "
            "information");
  absl::StatusOr<InfoRequest> info =
      FindSbatchInfoRequest({"--container-image=x", "--help"}, kPluginOptions);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(*info, InfoRequest::kHelp);
  o = ParseSbatchCommandLine({"--container-image"}, kPluginOptions);
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().message(),
            "option '--container-image' requires an argument\nTry \"sbatch --help\" for more "
            "information");
}

}  // namespace
}  // namespace canopy::slurm
