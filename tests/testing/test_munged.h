// TestMunged: a munged of the test's own, on a key made for it, with its socket in a directory
// the test owns: so tests of AuthType=auth/munge never touch the host's munged or its key.
// The destructor stops it (Subprocess kills its process group). Needs munge and mungekey
// (Debian's munge package, which deploy/install-deps.sh installs).
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "tests/testing/subprocess.h"

namespace canopy::testing {

class TestMunged {
 public:
  // Makes `dir` (it must not exist yet, or be empty), a key in it, and starts munged there.
  static absl::StatusOr<std::unique_ptr<TestMunged>> Start(const std::string& dir);

  const std::string& socket() const { return socket_; }

 private:
  TestMunged(std::string socket, Subprocess process)
      : socket_(std::move(socket)), process_(std::move(process)) {}

  std::string socket_;
  Subprocess process_;
};

}  // namespace canopy::testing
