#include "scheduler/server/unix_peer_listener.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/log/absl_format.h"
#include "grpcpp/server_posix.h"
#include "spdlog/spdlog.h"

#ifndef GPR_SUPPORT_CHANNELS_FROM_FD
#error "UnixPeerListener needs grpc::AddInsecureChannelFromFd (GPR_SUPPORT_CHANNELS_FROM_FD)"
#endif

namespace canopy::server {
namespace {

// gRPC's name for the peer of a channel made by AddInsecureChannelFromFd:
// grpc_server_add_insecure_channel_from_fd names the endpoint absl::StrCat("fd:", fd).
constexpr absl::string_view kFdPeerPrefix = "fd:";

// After a failed accept() that is not about this one connection (out of fds, out of memory),
// wait this long before the next try instead of spinning on a listening socket that stays
// readable.
constexpr int kAcceptBackoffMs = 100;

absl::Status PathError(int error, absl::string_view call, const std::string& path) {
  return absl::ErrnoToStatus(error, absl::StrCat(call, " unix socket ", path));
}

}  // namespace

absl::StatusOr<std::unique_ptr<UnixPeerListener>> UnixPeerListener::Listen(
    const std::string& path) {
  sockaddr_un addr;
  std::memset(&addr, 0, sizeof(addr));
  addr.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof(addr.sun_path)) {
    return absl::InvalidArgumentError(absl::StrCat("unix socket path '", path,
                                                   "' is empty or longer than ",
                                                   sizeof(addr.sun_path) - 1, " bytes"));
  }
  std::memcpy(addr.sun_path, path.data(), path.size());

  // A socket file left by a killed canopyd would make bind() fail with EADDRINUSE.
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
    return PathError(errno, "cannot remove the old", path);
  }
  os::UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd.valid()) {
    return PathError(errno, "cannot create", path);
  }
  if (::bind(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) != 0) {
    return PathError(errno, "cannot bind", path);
  }
  // From here on the file exists; remove it again on failure.
  auto fail = [&path](absl::Status status) {
    ::unlink(path.c_str());
    return status;
  };
  // bind() applied the umask; connecting needs write permission on the file.
  if (::chmod(path.c_str(), 0666) != 0) {
    return fail(PathError(errno, "cannot chmod 0666", path));
  }
  if (::listen(fd.get(), SOMAXCONN) != 0) {
    return fail(PathError(errno, "cannot listen on", path));
  }
  os::UniqueFd wake(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!wake.valid()) {
    return fail(absl::ErrnoToStatus(errno, absl::StrCat("eventfd for unix socket ", path)));
  }
  return std::unique_ptr<UnixPeerListener>(
      new UnixPeerListener(path, std::move(fd), std::move(wake)));
}

UnixPeerListener::UnixPeerListener(std::string path, os::UniqueFd listen_fd, os::UniqueFd wake_fd)
    : path_(std::move(path)), listen_fd_(std::move(listen_fd)), wake_fd_(std::move(wake_fd)) {}

UnixPeerListener::~UnixPeerListener() { Stop(); }

void UnixPeerListener::Start(grpc::Server* server) {
  absl::MutexLock lock(&lifecycle_mu_);
  if (stopped_ || accept_thread_.joinable()) {
    spdlog::error("unix socket {}: Start() after Start() or Stop() ignored", path_);
    return;
  }
  accept_thread_ = std::thread([this, server] { AcceptLoop(server); });
}

void UnixPeerListener::Stop() {
  absl::MutexLock lock(&lifecycle_mu_);
  if (stopped_) {
    return;
  }
  stopped_ = true;
  // The eventfd stays readable from now on: the accept thread sees it at its next poll().
  const uint64_t one = 1;
  if (::write(wake_fd_.get(), &one, sizeof(one)) != static_cast<ssize_t>(sizeof(one))) {
    spdlog::error("unix socket {}: cannot wake the accept thread: {}", path_, std::strerror(errno));
  }
  // The accept thread never takes lifecycle_mu_, so joining under it cannot deadlock.
  if (accept_thread_.joinable()) {
    accept_thread_.join();
  }
  // Only now: closing the fd while the thread polls it could let poll() see a reused number.
  listen_fd_.reset();
  if (::unlink(path_.c_str()) != 0 && errno != ENOENT) {
    spdlog::warn("cannot remove unix socket {}: {}", path_, std::strerror(errno));
  }
}

bool UnixPeerListener::WaitForStop(int timeout_ms) const {
  pollfd wake{wake_fd_.get(), POLLIN, 0};
  return ::poll(&wake, 1, timeout_ms) > 0;
}

void UnixPeerListener::AcceptLoop(grpc::Server* server) {
  spdlog::debug("unix socket {}: accepting", path_);
  while (true) {
    pollfd fds[2] = {{listen_fd_.get(), POLLIN, 0}, {wake_fd_.get(), POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno != EINTR) {
        spdlog::error("unix socket {}: poll: {}", path_, std::strerror(errno));
        if (WaitForStop(kAcceptBackoffMs)) {
          return;
        }
      }
      continue;
    }
    if (fds[1].revents != 0) {
      return;
    }
    if (fds[0].revents != 0) {
      AcceptOne(server);
    }
  }
}

void UnixPeerListener::AcceptOne(grpc::Server* server) {
  // Non-blocking and close-on-exec, as gRPC's own listeners make their connections.
  os::UniqueFd conn(::accept4(listen_fd_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
  if (!conn.valid()) {
    const int error = errno;
    if (error == EAGAIN || error == EWOULDBLOCK || error == EINTR || error == ECONNABORTED) {
      return;  // nothing there after all, or the client gave up: not our problem
    }
    // EMFILE, ENFILE, ENOBUFS, ENOMEM: the connection stays queued; try again a bit later.
    spdlog::warn("unix socket {}: accept: {}", path_, std::strerror(error));
    WaitForStop(kAcceptBackoffMs);
    return;
  }
  ucred cred;
  socklen_t len = sizeof(cred);
  if (::getsockopt(conn.get(), SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || len != sizeof(cred)) {
    // Never serve a local connection whose caller we cannot name: drop it (conn closes it).
    spdlog::warn("unix socket {}: dropping a connection without peer credentials: {}", path_,
                 std::strerror(errno));
    return;
  }
  const int fd = conn.get();
  const PeerCredentials peer{cred.uid, cred.gid, cred.pid};
  {
    // Before gRPC sees the fd: no call on this connection can look up the number's previous
    // owner (see "Fd reuse" in the header).
    absl::MutexLock lock(&mu_);
    by_fd_[fd] = peer;
  }
  spdlog::debug("unix socket {}: connection fd {} from uid {} gid {} pid {}", path_, fd, peer.uid,
                peer.gid, peer.pid);
  // gRPC owns the fd from here on and closes it when the connection ends.
  grpc::AddInsecureChannelFromFd(server, conn.release());
}

std::optional<PeerCredentials> UnixPeerListener::Lookup(
    const grpc::ServerContextBase& context) const {
  return LookupPeer(context.peer());
}

std::optional<PeerCredentials> UnixPeerListener::LookupPeer(absl::string_view peer) const {
  if (!absl::ConsumePrefix(&peer, kFdPeerPrefix)) {
    return std::nullopt;  // "ipv4:...", "ipv6:...", "unix:..." (another listener)
  }
  int fd = -1;
  if (!absl::SimpleAtoi(peer, &fd)) {
    return std::nullopt;
  }
  absl::ReaderMutexLock lock(&mu_);
  auto it = by_fd_.find(fd);
  if (it == by_fd_.end()) {
    return std::nullopt;
  }
  return it->second;
}

}  // namespace canopy::server
