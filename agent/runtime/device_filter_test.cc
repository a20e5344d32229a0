#include "agent/runtime/device_filter.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "agent/runtime/cgroup.h"
#include "agent/runtime/runtime_test_util.h"
#include "gtest/gtest.h"

namespace canopy::agent::runtime {
namespace {

TEST(DeviceFilterTest, CharDeviceOfReadsTheDeviceNumber) {
  absl::StatusOr<DeviceNumber> null = CharDeviceOf("/dev/null");
  ASSERT_TRUE(null.ok()) << null.status();
  EXPECT_EQ(*null, (DeviceNumber{1, 3}));
  testing::TempDir dir;
  std::ofstream(dir.path() + "/plain").close();
  EXPECT_EQ(CharDeviceOf(dir.path() + "/plain").status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(CharDeviceOf(dir.path() + "/missing").status().code(), absl::StatusCode::kNotFound);
}

TEST(DeviceFilterTest, NothingToRefuseAttachesNothing) {
  // No cgroup needed: an empty list is done before anything is opened.
  EXPECT_TRUE(AttachDeviceFilter("/nonexistent", {}).ok());
}

// In a child that joins `cgroup`: 0 if `path` opens, its errno otherwise.
int OpenErrorInside(const Cgroup& cgroup, const char* path) {
  const pid_t child = fork();
  if (child == 0) {
    std::ofstream(cgroup.path() + "/cgroup.procs") << getpid() << std::flush;
    const int fd = open(path, O_RDONLY);
    _exit(fd >= 0 ? 0 : errno);
  }
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The kernel enforces the program: /dev/zero (1:5) is refused, /dev/full (1:7) and /dev/null are
// not, in the cgroup only.
TEST(DeviceFilterTest, ARefusedDeviceCannotBeOpenedInTheCgroup) {
  absl::StatusOr<std::string> root = Cgroup::FindDelegatedRoot();
  if (!root.ok()) {
    GTEST_SKIP() << root.status();
  }
  absl::StatusOr<std::unique_ptr<Cgroup>> cg =
      Cgroup::Create(*root, absl::StrCat("canopy-devtest-", getpid()));
  ASSERT_TRUE(cg.ok()) << cg.status();
  absl::Status attached = AttachDeviceFilter((*cg)->path(), {{1, 5}, {1, 9}});
  if (absl::IsFailedPrecondition(attached)) {
    GTEST_SKIP() << attached;  // no BPF here (not root, or an old kernel)
  }
  ASSERT_TRUE(attached.ok()) << attached;
  EXPECT_EQ(OpenErrorInside(**cg, "/dev/zero"), EPERM);
  EXPECT_EQ(OpenErrorInside(**cg, "/dev/urandom"), EPERM);
  EXPECT_EQ(OpenErrorInside(**cg, "/dev/full"), 0);
  EXPECT_EQ(OpenErrorInside(**cg, "/dev/null"), 0);

  // As many as the limit: a node with many GPUs, and the job given one of them.
  absl::StatusOr<std::unique_ptr<Cgroup>> many =
      Cgroup::Create(*root, absl::StrCat("canopy-devtest-many-", getpid()));
  ASSERT_TRUE(many.ok()) << many.status();
  std::vector<DeviceNumber> denied;
  for (uint32_t minor = 0; minor < 999; ++minor) {
    denied.push_back({195, minor});
  }
  denied.push_back({1, 5});
  ASSERT_TRUE(AttachDeviceFilter((*many)->path(), denied).ok());
  EXPECT_EQ(OpenErrorInside(**many, "/dev/zero"), EPERM);
  EXPECT_EQ(OpenErrorInside(**many, "/dev/full"), 0);
  const int outside = open("/dev/zero", O_RDONLY);
  EXPECT_GE(outside, 0);
  close(outside);
}

}  // namespace
}  // namespace canopy::agent::runtime
