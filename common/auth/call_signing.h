// Client and server halves of a signed call: the client puts a MUNGE credential for its
// request in the call's metadata; canopyd checks it against the request it received.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/auth/munge.h"
#include "common/config/security_config.h"
#include "google/protobuf/message.h"
#include "grpcpp/client_context.h"
#include "grpcpp/server_context.h"

namespace canopy::auth {

// The metadata key the credential travels under.
inline constexpr char kMungeCredentialKey[] = "canopy-munge";

// With AuthType=auth/munge, mints a credential for `request` and adds it to `context`; does
// nothing with auth/none. Errors: munged's (Unavailable when it is not running).
absl::Status SignCall(const config::SecurityConfig& security,
                      const google::protobuf::Message& request, grpc::ClientContext& context);

// The credential `context`'s caller sent, checked against `request`: std::nullopt when the
// call carries none or AuthType is auth/none (the caller is then anonymous); Unauthenticated
// when munged refuses it (replayed, expired, invalid) or it was minted for another request.
absl::StatusOr<std::optional<MungeIdentity>> VerifyCall(const config::SecurityConfig& security,
                                                        const grpc::ServerContextBase& context,
                                                        const google::protobuf::Message& request);

}  // namespace canopy::auth
