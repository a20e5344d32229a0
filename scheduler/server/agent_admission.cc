#include "scheduler/server/agent_admission.h"

#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "common/auth/call_signing.h"
#include "common/auth/tls_credentials.h"
#include "common/os/user_info.h"

namespace canopy::server {
namespace {

struct AddrinfoDeleter {
  void operator()(addrinfo* a) const { freeaddrinfo(a); }
};

// The numeric addresses `host` stands for: itself when it is one, else what the resolver
// says (NodeAddr may be a name, as in slurm.conf).
std::vector<std::string> Addresses(const std::string& host) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* raw = nullptr;
  std::vector<std::string> out;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &raw) != 0) {
    return out;
  }
  std::unique_ptr<addrinfo, AddrinfoDeleter> list(raw);
  for (const addrinfo* a = list.get(); a != nullptr; a = a->ai_next) {
    char text[NI_MAXHOST];
    if (getnameinfo(a->ai_addr, a->ai_addrlen, text, sizeof(text), nullptr, 0, NI_NUMERICHOST) ==
        0) {
      out.emplace_back(text);
    }
  }
  return out;
}

}  // namespace

AgentAdmission::AgentAdmission(const config::ClusterConfig& config) : config_(config) {
  for (const config::NodeConfig& n : config.nodes) {
    nodes_[n.name] = &n;
  }
  if (absl::StatusOr<os::UserInfo> user = os::LookupUserByName(config.security.slurmd_user);
      user.ok()) {
    slurmd_uid_ = user->uid;
  }
}

std::optional<std::string> AgentAdmission::PeerAddress(const std::string& peer) {
  absl::string_view rest = peer;
  const bool v4 = absl::ConsumePrefix(&rest, "ipv4:");
  const bool v6 = !v4 && absl::ConsumePrefix(&rest, "ipv6:");
  if (!v4 && !v6) {
    return std::nullopt;
  }
  const size_t colon = rest.rfind(':');
  if (colon == absl::string_view::npos) {
    return std::nullopt;
  }
  absl::string_view host = rest.substr(0, colon);
  if (v6) {
    absl::ConsumePrefix(&host, "[");
    absl::ConsumeSuffix(&host, "]");
  }
  return std::string(host);
}

absl::Status AgentAdmission::Admit(const grpc::ServerContextBase& context,
                                   const canopy::v1::AgentMessage& hello) const {
  if (absl::Status who = CheckWho(context, hello); !who.ok()) {
    return who;
  }
  return CheckWhere(context, hello.register_());
}

absl::Status AgentAdmission::CheckWho(const grpc::ServerContextBase& context,
                                      const canopy::v1::AgentMessage& hello) const {
  if (config_.security.auth_type != config::AuthType::kMunge) {
    return absl::OkStatus();
  }
  absl::StatusOr<std::optional<auth::MungeIdentity>> identity =
      auth::VerifyCall(config_.security, context, hello);
  if (!identity.ok()) {
    return identity.status();
  }
  if (!identity->has_value()) {
    return absl::UnauthenticatedError(
        "no MUNGE credential (AuthType=auth/munge): is the agent configured with the same "
        "AuthType, and is munged running on its host?");
  }
  const uint32_t uid = (*identity)->uid;
  if (uid != 0 && (!slurmd_uid_.has_value() || uid != *slurmd_uid_)) {
    return absl::PermissionDeniedError(
        absl::StrCat("the credential is uid ", uid, "'s, not root's or SlurmdUser ",
                     config_.security.slurmd_user, "'s: only canopy-agent may register nodes"));
  }
  return absl::OkStatus();
}

absl::Status AgentAdmission::CheckWhere(const grpc::ServerContextBase& context,
                                        const canopy::v1::Register& reg) const {
  const auto it = nodes_.find(reg.node_name());
  const std::string addr = it == nodes_.end() ? std::string() : it->second->addr;
  const std::vector<std::string> names = auth::PeerCertificateNames(context);
  if (!names.empty()) {
    for (const std::string& name : names) {
      if (name == reg.node_name() || (!addr.empty() && name == addr)) {
        return absl::OkStatus();
      }
    }
    return absl::PermissionDeniedError(
        absl::StrCat("the agent's certificate names ", absl::StrJoin(names, ", "), ", not node ",
                     reg.node_name(), addr.empty() ? "" : absl::StrCat(" or its NodeAddr ", addr)));
  }
  if (config_.security.require_agent_certs) {
    return absl::PermissionDeniedError(
        "the agent presented no certificate, and require_agent_certs is set: give it one "
        "(tls_agent_cert, or canopy-agent --tls_cert) that names the node");
  }
  if (addr.empty()) {
    return absl::OkStatus();
  }
  const std::optional<std::string> from = PeerAddress(context.peer());
  if (from.has_value()) {
    const std::vector<std::string> allowed = Addresses(addr);
    if (std::find(allowed.begin(), allowed.end(), *from) != allowed.end()) {
      return absl::OkStatus();
    }
  }
  return absl::PermissionDeniedError(absl::StrCat("node ", reg.node_name(), " has NodeAddr ", addr,
                                                  ", and this agent connects from ",
                                                  from.value_or(context.peer())));
}

}  // namespace canopy::server
