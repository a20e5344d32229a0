// The state directory: created, closed to group and others (search kept for the socket), locked
// against a second canopyd.
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

TEST_F(StateDirTest, GroupAndOthersMayNotListOrWriteIt) {
  const std::string state = (dir_ / "state").string();
  std::filesystem::create_directories(state);
  ASSERT_EQ(::chmod(state.c_str(), 0777), 0);
  absl::StatusOr<os::UniqueFd> lock = LockStateDir(state);
  ASSERT_TRUE(lock.ok()) << lock.status();
  EXPECT_EQ(Mode(state), 0711u);
  // A second controller on the same directory is refused.
  absl::StatusOr<os::UniqueFd> second = LockStateDir(state);
  EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(second.status().message(), ::testing::HasSubstr("another canopyd"));
}

TEST_F(StateDirTest, AStricterDirectoryIsLeftAsItIs) {
  const std::string state = (dir_ / "strict").string();
  std::filesystem::create_directories(state);
  ASSERT_EQ(::chmod(state.c_str(), 0700), 0);
  ASSERT_TRUE(LockStateDir(state).ok());
  EXPECT_EQ(Mode(state), 0700u);
}

}  // namespace
}  // namespace canopy::server
