#include "common/auth/call_signing.h"

#include "absl/strings/str_cat.h"
#include "common/auth/request_digest.h"

namespace canopy::auth {

absl::Status SignCall(const config::SecurityConfig& security,
                      const google::protobuf::Message& request, grpc::ClientContext& context) {
  if (security.auth_type != config::AuthType::kMunge) {
    return absl::OkStatus();
  }
  absl::StatusOr<std::string> credential =
      MungeEncode(security.munge_socket, RequestDigest(request));
  if (!credential.ok()) {
    return credential.status();
  }
  context.AddMetadata(kMungeCredentialKey, *credential);
  return absl::OkStatus();
}

absl::StatusOr<std::optional<MungeIdentity>> VerifyCall(const config::SecurityConfig& security,
                                                        const grpc::ServerContextBase& context,
                                                        const google::protobuf::Message& request) {
  if (security.auth_type != config::AuthType::kMunge) {
    return std::nullopt;
  }
  const auto& metadata = context.client_metadata();
  const auto it = metadata.find(kMungeCredentialKey);
  if (it == metadata.end()) {
    return std::nullopt;
  }
  absl::StatusOr<MungeIdentity> identity =
      MungeDecode(security.munge_socket, std::string(it->second.data(), it->second.size()));
  if (!identity.ok()) {
    return identity.status();
  }
  if (identity->payload != RequestDigest(request)) {
    return absl::UnauthenticatedError(
        absl::StrCat("munge credential refused: it was made for another request (uid ",
                     identity->uid, "); sign each request with its own credential"));
  }
  return *std::move(identity);
}

}  // namespace canopy::auth
