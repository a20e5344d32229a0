// CallerAuthenticator: who sent a request to canopyd (docs/security.md).
//
//   - over the unix socket: the kernel's word (SO_PEERCRED), with or without MUNGE;
//   - over TCP with AuthType=auth/munge: the uid/gid of the call's MUNGE credential, which
//     must have been minted for this very request (common/auth/call_signing.h) and not be
//     replayed or expired: otherwise the call is refused, UNAUTHENTICATED;
//   - otherwise: anonymous, which may only read what PrivateData leaves public.
//
// Every identity is echoed to the caller in the trailing metadata "canopy-caller", where the
// denial log (denial_log.h) finds it to name who was refused. Thread-safe; Authenticate()
// blocks on munged for a TCP call that carries a credential.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "common/config/cluster_config.h"
#include "common/os/user_cache.h"
#include "google/protobuf/message.h"
#include "grpcpp/server_context.h"
#include "scheduler/lifecycle/caller.h"
#include "scheduler/server/unix_peer_listener.h"

namespace canopy::server {

inline constexpr char kCallerMetadataKey[] = "canopy-caller";

class CallerAuthenticator {
 public:
  // `config` must outlive this; `peers` may be null (tests without a unix socket);
  // `account_admin` tells whether a user's accounting record makes them an operator
  // (AdminLevel; may be empty: nobody).
  CallerAuthenticator(const config::ClusterConfig& config, const UnixPeerListener* peers,
                      std::function<bool(absl::string_view user)> account_admin)
      : config_(config), peers_(peers), account_admin_(std::move(account_admin)) {}

  absl::StatusOr<lifecycle::Caller> Authenticate(grpc::ServerContextBase& context,
                                                 const google::protobuf::Message& request) const;

  // A caller with `uid`/`gid`: the user's name and groups from this host's user database, and
  // operator rights for root, canopyd's own user, the config's operators and users whose
  // accounting record has AdminLevel Operator or Administrator.
  lifecycle::Caller FromUid(uint32_t uid, uint32_t gid, const char* via) const;
  // The account of `uid` (os::LookupUser), remembered for a minute (os::UserCache): every RPC
  // names its caller, and the name service is too slow to ask thousands of times a second.
  absl::StatusOr<os::UserInfo> User(uint32_t uid) const { return users_.Find(uid); }

  const config::ClusterConfig& config() const { return config_; }

 private:
  const config::ClusterConfig& config_;
  const UnixPeerListener* const peers_;
  const std::function<bool(absl::string_view user)> account_admin_;
  const os::UserCache users_;
};

}  // namespace canopy::server
