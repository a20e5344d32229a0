// ReflectionService: gRPC server reflection (grpc.reflection.v1alpha), so `grpcurl list` and
// `grpcurl describe` work against canopyd without the .proto files, answered only for the
// callers the configuration allows (ClusterConfig::grpc_reflection):
//   - authenticated: callers over the unix socket, with a MUNGE credential, or with a TLS client
//     certificate canopyd verified; an anonymous TCP caller is refused PERMISSION_DENIED, and the
//     refusal says how to connect instead;
//   - everyone: whoever can connect.
// With grpc_reflection: off canopyd does not register it (callers get UNIMPLEMENTED).
// gRPC's own reflection library cannot tell callers apart (and enables itself in every server of
// a process that loads it), hence this implementation. Descriptors come from the generated pool,
// so every file canopyd was built with can be described; only `services` are listed.
#pragma once

#include <string>
#include <vector>

#include "common/config/cluster_config.h"
#include "grpc/reflection/v1alpha/reflection.grpc.pb.h"
#include "scheduler/server/caller_authenticator.h"

namespace canopy::server {

class ReflectionService final : public grpc::reflection::v1alpha::ServerReflection::Service {
 public:
  // `authenticator` must outlive this. `services`: the fully qualified names to list.
  ReflectionService(config::ClusterConfig::ReflectionAccess access,
                    const CallerAuthenticator* authenticator, std::vector<std::string> services)
      : access_(access), authenticator_(authenticator), services_(std::move(services)) {}

  grpc::Status ServerReflectionInfo(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<grpc::reflection::v1alpha::ServerReflectionResponse,
                               grpc::reflection::v1alpha::ServerReflectionRequest>* stream)
      override;

  // The answer to one request; `sent` holds the files this stream has sent already, which are
  // not sent again (a client asks for a file's imports only when it lacks them). Public for tests.
  grpc::reflection::v1alpha::ServerReflectionResponse Answer(
      const grpc::reflection::v1alpha::ServerReflectionRequest& request,
      std::vector<std::string>& sent) const;

 private:
  // OK when the caller who sent `first` may use reflection.
  grpc::Status Admit(grpc::ServerContext& context,
                     const grpc::reflection::v1alpha::ServerReflectionRequest& first) const;

  const config::ClusterConfig::ReflectionAccess access_;
  const CallerAuthenticator* const authenticator_;
  const std::vector<std::string> services_;
};

}  // namespace canopy::server
