// srun's StepIo server driven by a fake agent over 127.0.0.1.
#include "ctl/srun/step_io_server.h"

#include "absl/strings/str_cat.h"
#include "grpcpp/create_channel.h"
#include "gtest/gtest.h"

namespace canopy::ctl::srun {
namespace {

std::unique_ptr<canopy::v1::StepIo::Stub> Connect(int port) {
  return canopy::v1::StepIo::NewStub(
      grpc::CreateChannel(absl::StrCat("127.0.0.1:", port), grpc::InsecureChannelCredentials()));
}

canopy::v1::StepIoMessage Hello(const std::string& token) {
  canopy::v1::StepIoMessage m;
  m.mutable_hello()->set_job_id(1);
  m.mutable_hello()->set_io_token(token);
  m.mutable_hello()->set_node_name("gpu001");
  m.mutable_hello()->add_task_ranks(0);
  return m;
}

TEST(StepIoServerTest, StreamsOutputExitsAndSignals) {
  StepIoServer server("secret");
  absl::StatusOr<int> port = server.Start("127.0.0.1");
  ASSERT_TRUE(port.ok()) << port.status();
  auto stub = Connect(*port);
  grpc::ClientContext context;
  auto stream = stub->Attach(&context);
  ASSERT_TRUE(stream->Write(Hello("secret")));
  std::optional<StepIoEvent> e = server.Next(absl::Seconds(10));
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->kind, StepIoEvent::Kind::kAttached);
  EXPECT_EQ(e->node, "gpu001");
  EXPECT_EQ(e->ranks, std::vector<int>{0});

  canopy::v1::StepIoMessage out;
  out.mutable_output()->set_rank(0);
  out.mutable_output()->set_stream(canopy::v1::TaskOutput::STREAM_STDERR);
  out.mutable_output()->set_data("oops\n");
  ASSERT_TRUE(stream->Write(out));
  e = server.Next(absl::Seconds(10));
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->kind, StepIoEvent::Kind::kOutput);
  EXPECT_EQ(e->stream, 1);
  EXPECT_EQ(e->data, "oops\n");

  server.SignalAll(2);
  canopy::v1::StepIoControl control;
  ASSERT_TRUE(stream->Read(&control));
  EXPECT_EQ(control.signal(), 2);

  canopy::v1::StepIoMessage exited;
  exited.mutable_exited()->set_rank(0);
  exited.mutable_exited()->set_exit_code(3);
  ASSERT_TRUE(stream->Write(exited));
  e = server.Next(absl::Seconds(10));
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->kind, StepIoEvent::Kind::kExited);
  EXPECT_EQ(e->exit_code, 3);

  stream->WritesDone();
  EXPECT_TRUE(stream->Finish().ok());
  e = server.Next(absl::Seconds(10));
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->kind, StepIoEvent::Kind::kDetached);
  server.Shutdown();
}

TEST(StepIoServerTest, RefusesWrongToken) {
  StepIoServer server("secret");
  absl::StatusOr<int> port = server.Start("127.0.0.1");
  ASSERT_TRUE(port.ok());
  auto stub = Connect(*port);
  grpc::ClientContext context;
  auto stream = stub->Attach(&context);
  ASSERT_TRUE(stream->Write(Hello("guess")));
  stream->WritesDone();
  EXPECT_EQ(stream->Finish().error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_FALSE(server.Next(absl::Milliseconds(50)).has_value());
  server.Shutdown();
}

}  // namespace
}  // namespace canopy::ctl::srun
