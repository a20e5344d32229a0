// canopyctl install-links: links made, replaced, left alone, and Slurm's own files kept.
#include "ctl/canopyctl/install_links.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::ctl::canopyctl {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class InstallLinksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("canopy-links-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    options_.dir = dir_.string();
    options_.target = "/opt/canopy/bin/canopyctl";
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
  InstallLinksOptions options_;
};

TEST_F(InstallLinksTest, EveryFrontEndBecomesALinkToCanopyctl) {
  std::ostringstream out;
  ASSERT_TRUE(InstallLinks(options_, out).ok());
  for (const char* name : kSlurmFrontEnds) {
    const fs::path link = dir_ / name;
    ASSERT_TRUE(fs::is_symlink(link)) << name;
    EXPECT_EQ(fs::read_symlink(link), options_.target);
  }
  EXPECT_THAT(out.str(), HasSubstr((dir_ / "sacct").string() + " -> /opt/canopy/bin/canopyctl\n"));
  // Again: nothing to do; another target: replaced.
  std::ostringstream again;
  ASSERT_TRUE(InstallLinks(options_, again).ok());
  EXPECT_THAT(again.str(), HasSubstr("(already)"));
  options_.target = "/usr/bin/canopyctl";
  ASSERT_TRUE(InstallLinks(options_, out).ok());
  EXPECT_EQ(fs::read_symlink(dir_ / "squeue"), "/usr/bin/canopyctl");
  EXPECT_FALSE(fs::exists(dir_ / ".squeue.canopy-new"));
}

TEST_F(InstallLinksTest, SlurmsOwnCommandIsKeptUnlessForced) {
  std::ofstream(dir_ / "sbatch") << "#!/bin/sh\necho slurm\n";
  std::ostringstream out;
  const absl::Status refused = InstallLinks(options_, out);
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.message(), HasSubstr("sbatch exists and is not a link"));
  EXPECT_THAT(refused.message(), HasSubstr("--force"));
  EXPECT_FALSE(fs::is_symlink(dir_ / "sbatch"));
  options_.force = true;
  ASSERT_TRUE(InstallLinks(options_, out).ok());
  EXPECT_TRUE(fs::is_symlink(dir_ / "sbatch"));
}

TEST_F(InstallLinksTest, ArgumentsAndAMissingDirectory) {
  InstallLinksOptions o;
  EXPECT_TRUE(ParseInstallLinksArgs({"--force", "/usr/local/bin"}, o).ok());
  EXPECT_TRUE(o.force);
  EXPECT_EQ(o.dir, "/usr/local/bin");
  InstallLinksOptions none;
  EXPECT_THAT(ParseInstallLinksArgs({}, none).message(), HasSubstr("which directory?"));
  InstallLinksOptions two;
  EXPECT_THAT(ParseInstallLinksArgs({"a", "b"}, two).message(), HasSubstr("one directory only"));
  InstallLinksOptions bad;
  EXPECT_THAT(ParseInstallLinksArgs({"--sym"}, bad).message(), HasSubstr("unknown option '--sym'"));
  options_.dir = (dir_ / "nope").string();
  std::ostringstream out;
  EXPECT_EQ(InstallLinks(options_, out).code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace canopy::ctl::canopyctl
