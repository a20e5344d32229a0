// sbatch's script lookup, as sbatch(1) of Slurm 22.05 orders it (SCRIPT PATH RESOLUTION).
#include "ctl/sbatch/script_path.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace canopy::ctl::sbatch {
namespace {

class ScriptPathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "script-path-XXXXXX").string();
    root_ = mkdtemp(tmpl.data());
    std::filesystem::create_directories(root_ + "/cwd");
    std::filesystem::create_directories(root_ + "/bin1");
    std::filesystem::create_directories(root_ + "/bin2");
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  void Write(const std::string& path) { std::ofstream(root_ + "/" + path) << "#!/bin/sh\n"; }

  std::string root_;
};

TEST_F(ScriptPathTest, TheWorkingDirectoryComesBeforePath) {
  Write("cwd/job.sh");
  Write("bin1/job.sh");
  const std::string path = root_ + "/bin1";
  EXPECT_EQ(ResolveScriptPath("job.sh", root_ + "/cwd", path.c_str()), root_ + "/cwd/job.sh");
}

TEST_F(ScriptPathTest, ANameFoundOnlyInPathIsTakenFromTheFirstDirectoryThatHasIt) {
  Write("bin2/job.sh");
  const std::string path = root_ + "/nosuch:" + root_ + "/bin1:" + root_ + "/bin2";
  EXPECT_EQ(ResolveScriptPath("job.sh", root_ + "/cwd", path.c_str()), root_ + "/bin2/job.sh");
  // A directory of that name is no script.
  std::filesystem::create_directories(root_ + "/bin1/dir.sh");
  Write("bin2/dir.sh");
  EXPECT_EQ(ResolveScriptPath("dir.sh", root_ + "/cwd", path.c_str()), root_ + "/bin2/dir.sh");
}

// As Slurm 22.05 did on this machine: "./job.sh" is the caller's even with --chdir elsewhere
// (it failed when only the --chdir directory had one), and "sub/job.sh" was found under a PATH
// directory.
TEST_F(ScriptPathTest, DotAndAbsoluteNamesAreTakenAsTheyAreSlashedOnesAreLookedUp) {
  Write("cwd/job.sh");
  std::filesystem::create_directories(root_ + "/bin1/sub");
  Write("bin1/sub/job.sh");
  const std::string path = root_ + "/bin1";
  EXPECT_EQ(ResolveScriptPath("./job.sh", root_ + "/cwd", path.c_str()), "./job.sh");
  EXPECT_EQ(ResolveScriptPath("../x/job.sh", root_ + "/cwd", path.c_str()), "../x/job.sh");
  EXPECT_EQ(ResolveScriptPath("/abs/job.sh", root_ + "/cwd", path.c_str()), "/abs/job.sh");
  EXPECT_EQ(ResolveScriptPath("sub/job.sh", root_ + "/cwd", path.c_str()),
            root_ + "/bin1/sub/job.sh");
}

TEST(ResolvePathTest, RelativePathsJoinTheDirectoryAbsoluteOnesStay) {
  EXPECT_EQ(ResolvePath("sub/x", "/d"), "/d/sub/x");
  EXPECT_EQ(ResolvePath("x", "/d/"), "/d/x");
  EXPECT_EQ(ResolvePath("/abs", "/d"), "/abs");
  EXPECT_EQ(ResolvePath("x", ""), "x");
}

TEST_F(ScriptPathTest, ANameFoundNowhereIsReturnedAsTyped) {
  const std::string path = root_ + "/bin1";
  EXPECT_EQ(ResolveScriptPath("missing.sh", root_ + "/cwd", path.c_str()), "missing.sh");
  EXPECT_EQ(ResolveScriptPath("missing.sh", root_ + "/cwd", nullptr), "missing.sh");
}

}  // namespace
}  // namespace canopy::ctl::sbatch
