// MUNGE credentials (libmunge, talking to the site's munged), as Slurm's auth/munge uses them.
//
// A credential is minted by the local munged for the calling process's uid/gid and an
// application payload, and decoded by any munged sharing the site key. munged itself refuses a
// credential decoded twice (replay) or past its time-to-live. Canopy puts a digest of the
// request in the payload (request_digest.h), so a captured credential is also useless for any
// other request. Thread-safe: every call makes its own libmunge context.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace canopy::auth {

// What a decoded credential vouches for.
struct MungeIdentity {
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::string payload;
  absl::Time encoded_at;
  std::string origin_addr;  // IPv4 address of the host that minted it, as munged saw it
};

// `socket` is munged's socket ("" = libmunge's default, /run/munge/munge.socket.2), from
// slurm.conf AuthInfo=socket=PATH or the YAML's munge_socket.
//
// Unavailable "cannot reach munged at SOCKET: ...; is munged running?" when munged is away.
absl::StatusOr<std::string> MungeEncode(const std::string& socket, const std::string& payload);

// Unauthenticated with munged's reason ("Replayed credential", "Expired credential", "Invalid
// credential", ...) for a credential that does not hold; Unavailable when munged is away.
absl::StatusOr<MungeIdentity> MungeDecode(const std::string& socket, const std::string& credential);

}  // namespace canopy::auth
