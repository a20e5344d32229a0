// UnixPeerListener: canopyd's unix socket, accepted by canopyd itself so that every local caller
// is identified by the kernel. gRPC C++ 1.51 does not expose a call's SO_PEERCRED, so instead of
// builder.AddListeningPort("unix:...") this class listens on the socket, accepts in its own
// thread, records each connection's peer credentials (uid, gid, pid at connect() time) under the
// connection's fd number, and hands the fd to gRPC (grpc::AddInsecureChannelFromFd). gRPC names
// such a peer "fd:<number>" (ServerContext::peer(), checked by unix_peer_listener_test.cc), which
// is how Lookup() finds a call's credentials.
//
// Calls that did not come through this listener (TCP) look up as std::nullopt: unauthenticated.
//
// Fd reuse. When a connection ends, gRPC closes its fd and the kernel hands the same number to a
// later accept(); the accept thread overwrites the entry for that number *before* giving the fd
// to gRPC, so a call on the new connection can never see the old entry. The reverse case, a
// handler of the *old* connection looking up after its number was reused, is the remaining
// race. With gRPC 1.51 it does not occur while the handler runs: the transport, and with it the
// fd, stays open until every call on it has finished, even after the client hung up. That is
// observed behaviour, not a documented gRPC promise; the test
// HandlerOutlivingItsClientKeepsItsCredentials pins it, so a gRPC upgrade that changes it fails
// there. Hence the rule for callers: look up from inside the handler (or from code it waits for
// before returning), never after the call has completed nor from a detached thread.
//
// Kernel semantics worth knowing: SO_PEERCRED reports who called connect(); a process that
// passes its connected socket to another one (SCM_RIGHTS, fork) lends it its identity. The pid
// is as seen in canopyd's pid namespace (0 if the peer's is not visible).
//
// Ownership: the listener owns the listening socket, the accept thread and the socket file.
// Thread-safety: all methods are thread-safe; Lookup() is cheap (one reader lock, one hash
// lookup) and may be called from any gRPC thread. Locks: lifecycle_mu_ and mu_ are never held
// together.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "common/os/unique_fd.h"
#include "grpcpp/server.h"
#include "grpcpp/server_context.h"

namespace canopy::server {

// Who is on the other end of a unix-socket connection, as the kernel saw it at connect().
struct PeerCredentials {
  uint32_t uid = 0;
  uint32_t gid = 0;
  int32_t pid = 0;

  friend bool operator==(const PeerCredentials&, const PeerCredentials&) = default;
};

class UnixPeerListener {
 public:
  // Creates the socket file at `path` (mode 0666: anyone local may connect; identity comes from
  // the kernel, not from the file's permissions) and listens on it. A leftover file at `path` is
  // removed first: the caller must own the path (canopyd holds the state-dir lock).
  // Connections queue in the backlog until Start().
  // InvalidArgument: path empty or too long for a unix socket address (107 bytes);
  // otherwise the errno's code (PermissionDenied, NotFound for a missing directory, ...);
  // every message names the path and the failing call.
  static absl::StatusOr<std::unique_ptr<UnixPeerListener>> Listen(const std::string& path);

  UnixPeerListener(const UnixPeerListener&) = delete;
  UnixPeerListener& operator=(const UnixPeerListener&) = delete;
  ~UnixPeerListener();  // Stop()

  // Starts the accept thread, which hands every accepted connection to `server`.
  // Preconditions: `server` has been started (BuildAndStart) and is neither shut down nor
  // destroyed before Stop() returns; Start() is called at most once.
  void Start(grpc::Server* server);

  // Stops accepting: wakes and joins the accept thread, closes the listening socket and removes
  // the socket file. Connections already handed to gRPC stay up (the server's Shutdown ends
  // them) and still look up. Idempotent; also fine without Start().
  void Stop();

  // The credentials of the connection that `context`'s call came over, or std::nullopt if it did
  // not come through this listener (TCP, or another server). See "Fd reuse" above for when it may
  // be called.
  std::optional<PeerCredentials> Lookup(const grpc::ServerContextBase& context) const;

  // The same, from a peer string as ServerContextBase::peer() gives it ("fd:7").
  std::optional<PeerCredentials> LookupPeer(absl::string_view peer) const;

  const std::string& path() const { return path_; }

 private:
  UnixPeerListener(std::string path, os::UniqueFd listen_fd, os::UniqueFd wake_fd);

  void AcceptLoop(grpc::Server* server);
  // Accepts one pending connection, if any, records its credentials and gives it to `server`.
  void AcceptOne(grpc::Server* server);
  // Waits up to `timeout_ms` for Stop(); true if it was called.
  bool WaitForStop(int timeout_ms) const;

  const std::string path_;
  os::UniqueFd listen_fd_;  // closed by Stop() after the accept thread is joined
  os::UniqueFd wake_fd_;    // eventfd: Stop() writes to it to wake the accept thread

  absl::Mutex lifecycle_mu_;
  std::thread accept_thread_ ABSL_GUARDED_BY(lifecycle_mu_);
  bool stopped_ ABSL_GUARDED_BY(lifecycle_mu_) = false;

  mutable absl::Mutex mu_;
  // Connection fd number -> credentials. An entry outlives its connection until the number is
  // reused (then it is overwritten); at most one entry per fd number the process can hold.
  absl::flat_hash_map<int, PeerCredentials> by_fd_ ABSL_GUARDED_BY(mu_);
};

}  // namespace canopy::server
