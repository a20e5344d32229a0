// The state directory: created closed to group and others (search kept for the socket), an
// existing one left as it is, locked against a second canopyd.
#include "scheduler/server/daemon_setup.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::server {
namespace {

class StateDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("canopy-state-dir-test-" + std::to_string(getpid()));
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  mode_t Mode(const std::string& path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 ? (st.st_mode & 07777) : 010000;
  }
  std::filesystem::path dir_;
};

TEST_F(StateDirTest, ADirectoryCanopydMakesIsClosedToGroupAndOthers) {
  const std::string state = (dir_ / "state").string();
  absl::StatusOr<os::UniqueFd> lock = LockStateDir(state);
  ASSERT_TRUE(lock.ok()) << lock.status();
  EXPECT_EQ(Mode(state), 0711u);
  // A second controller on the same directory is refused.
  absl::StatusOr<os::UniqueFd> second = LockStateDir(state);
  EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(second.status().message(), ::testing::HasSubstr("another canopyd"));
}

// The admin's directory (it may be shared, or /tmp) keeps the mode the admin gave it.
TEST_F(StateDirTest, AnExistingDirectoryKeepsItsMode) {
  for (mode_t mode : {0700, 0755}) {
    const std::string state = (dir_ / ("existing" + std::to_string(mode))).string();
    std::filesystem::create_directories(state);
    ASSERT_EQ(::chmod(state.c_str(), mode), 0);
    ASSERT_TRUE(LockStateDir(state).ok());
    EXPECT_EQ(Mode(state), mode);
  }
}

}  // namespace
}  // namespace canopy::server
