// canopyd serves the standard gRPC health service, so grpc_health_probe and load balancers work
// against it, and server reflection (for grpcurl) only when asked (grpc_reflection in the
// configuration, or --grpc-reflection): to authenticated callers by default, since it describes
// the whole API. Checked over the TCP port and the unix socket, with the same messages grpcurl
// sends. (The TLS client-certificate case runs in tests/multihost.)
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/descriptor.pb.h"
#include "grpc/reflection/v1alpha/reflection.grpc.pb.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/generic/generic_stub.h"
#include "gtest/gtest.h"
#include "tests/integration/local_cluster.h"

namespace canopy::testing {
namespace {

namespace reflection = grpc::reflection::v1alpha;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kServicesConfig[] = R"(
nodes:
  - names: n[1-2]
)";

std::string ToString(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  (void)buffer.Dump(&slices);
  std::string out;
  for (const grpc::Slice& s : slices) {
    out.append(reinterpret_cast<const char*>(s.begin()), s.size());
  }
  return out;
}

// grpc.health.v1.Health/Check with an empty HealthCheckRequest, as raw bytes (no generated code
// for the health service is installed): HealthCheckResponse{status: SERVING} is 08 01.
std::string HealthCheck(const std::string& target) {
  grpc::GenericStub stub(grpc::CreateChannel(target, grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  grpc::Slice empty("");
  grpc::ByteBuffer request(&empty, 1);
  grpc::ByteBuffer response;
  grpc::Status status;
  bool done = false;
  std::mutex mu;
  std::condition_variable cv;
  stub.UnaryCall(&context, "/grpc.health.v1.Health/Check", {}, &request, &response,
                 [&](grpc::Status s) {
                   std::lock_guard<std::mutex> lock(mu);
                   status = std::move(s);
                   done = true;
                   cv.notify_one();
                 });
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return done; });
  return status.ok() ? ToString(response) : status.error_message();
}

// Sends `requests` on one reflection stream; the answers, then the stream's status.
struct ReflectionExchange {
  std::vector<reflection::ServerReflectionResponse> responses;
  grpc::Status status;
};
ReflectionExchange Reflect(const std::string& target,
                           const std::vector<reflection::ServerReflectionRequest>& requests) {
  auto stub = reflection::ServerReflection::NewStub(
      grpc::CreateChannel(target, grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  auto stream = stub->ServerReflectionInfo(&context);
  ReflectionExchange out;
  for (const reflection::ServerReflectionRequest& request : requests) {
    reflection::ServerReflectionResponse response;
    if (!stream->Write(request) || !stream->Read(&response)) {
      break;
    }
    out.responses.push_back(std::move(response));
  }
  stream->WritesDone();
  out.status = stream->Finish();
  return out;
}

reflection::ServerReflectionRequest ListServices() {
  reflection::ServerReflectionRequest request;
  request.set_list_services("");
  return request;
}

reflection::ServerReflectionRequest FileContaining(const std::string& symbol) {
  reflection::ServerReflectionRequest request;
  request.set_file_containing_symbol(symbol);
  return request;
}

std::vector<std::string> ServiceNames(const reflection::ServerReflectionResponse& response) {
  std::vector<std::string> names;
  for (const auto& s : response.list_services_response().service()) {
    names.push_back(s.name());
  }
  return names;
}

std::vector<std::string> FileNames(const reflection::ServerReflectionResponse& response) {
  std::vector<std::string> names;
  for (const std::string& bytes : response.file_descriptor_response().file_descriptor_proto()) {
    google::protobuf::FileDescriptorProto file;
    EXPECT_TRUE(file.ParseFromString(bytes));
    names.push_back(file.name());
  }
  return names;
}

TEST(StandardServicesTest, HealthIsServingAndReflectionIsOffUnlessAsked) {
  LocalCluster cluster(kServicesConfig);
  ASSERT_TRUE(cluster.StartController().ok());
  for (const std::string& target :
       {cluster.address(), "unix:" + cluster.dir() + "/state/canopyd.sock"}) {
    EXPECT_EQ(HealthCheck(target), std::string("\x08\x01")) << target;
    EXPECT_EQ(Reflect(target, {ListServices()}).status.error_code(),
              grpc::StatusCode::UNIMPLEMENTED)
        << target;
  }
}

TEST(StandardServicesTest, ReflectionAnswersAuthenticatedCallersWhenAsked) {
  LocalCluster cluster(kServicesConfig);
  ASSERT_TRUE(cluster.StartController({"--grpc-reflection"}).ok());
  const std::string unix_socket = "unix:" + cluster.dir() + "/state/canopyd.sock";
  EXPECT_EQ(HealthCheck(unix_socket), std::string("\x08\x01"));
  // What `grpcurl -unix ... describe canopy.v1.Controller` asks: the services, then the file
  // declaring one, with the files it imports; a file once sent is not sent again.
  ReflectionExchange local =
      Reflect(unix_socket, {ListServices(), FileContaining("canopy.v1.Controller"),
                            FileContaining("canopy.v1.SubmitJobRequest"),
                            FileContaining("canopy.v1.NoSuchThing")});
  ASSERT_TRUE(local.status.ok()) << local.status.error_message();
  ASSERT_EQ(local.responses.size(), 4u);
  EXPECT_THAT(ServiceNames(local.responses[0]),
              ElementsAre("canopy.v1.Controller", "canopy.v1.AgentService", "grpc.health.v1.Health",
                          "grpc.reflection.v1alpha.ServerReflection"));
  const std::vector<std::string> files = FileNames(local.responses[1]);
  EXPECT_EQ(files.back(), "canopy/v1/controller.proto");
  EXPECT_THAT(files, ::testing::Contains("canopy/v1/types.proto"));
  EXPECT_THAT(FileNames(local.responses[2]), ::testing::IsEmpty());  // sent already
  EXPECT_TRUE(local.responses[2].has_file_descriptor_response());
  EXPECT_EQ(local.responses[3].error_response().error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(local.responses[3].error_response().error_message(),
            "no symbol canopy.v1.NoSuchThing here");

  // An anonymous TCP caller (no MUNGE, no client certificate) is told how to get in.
  ReflectionExchange anonymous = Reflect(cluster.address(), {ListServices()});
  EXPECT_EQ(anonymous.status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(anonymous.status.error_message(),
              HasSubstr("server reflection answers authenticated callers only"));
  EXPECT_THAT(anonymous.responses, ::testing::IsEmpty());
}

TEST(StandardServicesTest, ReflectionForEveryoneAnswersAnonymousCallers) {
  LocalCluster cluster(std::string(kServicesConfig) + "grpc_reflection: everyone\n");
  ASSERT_TRUE(cluster.StartController().ok());
  ReflectionExchange anonymous = Reflect(cluster.address(), {ListServices()});
  ASSERT_TRUE(anonymous.status.ok()) << anonymous.status.error_message();
  ASSERT_EQ(anonymous.responses.size(), 1u);
  EXPECT_THAT(ServiceNames(anonymous.responses[0]), ::testing::Contains("canopy.v1.Controller"));
}

}  // namespace
}  // namespace canopy::testing
