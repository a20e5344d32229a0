// SecurityConfig: who may talk to canopyd and how callers prove who they are (docs/security.md).
//
// slurm.conf keys AuthType, AuthInfo and SlurmdUser have YAML twins (auth_type, munge_socket,
// slurmd_user); the TLS settings, allow_insecure_remote and submit_for_others are Canopy-only
// keys (the YAML, or canopy.conf beside slurm.conf). One function applies every key for every
// front door, with the same checks. Plain values.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace canopy::config {

enum class AuthType { kNone, kMunge };

struct SecurityConfig {
  // AuthType=auth/munge: every RPC from a client or agent carries a MUNGE credential bound to
  // the request. auth/none (the default): callers over TCP are anonymous and read-only, and
  // agents are not authenticated, so canopyd refuses a non-loopback address with it unless
  // allow_insecure_remote says otherwise.
  AuthType auth_type = AuthType::kNone;
  std::string munge_socket;  // AuthInfo=socket=PATH; empty: libmunge's default
  bool allow_insecure_remote = false;
  // The user canopy-agent runs as (SlurmdUser, default root): the only non-root uid whose
  // credential may register a node or report on jobs.
  std::string slurmd_user = "root";

  // TLS on every TCP channel when tls_cert and tls_key are set. tls_ca verifies the other side:
  // clients and agents check canopyd's certificate with it, canopyd checks agents' certificates.
  std::string tls_cert;  // canopyd's certificate chain (PEM)
  std::string tls_key;   // its private key (PEM)
  std::string tls_ca;    // the site CA (PEM); required by clients when TLS is on
  // Each agent's own certificate and key (mTLS); canopy-agent --tls-cert/--tls-key win. A
  // certificate names the agent's host (CN or a DNS/IP subjectAltName) and thereby the nodes
  // it may register: those whose NodeName, NodeAddr or NodeHostname it names.
  std::string tls_agent_cert;
  std::string tls_agent_key;
  // Refuse agents that present no verified certificate.
  bool require_agent_certs = false;

  // Service users (a portal) allowed to submit jobs on behalf of other users, besides root.
  // Every such submission is written to canopyd's audit log.
  std::vector<std::string> submit_for_others;

  bool tls_enabled() const { return !tls_cert.empty(); }
};

// Whether `key` (YAML / canopy.conf spelling) is a security key.
bool IsSecurityKey(absl::string_view key);

// Applies one key given as text, in YAML spelling ("auth_type", "tls_ca", ...). slurm.conf's
// AuthType/AuthInfo/SlurmdUser are applied as auth_type/auth_info/slurmd_user. False if `key`
// is not a security key; InvalidArgument "KEY: expected ..., got '...'" for a bad value.
absl::StatusOr<bool> ApplySecurityKey(absl::string_view key, absl::string_view value,
                                      SecurityConfig& security);

// Checks that belong to the config as a whole (canopyd runs them at start):
// both tls_cert and tls_key or neither, require_agent_certs only with TLS, and a readable file
// behind every path. `listen_host` is where canopyd listens ("" = the config's controller host);
// auth/none there is refused unless it is loopback or allow_insecure_remote is set.
absl::Status CheckSecurity(const SecurityConfig& security, absl::string_view listen_host);

}  // namespace canopy::config
