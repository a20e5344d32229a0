// Logs every call canopyd refuses for who is calling (PERMISSION_DENIED, UNAUTHENTICATED):
// the method, the peer's address, the caller as CallerAuthenticator identified it (the
// "canopy-caller" trailing metadata) and the answer, as
//   "denied CancelJob from ipv4:198.18.0.3:51234, alice (uid 1001, munge): Access/permission ...".
// A server interceptor (ServerBuilder::experimental().SetInterceptorCreators), so no handler can
// forget to log. Thread-safe.
#pragma once

#include "grpcpp/support/server_interceptor.h"

namespace canopy::server {

class DenialLogInterceptorFactory : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override;
};

}  // namespace canopy::server
