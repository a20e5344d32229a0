// AgentAdmission: whether an agent's stream may register the node it names (docs/security.md).
//
// Two questions, both asked of the stream's first message (the Register):
//   who  - with AuthType=auth/munge, the stream's MUNGE credential must be minted for this
//          Register by root or SlurmdUser: a user's credential, or none, cannot register;
//   where - the node is bound to its host: when the agent presented a verified TLS certificate,
//          it must name the node (its NodeName, NodeAddr or the hostname it reports); without
//          one, require_agent_certs refuses it, and a node with a NodeAddr is accepted only
//          from that address.
// A node that is neither bound by certificate nor by NodeAddr is admitted on the "who" alone.
// Thread-safe (const after construction); Admit() blocks on munged.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "canopy/v1/agent.pb.h"
#include "common/config/cluster_config.h"
#include "grpcpp/server_context.h"

namespace canopy::server {

class AgentAdmission {
 public:
  // `config` must outlive this.
  explicit AgentAdmission(const config::ClusterConfig& config);

  // OK when the stream on `context`, whose first message is `hello` (a Register), may register
  // the node; PermissionDenied or Unauthenticated saying why otherwise.
  absl::Status Admit(const grpc::ServerContextBase& context,
                     const canopy::v1::AgentMessage& hello) const;

  // "198.18.0.2" from gRPC's peer string "ipv4:198.18.0.2:40000" ("::1" from
  // "ipv6:[::1]:40000"); std::nullopt for other transports (unix sockets, fds).
  static std::optional<std::string> PeerAddress(const std::string& peer);

 private:
  absl::Status CheckWho(const grpc::ServerContextBase& context,
                        const canopy::v1::AgentMessage& hello) const;
  absl::Status CheckWhere(const grpc::ServerContextBase& context,
                          const canopy::v1::Register& reg) const;

  const config::ClusterConfig& config_;
  absl::flat_hash_map<std::string, const config::NodeConfig*> nodes_;
  std::optional<uint32_t> slurmd_uid_;  // SlurmdUser's uid, when it is known here
};

}  // namespace canopy::server
