// canopyd serves the standard gRPC health service, so grpc_health_probe and load balancers work
// against it, and server reflection (for grpcurl) only when started with --grpc_reflection: it
// describes the whole API to anonymous TCP callers. Checked with raw generic calls (no generated
// code for those services is installed), over the TCP port and the unix socket.
#include <chrono>
#include <string>

#include "gmock/gmock.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/generic/generic_stub.h"
#include "gtest/gtest.h"
#include "tests/integration/local_cluster.h"

namespace canopy::testing {
namespace {

constexpr char kConfig[] = R"(
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

// One message out, one message in, on `method`, using a completion queue.
std::string Exchange(const std::string& target, const std::string& method,
                     const std::string& request_bytes, bool streaming) {
  auto channel = grpc::CreateChannel(target, grpc::InsecureChannelCredentials());
  grpc::GenericStub stub(channel);
  grpc::CompletionQueue cq;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  grpc::Slice slice(request_bytes);
  grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer response;
  void* tag = nullptr;
  bool ok = false;
  auto call = stub.PrepareCall(&context, method, &cq);
  call->StartCall(reinterpret_cast<void*>(1));
  if (!cq.Next(&tag, &ok) || !ok) {
    return "start failed";
  }
  call->Write(request, reinterpret_cast<void*>(2));
  if (!cq.Next(&tag, &ok) || !ok) {
    return "write failed";
  }
  if (streaming) {
    call->WritesDone(reinterpret_cast<void*>(3));
    if (!cq.Next(&tag, &ok) || !ok) {
      return "writes-done failed";
    }
  }
  call->Read(&response, reinterpret_cast<void*>(4));
  if (!cq.Next(&tag, &ok) || !ok) {
    return "read failed";
  }
  std::string out = ToString(response);
  context.TryCancel();
  grpc::Status status;
  call->Finish(&status, reinterpret_cast<void*>(5));
  cq.Next(&tag, &ok);
  cq.Shutdown();
  while (cq.Next(&tag, &ok)) {
  }
  return out;
}

TEST(StandardServicesTest, HealthIsServingAndReflectionIsOffUnlessAsked) {
  LocalCluster cluster(kConfig);
  ASSERT_TRUE(cluster.StartController().ok());
  for (const std::string& target :
       {cluster.address(), "unix:" + cluster.dir() + "/state/canopyd.sock"}) {
    EXPECT_EQ(Exchange(target, "/grpc.health.v1.Health/Check", "", false), std::string("\x08\x01"))
        << target;
    // UNIMPLEMENTED: the call fails at whichever step sees the status first.
    EXPECT_THAT(Exchange(target, "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
                         std::string("\x3a\x00", 2), true),
                ::testing::EndsWith(" failed"))
        << target;
  }
}

TEST(StandardServicesTest, ReflectionListsCanopyServicesWhenAsked) {
  LocalCluster cluster(kConfig);
  ASSERT_TRUE(cluster.StartController({"--grpc_reflection"}).ok());
  for (const std::string& target :
       {cluster.address(), "unix:" + cluster.dir() + "/state/canopyd.sock"}) {
    // HealthCheckRequest{service: ""} is empty; HealthCheckResponse{status: SERVING} is 08 01.
    EXPECT_EQ(Exchange(target, "/grpc.health.v1.Health/Check", "", false), std::string("\x08\x01"))
        << target;
    // ServerReflectionRequest{list_services: ""} is field 7, length 0.
    const std::string listing =
        Exchange(target, "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
                 std::string("\x3a\x00", 2), true);
    EXPECT_NE(listing.find("canopy.v1.Controller"), std::string::npos) << listing;
    EXPECT_NE(listing.find("canopy.v1.AgentService"), std::string::npos) << listing;
  }
}

}  // namespace
}  // namespace canopy::testing
