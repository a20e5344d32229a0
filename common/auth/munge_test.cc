#include "common/auth/munge.h"

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/testing/test_munged.h"

namespace canopy::auth {
namespace {

using ::testing::HasSubstr;

class MungeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = absl::StrCat(::testing::TempDir(), "/munge-", getpid());
    std::filesystem::remove_all(dir_);
    absl::StatusOr<std::unique_ptr<testing::TestMunged>> munged = testing::TestMunged::Start(dir_);
    ASSERT_TRUE(munged.ok()) << munged.status();
    munged_ = *std::move(munged);
  }
  void TearDown() override {
    munged_.reset();
    std::filesystem::remove_all(dir_);
  }

  std::string dir_;
  std::unique_ptr<testing::TestMunged> munged_;
};

TEST_F(MungeTest, ACredentialCarriesItsMakersUidAndPayloadOnce) {
  absl::StatusOr<std::string> credential = MungeEncode(munged_->socket(), "payload");
  ASSERT_TRUE(credential.ok()) << credential.status();
  absl::StatusOr<MungeIdentity> identity = MungeDecode(munged_->socket(), *credential);
  ASSERT_TRUE(identity.ok()) << identity.status();
  EXPECT_EQ(identity->uid, geteuid());
  EXPECT_EQ(identity->gid, getegid());
  EXPECT_EQ(identity->payload, "payload");
  EXPECT_LT(absl::Now() - identity->encoded_at, absl::Minutes(1));

  absl::StatusOr<MungeIdentity> again = MungeDecode(munged_->socket(), *credential);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), absl::StatusCode::kUnauthenticated);
  EXPECT_THAT(again.status().message(), HasSubstr("Replayed credential"));
}

TEST_F(MungeTest, AnotherUsersCredentialDecodesAsThatUser) {
  if (geteuid() != 0) {
    GTEST_SKIP() << "needs root to mint a credential as another uid";
  }
  int pipefd[2];
  ASSERT_EQ(pipe(pipefd), 0);
  const pid_t child = fork();
  if (child == 0) {
    close(pipefd[0]);
    if (setgid(65534) != 0 || setuid(65534) != 0) {
      _exit(3);
    }
    absl::StatusOr<std::string> c = MungeEncode(munged_->socket(), "x");
    if (!c.ok() || write(pipefd[1], c->data(), c->size()) != static_cast<ssize_t>(c->size())) {
      _exit(4);
    }
    _exit(0);
  }
  close(pipefd[1]);
  std::string credential;
  char buf[512];
  for (ssize_t n; (n = read(pipefd[0], buf, sizeof(buf))) > 0;) {
    credential.append(buf, static_cast<size_t>(n));
  }
  close(pipefd[0]);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  absl::StatusOr<MungeIdentity> identity = MungeDecode(munged_->socket(), credential);
  ASSERT_TRUE(identity.ok()) << identity.status();
  EXPECT_EQ(identity->uid, 65534u);
}

TEST_F(MungeTest, GarbageAndAMissingDaemonAreToldApart) {
  absl::StatusOr<MungeIdentity> garbage = MungeDecode(munged_->socket(), "MUNGE:not-a-cred:");
  ASSERT_FALSE(garbage.ok());
  EXPECT_EQ(garbage.status().code(), absl::StatusCode::kUnauthenticated);

  const std::string nowhere = absl::StrCat(dir_, "/no.socket");
  absl::StatusOr<std::string> encoded = MungeEncode(nowhere, "x");
  ASSERT_FALSE(encoded.ok());
  EXPECT_EQ(encoded.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(encoded.status().message(),
              HasSubstr(absl::StrCat("cannot reach munged at ", nowhere)));
}

}  // namespace
}  // namespace canopy::auth
