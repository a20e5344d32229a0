// TLS between a real gRPC server and client on 127.0.0.1, with certificates made by
// deploy/make-site-certs.sh: the script and the credential code are tested together.
#include "common/auth/tls_credentials.h"

#include <cstdlib>
#include <filesystem>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "canopy/v1/controller.grpc.pb.h"
#include "gmock/gmock.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/server_builder.h"
#include "gtest/gtest.h"

namespace canopy::auth {
namespace {

using ::testing::HasSubstr;

// Answers Ping with the names in the caller's certificate, as canopyd reads them.
class NamesService final : public canopy::v1::Controller::Service {
  grpc::Status Ping(grpc::ServerContext* context, const canopy::v1::PingRequest*,
                    canopy::v1::PingResponse* response) override {
    response->set_cluster_name(absl::StrJoin(PeerCertificateNames(*context), ","));
    return grpc::Status::OK;
  }
};

class TlsCredentialsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(absl::StrCat(::testing::TempDir(), "/tls-", getpid()));
    std::filesystem::remove_all(*dir_);
    const std::string script = absl::StrCat(CANOPY_SOURCE_DIR, "/deploy/make-site-certs.sh");
    ASSERT_EQ(std::system(absl::StrCat(script, " --out ", *dir_,
                                       " --controller head,127.0.0.1 --host gpu1,198.18.0.2 "
                                       ">/dev/null && ",
                                       script, " --out ", *dir_,
                                       "/other --controller x "
                                       "--host gpu1 >/dev/null")
                              .c_str()),
              0);
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*dir_);
    delete dir_;
  }

  void SetUp() override {
    security_.tls_cert = absl::StrCat(*dir_, "/canopyd.crt");
    security_.tls_key = absl::StrCat(*dir_, "/canopyd.key");
    security_.tls_ca = absl::StrCat(*dir_, "/ca.crt");
    absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> creds = ServerCredentials(security_);
    ASSERT_TRUE(creds.ok()) << creds.status();
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", *creds, &port_);
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
  }
  void TearDown() override { server_->Shutdown(); }

  // Pings the server with `security`'s channel credentials; the names it saw, or the error.
  absl::StatusOr<std::string> Ping(const config::SecurityConfig& security,
                                   const std::string& cert = "", const std::string& key = "") {
    const std::string target = absl::StrCat("127.0.0.1:", port_);
    absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> creds =
        ChannelCredentials(security, target, cert, key);
    if (!creds.ok()) {
      return creds.status();
    }
    auto stub = canopy::v1::Controller::NewStub(grpc::CreateChannel(target, *creds));
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    canopy::v1::PingResponse response;
    grpc::Status s = stub->Ping(&context, canopy::v1::PingRequest(), &response);
    if (!s.ok()) {
      return absl::UnavailableError(s.error_message());
    }
    return response.cluster_name();
  }

  static std::string* dir_;
  config::SecurityConfig security_;
  NamesService service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};
std::string* TlsCredentialsTest::dir_ = nullptr;

TEST_F(TlsCredentialsTest, ClientsVerifyCanopydAgainstTheSiteCa) {
  absl::StatusOr<std::string> names = Ping(security_);
  ASSERT_TRUE(names.ok()) << names.status();
  EXPECT_EQ(*names, "");  // a user command presents no certificate

  config::SecurityConfig plain;  // no TLS: the handshake never completes
  EXPECT_FALSE(Ping(plain).ok());

  config::SecurityConfig wrong_ca = security_;
  wrong_ca.tls_ca = absl::StrCat(*dir_, "/other/ca.crt");
  EXPECT_FALSE(Ping(wrong_ca).ok());
}

TEST_F(TlsCredentialsTest, AnAgentCertificateShowsItsNames) {
  absl::StatusOr<std::string> names =
      Ping(security_, absl::StrCat(*dir_, "/gpu1.crt"), absl::StrCat(*dir_, "/gpu1.key"));
  ASSERT_TRUE(names.ok()) << names.status();
  EXPECT_THAT(*names, HasSubstr("gpu1"));
  EXPECT_THAT(*names, HasSubstr("198.18.0.2"));
}

TEST_F(TlsCredentialsTest, ACertificateFromAnotherCaIsRefused) {
  EXPECT_FALSE(Ping(security_, absl::StrCat(*dir_, "/other/gpu1.crt"),
                    absl::StrCat(*dir_, "/other/gpu1.key"))
                   .ok());
}

TEST_F(TlsCredentialsTest, UnreadableFilesAreNamed) {
  config::SecurityConfig missing = security_;
  missing.tls_ca = "/nonexistent/ca.crt";
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> creds =
      ChannelCredentials(missing, "127.0.0.1:1");
  ASSERT_FALSE(creds.ok());
  EXPECT_THAT(creds.status().message(), HasSubstr("tls_ca: cannot read /nonexistent/ca.crt"));
  missing.tls_cert = absl::StrCat(*dir_, "/ca.key");  // a key is no certificate, but is PEM
  missing.tls_key = "/etc/hostname";
  missing.tls_ca = security_.tls_ca;
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> server = ServerCredentials(missing);
  ASSERT_FALSE(server.ok());
  EXPECT_THAT(server.status().message(), HasSubstr("tls_key: /etc/hostname is not a PEM file"));
  // A unix socket stays plain whatever the config says.
  EXPECT_TRUE(ChannelCredentials(missing, "unix:/run/canopyd.sock").ok());
}

}  // namespace
}  // namespace canopy::auth
