// Helpers shared by the config parsers; see parse_util.h.
#include "common/config/parse_util.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace canopy::config::internal {
namespace {

// Messages quote at most this many characters of a value: enough to recognise it, not so much
// that one bad line floods a log.
constexpr size_t kMaxQuotedChars = 80;

// Closes a file descriptor on every return path of ReadConfigFile.
class FdCloser {
 public:
  explicit FdCloser(int fd) : fd_(fd) {}
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;
  ~FdCloser() { ::close(fd_); }

 private:
  int fd_;
};

}  // namespace

std::optional<int64_t> ParseDecimal(absl::string_view text, int64_t max) {
  if (text.empty()) {
    return std::nullopt;
  }
  int64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') {
      return std::nullopt;
    }
    const int digit = c - '0';
    if (value > (max - digit) / 10) {
      return std::nullopt;
    }
    value = value * 10 + digit;
  }
  return value;
}

std::string Printable(absl::string_view value) {
  if (value.size() <= kMaxQuotedChars) {
    return absl::CHexEscape(value);
  }
  return absl::StrCat(absl::CHexEscape(value.substr(0, kMaxQuotedChars)), "...");
}

std::string Quote(absl::string_view value, char quote) {
  return absl::StrCat(std::string(1, quote), Printable(value), std::string(1, quote));
}

absl::StatusOr<std::string> ReadConfigFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    return absl::ErrnoToStatus(err, absl::StrCat("cannot open ", path));
  }
  FdCloser closer(fd);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    return absl::ErrnoToStatus(err, absl::StrCat("cannot stat ", path));
  }
  if (S_ISDIR(st.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot read ", path, ": ", std::strerror(EISDIR)));
  }
  std::string text;
  char buf[1 << 16];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0) {
      const int err = errno;
      if (err == EINTR) {
        continue;
      }
      return absl::ErrnoToStatus(err, absl::StrCat("cannot read ", path));
    }
    if (n == 0) {
      break;
    }
    if (static_cast<int64_t>(text.size()) + n > kMaxConfigFileBytes) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": file is larger than ",
                                                     kMaxConfigFileBytes >> 20,
                                                     " MiB; is this really a config file?"));
    }
    text.append(buf, static_cast<size_t>(n));
  }
  return text;
}

std::string SiblingPath(const std::string& origin, const std::string& name) {
  const std::filesystem::path p(name);
  if (p.is_absolute()) {
    return name;
  }
  return (std::filesystem::path(origin).parent_path() / p).string();
}

std::string DefaultUnixSocket(const std::string& state_dir) {
  if (!state_dir.empty() && state_dir.back() == '/') {
    return absl::StrCat(state_dir, "canopyd.sock");
  }
  return absl::StrCat(state_dir, "/canopyd.sock");
}

absl::Duration DefaultHeartbeat(absl::Duration node_timeout) {
  if (node_timeout == absl::InfiniteDuration()) {
    return absl::Seconds(10);
  }
  return std::clamp(node_timeout / 3, absl::Milliseconds(200), absl::Seconds(10));
}

absl::Status CheckNodeTimeout(absl::Duration node_timeout, absl::Duration heartbeat) {
  if (node_timeout <= 2 * heartbeat) {
    return absl::InvalidArgumentError(absl::StrCat(
        "must be more than twice the heartbeat interval (", absl::FormatDuration(heartbeat),
        ") so that one late heartbeat does not mark every node DOWN, got ",
        absl::FormatDuration(node_timeout)));
  }
  return absl::OkStatus();
}

void UnusedKeys::Add(absl::string_view key) {
  if (seen_lower_.insert(absl::AsciiStrToLower(key)).second) {
    keys_.emplace_back(key);
  }
}

}  // namespace canopy::config::internal
