// TLS for canopyd's TCP port and the channels that reach it (docs/security.md).
//
// canopyd serves TLS with tls_cert/tls_key and asks every client for a certificate, verifying
// any it is given against tls_ca: agents present theirs (mTLS), user commands need none (they
// prove who they are with MUNGE). Clients verify canopyd against tls_ca. Unix sockets stay
// plain: the kernel identifies their callers.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/config/security_config.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server_context.h"

namespace canopy::auth {

// TLS server credentials when tls_cert is set, insecure ones otherwise. Errors name the key and
// the file that could not be read.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentials(
    const config::SecurityConfig& security);

// Credentials for a channel to canopyd at `target`: insecure for a unix socket or when TLS is
// off; otherwise TLS verified against tls_ca, presenting `client_cert`/`client_key` when given.
absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> ChannelCredentials(
    const config::SecurityConfig& security, const std::string& target,
    const std::string& client_cert = "", const std::string& client_key = "");

// The names in the peer's verified certificate (its subject CN and its DNS and IP
// subjectAltNames); empty when the peer presented none.
std::vector<std::string> PeerCertificateNames(const grpc::ServerContextBase& context);

}  // namespace canopy::auth
