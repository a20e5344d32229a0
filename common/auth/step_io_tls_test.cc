#include "common/auth/step_io_tls.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "canopy/v1/controller.grpc.pb.h"
#include "gmock/gmock.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/server_builder.h"
#include "gtest/gtest.h"

namespace canopy::auth {
namespace {

class PingService final : public canopy::v1::Controller::Service {
  grpc::Status Ping(grpc::ServerContext*, const canopy::v1::PingRequest*,
                    canopy::v1::PingResponse*) override {
    return grpc::Status::OK;
  }
};

// Pings a server serving `served`'s credentials, dialled with the credentials `token` gives.
bool Reaches(const StepIoServerTls& served, const std::string& token) {
  PingService service;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", served.credentials, &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  grpc::ChannelArguments args;
  std::shared_ptr<grpc::ChannelCredentials> creds = StepIoChannelCredentials(token, args);
  auto stub = canopy::v1::Controller::NewStub(
      grpc::CreateCustomChannel(absl::StrCat("127.0.0.1:", port), creds, args));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  canopy::v1::PingResponse response;
  const bool ok = stub->Ping(&context, canopy::v1::PingRequest(), &response).ok();
  server->Shutdown();
  return ok;
}

TEST(StepIoTlsTest, AgentsTrustExactlyTheCertificateInTheToken) {
  absl::StatusOr<StepIoServerTls> tls = MakeStepIoServerTls("secret");
  ASSERT_TRUE(tls.ok()) << tls.status();
  EXPECT_THAT(tls->token, ::testing::StartsWith("secret\n-----BEGIN CERTIFICATE-----\n"));
  EXPECT_TRUE(Reaches(*tls, tls->token));

  absl::StatusOr<StepIoServerTls> other = MakeStepIoServerTls("secret");
  ASSERT_TRUE(other.ok());
  EXPECT_NE(other->token, tls->token);        // a fresh key each time
  EXPECT_FALSE(Reaches(*tls, other->token));  // another step's certificate: refused
  EXPECT_FALSE(Reaches(*tls, "secret"));      // plain gRPC cannot talk to it
}

}  // namespace
}  // namespace canopy::auth
