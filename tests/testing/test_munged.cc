#include "tests/testing/test_munged.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace canopy::testing {

absl::StatusOr<std::unique_ptr<TestMunged>> TestMunged::Start(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  // munged insists that nobody else may write where its socket and key live.
  ::chmod(dir.c_str(), 0755);
  const std::string key = absl::StrCat(dir, "/munge.key");
  const std::string make_key = absl::StrCat("mungekey --create --force --keyfile=", key);
  if (std::system(make_key.c_str()) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("'", make_key, "' failed: is Debian's munge package installed?"));
  }
  const std::string socket = absl::StrCat(dir, "/munge.socket");
  absl::StatusOr<Subprocess> process = Subprocess::Start(
      {"/usr/sbin/munged", "--foreground", "--force", absl::StrCat("--socket=", socket),
       absl::StrCat("--key-file=", key), absl::StrCat("--pid-file=", dir, "/munged.pid"),
       absl::StrCat("--seed-file=", dir, "/munged.seed"),
       absl::StrCat("--log-file=", dir, "/munged.log"), "--num-threads=4"},
      {}, absl::StrCat(dir, "/munged.out"));
  if (!process.ok()) {
    return process.status();
  }
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  struct stat st {};
  while (::stat(socket.c_str(), &st) != 0) {
    if (absl::Now() > deadline) {
      return absl::DeadlineExceededError(
          absl::StrCat("munged did not create ", socket, " in 20 s; see ", dir, "/munged.out"));
    }
    if (absl::StatusOr<int> exited = process->Wait(absl::Milliseconds(50)); exited.ok()) {
      return absl::FailedPreconditionError(
          absl::StrCat("munged exited at start; see ", dir, "/munged.out and munged.log"));
    }
  }
  return std::unique_ptr<TestMunged>(new TestMunged(socket, *std::move(process)));
}

}  // namespace canopy::testing
