#include "scheduler/server/denial_log.h"

#include <string>

#include "grpcpp/server_context.h"
#include "scheduler/server/caller_authenticator.h"
#include "spdlog/spdlog.h"

namespace canopy::server {
namespace {

class DenialLogInterceptor : public grpc::experimental::Interceptor {
 public:
  explicit DenialLogInterceptor(grpc::experimental::ServerRpcInfo* info) : info_(info) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(
            grpc::experimental::InterceptionHookPoints::PRE_SEND_STATUS)) {
      const grpc::Status status = methods->GetSendStatus();
      if (status.error_code() == grpc::StatusCode::PERMISSION_DENIED ||
          status.error_code() == grpc::StatusCode::UNAUTHENTICATED) {
        Log(status, methods);
      }
    }
    methods->Proceed();
  }

 private:
  void Log(const grpc::Status& status, grpc::experimental::InterceptorBatchMethods* methods) {
    std::string caller = "anonymous";
    if (const auto* trailers = methods->GetSendTrailingMetadata(); trailers != nullptr) {
      if (auto it = trailers->find(kCallerMetadataKey); it != trailers->end()) {
        caller = it->second;
      }
    }
    std::string method = info_->method();
    method = method.substr(method.rfind('/') + 1);
    const grpc::ServerContextBase* context = info_->server_context();
    spdlog::warn("denied {} from {}, {}: {}", method,
                 context != nullptr ? context->peer() : std::string("?"), caller,
                 status.error_message());
  }

  grpc::experimental::ServerRpcInfo* const info_;
};

}  // namespace

grpc::experimental::Interceptor* DenialLogInterceptorFactory::CreateServerInterceptor(
    grpc::experimental::ServerRpcInfo* info) {
  if (info->type() == grpc::experimental::ServerRpcInfo::Type::BIDI_STREAMING) {
    return nullptr;  // the agents' streams: AgentService logs refused registrations itself
  }
  return new DenialLogInterceptor(info);
}

}  // namespace canopy::server
