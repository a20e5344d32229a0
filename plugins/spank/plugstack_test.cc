#include "plugins/spank/plugstack.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::spank {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class PlugStackTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/plugstack_test.XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { ASSERT_EQ(system(("rm -rf " + dir_).c_str()), 0); }
  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ + "/" + name) << text;
  }
  std::string dir_;
};

TEST_F(PlugStackTest, RequiredOptionalArgumentsAndComments) {
  absl::StatusOr<PlugStack> stack = ParsePlugStack(
      "# site plugins\n"
      "required /opt/spank/pyxis.so runtime_path=/run/pyxis  # containers\n"
      "\n"
      "optional\t/opt/spank/renice.so prio=5 min=0\n",
      "plugstack.conf", "");
  ASSERT_TRUE(stack.ok()) << stack.status();
  ASSERT_EQ(stack->entries.size(), 2u);
  EXPECT_TRUE(stack->entries[0].required);
  EXPECT_EQ(stack->entries[0].path, "/opt/spank/pyxis.so");
  EXPECT_THAT(stack->entries[0].args, ElementsAre("runtime_path=/run/pyxis"));
  EXPECT_EQ(stack->entries[0].origin, "plugstack.conf:2");
  EXPECT_FALSE(stack->entries[1].required);
  EXPECT_THAT(stack->entries[1].args, ElementsAre("prio=5", "min=0"));
  EXPECT_TRUE(stack->warnings.empty());
}

TEST_F(PlugStackTest, BadLinesAreLeftOutWithAWarningAsInSlurm) {
  absl::StatusOr<PlugStack> stack =
      ParsePlugStack("requird /a.so\nrequired\noptional /b.so\n", "plugstack.conf", "");
  ASSERT_TRUE(stack.ok());
  ASSERT_EQ(stack->entries.size(), 1u);
  EXPECT_EQ(stack->entries[0].path, "/b.so");
  EXPECT_THAT(stack->warnings,
              ElementsAre("plugstack.conf:1: expected required, optional or include, got "
                          "'requird'; line ignored",
                          "plugstack.conf:2: required: expected the path of a plugin; line "
                          "ignored"));
}

TEST_F(PlugStackTest, RelativePathsAreLookedUpInPluginDirInOrder) {
  ASSERT_EQ(mkdir((dir_ + "/one").c_str(), 0755), 0);
  ASSERT_EQ(mkdir((dir_ + "/two").c_str(), 0755), 0);
  Write("two/x.so", "");
  absl::StatusOr<PlugStack> stack = ParsePlugStack(
      "required x.so\noptional y.so\n", "plugstack.conf", dir_ + "/one:" + dir_ + "/two");
  ASSERT_TRUE(stack.ok());
  EXPECT_EQ(stack->entries[0].path, dir_ + "/two/x.so");
  EXPECT_EQ(stack->entries[1].path, "y.so");  // found nowhere: dlopen's own search decides
}

TEST_F(PlugStackTest, IncludeGlobsRelativeToTheIncludingFileInSortedOrder) {
  ASSERT_EQ(mkdir((dir_ + "/plugstack.conf.d").c_str(), 0755), 0);
  Write("plugstack.conf", "required /first.so\ninclude plugstack.conf.d/*.conf\n");
  Write("plugstack.conf.d/b.conf", "optional /b.so\n");
  Write("plugstack.conf.d/a.conf", "optional /a.so\n");
  absl::StatusOr<PlugStack> stack = ReadPlugStack(dir_ + "/plugstack.conf", "");
  ASSERT_TRUE(stack.ok()) << stack.status();
  ASSERT_EQ(stack->entries.size(), 3u);
  EXPECT_EQ(stack->entries[0].path, "/first.so");
  EXPECT_EQ(stack->entries[1].path, "/a.so");
  EXPECT_EQ(stack->entries[2].path, "/b.so");
  EXPECT_EQ(stack->entries[2].origin, dir_ + "/plugstack.conf.d/b.conf:1");
}

TEST_F(PlugStackTest, AnIncludeMatchingNothingIsEmptyAndALoopIsAnError) {
  Write("plugstack.conf", "include nothing/*.conf\n");
  absl::StatusOr<PlugStack> stack = ReadPlugStack(dir_ + "/plugstack.conf", "");
  ASSERT_TRUE(stack.ok());
  EXPECT_TRUE(stack->entries.empty());
  Write("loop.conf", "include loop.conf\n");
  stack = ReadPlugStack(dir_ + "/loop.conf", "");
  ASSERT_FALSE(stack.ok());
  EXPECT_THAT(stack.status().message(), HasSubstr("nested files (an include loop?)"));
}

TEST_F(PlugStackTest, AMissingFileIsNotFound) {
  absl::StatusOr<PlugStack> stack = ReadPlugStack(dir_ + "/absent.conf", "");
  EXPECT_TRUE(absl::IsNotFound(stack.status())) << stack.status();
}

}  // namespace
}  // namespace canopy::spank
