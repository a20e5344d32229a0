#include "common/config/security_config.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace canopy::config {
namespace {

absl::Status Expected(absl::string_view key, absl::string_view expected, absl::string_view got) {
  return absl::InvalidArgumentError(
      absl::StrCat(key, ": expected ", expected, ", got '", got, "'"));
}

absl::StatusOr<bool> ParseBool(absl::string_view key, absl::string_view value) {
  const std::string lower = absl::AsciiStrToLower(value);
  if (lower == "true" || lower == "yes") {
    return true;
  }
  if (lower == "false" || lower == "no") {
    return false;
  }
  return Expected(key, "true or false", value);
}

absl::Status ApplyAuthInfo(absl::string_view key, absl::string_view value,
                           SecurityConfig& security) {
  // Slurm: comma-separated options; Canopy uses socket= and accepts the others Slurm knows.
  for (absl::string_view option : absl::StrSplit(value, ',', absl::SkipWhitespace())) {
    option = absl::StripAsciiWhitespace(option);
    if (absl::ConsumePrefix(&option, "socket=")) {
      if (option.empty() || option.front() != '/') {
        return Expected(key, "socket=ABSOLUTE_PATH (munged's socket)", value);
      }
      security.munge_socket = std::string(option);
    } else if (!absl::StartsWith(option, "ttl=") && !absl::StartsWith(option, "cred_expire=")) {
      return Expected(key, "comma-separated socket=PATH, ttl=SECONDS or cred_expire=SECONDS",
                      value);
    }
  }
  return absl::OkStatus();
}

bool IsLoopbackHost(absl::string_view host) {
  return host == "localhost" || host == "::1" || host == "[::1]" ||
         absl::StartsWith(host, "127.") || absl::StartsWith(host, "unix:");
}

absl::Status CheckReadable(absl::string_view key, const std::string& path) {
  if (path.empty()) {
    return absl::OkStatus();
  }
  if (::access(path.c_str(), R_OK) != 0) {
    const int err = errno;
    return absl::FailedPreconditionError(
        absl::StrCat(key, ": cannot read ", path, ": ", std::strerror(err)));
  }
  return absl::OkStatus();
}

}  // namespace

bool IsSecurityKey(absl::string_view key) {
  return key == "auth_type" || key == "auth_info" || key == "munge_socket" ||
         key == "slurmd_user" || key == "allow_insecure_remote" || key == "tls_cert" ||
         key == "tls_key" || key == "tls_ca" || key == "tls_agent_cert" || key == "tls_agent_key" ||
         key == "require_agent_certs" || key == "submit_for_others";
}

absl::StatusOr<bool> ApplySecurityKey(absl::string_view key, absl::string_view value,
                                      SecurityConfig& security) {
  if (key == "auth_type") {
    const std::string lower = absl::AsciiStrToLower(value);
    if (lower == "auth/munge") {
      security.auth_type = AuthType::kMunge;
    } else if (lower == "auth/none") {
      security.auth_type = AuthType::kNone;
    } else {
      return Expected(key, "auth/munge or auth/none (Canopy supports no other)", value);
    }
    return true;
  }
  if (key == "auth_info") {
    if (absl::Status s = ApplyAuthInfo(key, value, security); !s.ok()) {
      return s;
    }
    return true;
  }
  if (key == "munge_socket") {
    if (value.empty() || value.front() != '/') {
      return Expected(key, "the absolute path of munged's socket", value);
    }
    security.munge_socket = std::string(value);
    return true;
  }
  if (key == "slurmd_user") {
    if (value.empty()) {
      return Expected(key, "a user name", value);
    }
    security.slurmd_user = std::string(value);
    return true;
  }
  if (key == "allow_insecure_remote" || key == "require_agent_certs") {
    absl::StatusOr<bool> b = ParseBool(key, value);
    if (!b.ok()) {
      return b.status();
    }
    (key == "allow_insecure_remote" ? security.allow_insecure_remote
                                    : security.require_agent_certs) = *b;
    return true;
  }
  std::string* path = key == "tls_cert"         ? &security.tls_cert
                      : key == "tls_key"        ? &security.tls_key
                      : key == "tls_ca"         ? &security.tls_ca
                      : key == "tls_agent_cert" ? &security.tls_agent_cert
                      : key == "tls_agent_key"  ? &security.tls_agent_key
                                                : nullptr;
  if (path != nullptr) {
    if (value.empty()) {
      return Expected(key, "the path of a PEM file", value);
    }
    *path = std::string(value);
    return true;
  }
  if (key == "submit_for_others") {
    security.submit_for_others.clear();
    for (absl::string_view user : absl::StrSplit(value, ',', absl::SkipWhitespace())) {
      user = absl::StripAsciiWhitespace(user);
      if (user.empty() || user.find_first_of(" \t:") != absl::string_view::npos) {
        return Expected(key, "comma-separated user names", value);
      }
      security.submit_for_others.emplace_back(user);
    }
    return true;
  }
  return false;
}

absl::Status CheckSecurity(const SecurityConfig& security, absl::string_view listen_host) {
  if (security.tls_cert.empty() != security.tls_key.empty()) {
    return absl::InvalidArgumentError(
        "tls_cert and tls_key: expected both (canopyd's certificate and its key) or neither");
  }
  if (security.tls_agent_cert.empty() != security.tls_agent_key.empty()) {
    return absl::InvalidArgumentError("tls_agent_cert and tls_agent_key: expected both or neither");
  }
  if (security.require_agent_certs && !security.tls_enabled()) {
    return absl::InvalidArgumentError(
        "require_agent_certs: needs TLS (tls_cert, tls_key and tls_ca) to check certificates");
  }
  if (security.tls_enabled() && security.tls_ca.empty()) {
    return absl::InvalidArgumentError(
        "tls_ca: expected the site CA's certificate when tls_cert is set (clients and agents "
        "verify canopyd with it)");
  }
  for (const auto& [key, path] :
       {std::pair<const char*, const std::string*>{"tls_cert", &security.tls_cert},
        {"tls_key", &security.tls_key},
        {"tls_ca", &security.tls_ca}}) {
    if (absl::Status s = CheckReadable(key, *path); !s.ok()) {
      return s;
    }
  }
  if (security.auth_type == AuthType::kNone && !security.allow_insecure_remote &&
      !IsLoopbackHost(listen_host)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "AuthType=auth/none with canopyd listening on ", listen_host,
        ": any host that reaches the port could register as a node. Set AuthType=auth/munge "
        "(docs/security.md), listen on 127.0.0.1, or set allow_insecure_remote: true to accept "
        "the risk"));
  }
  return absl::OkStatus();
}

}  // namespace canopy::config
