#include "common/auth/tls_credentials.h"

#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "grpcpp/security/auth_context.h"

namespace canopy::auth {
namespace {

absl::StatusOr<std::string> ReadPem(const char* key, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::FailedPreconditionError(
        absl::StrCat(key, ": cannot read ", path, " (missing, or not readable by this user)"));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (!absl::StrContains(text.str(), "-----BEGIN ")) {
    return absl::InvalidArgumentError(
        absl::StrCat(key, ": ", path, " is not a PEM file (no -----BEGIN line)"));
  }
  return text.str();
}

}  // namespace

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentials(
    const config::SecurityConfig& security) {
  if (!security.tls_enabled()) {
    return grpc::InsecureServerCredentials();
  }
  absl::StatusOr<std::string> cert = ReadPem("tls_cert", security.tls_cert);
  absl::StatusOr<std::string> key = ReadPem("tls_key", security.tls_key);
  absl::StatusOr<std::string> ca = ReadPem("tls_ca", security.tls_ca);
  for (const absl::StatusOr<std::string>* s : {&cert, &key, &ca}) {
    if (!s->ok()) {
      return s->status();
    }
  }
  // Agents present certificates and user commands do not, on the same port: ask, verify what
  // is given, and let canopyd decide per call (AgentService refuses agents without one when
  // require_agent_certs is set).
  grpc::SslServerCredentialsOptions options(GRPC_SSL_REQUEST_CLIENT_CERTIFICATE_AND_VERIFY);
  options.pem_root_certs = *ca;
  options.pem_key_cert_pairs.push_back({*key, *cert});
  return grpc::SslServerCredentials(options);
}

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> ChannelCredentials(
    const config::SecurityConfig& security, const std::string& target,
    const std::string& client_cert, const std::string& client_key) {
  if (!security.tls_enabled() || absl::StartsWith(target, "unix:")) {
    return grpc::InsecureChannelCredentials();
  }
  grpc::SslCredentialsOptions options;
  absl::StatusOr<std::string> ca = ReadPem("tls_ca", security.tls_ca);
  if (!ca.ok()) {
    return ca.status();
  }
  options.pem_root_certs = *ca;
  if (!client_cert.empty()) {
    absl::StatusOr<std::string> cert = ReadPem("tls_agent_cert", client_cert);
    absl::StatusOr<std::string> key = ReadPem("tls_agent_key", client_key);
    if (!cert.ok()) {
      return cert.status();
    }
    if (!key.ok()) {
      return key.status();
    }
    options.pem_cert_chain = *cert;
    options.pem_private_key = *key;
  }
  return grpc::SslCredentials(options);
}

std::vector<std::string> PeerCertificateNames(const grpc::ServerContextBase& context) {
  std::vector<std::string> names;
  const std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
  if (auth == nullptr || !auth->IsPeerAuthenticated()) {
    return names;
  }
  for (const char* property : {"x509_common_name", "x509_subject_alternative_name"}) {
    for (const grpc::string_ref& value : auth->FindPropertyValues(property)) {
      names.emplace_back(value.data(), value.size());
    }
  }
  return names;
}

}  // namespace canopy::auth
