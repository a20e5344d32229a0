// ControllerStream against an in-process AgentService: message order, writes from many threads
// while the stream runs, and every way a call ends (the server ends it, Cancel, no server).
#include "agent/server/controller_stream.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"
#include "gtest/gtest.h"

namespace canopy::agent {
namespace {

using canopy::v1::AgentMessage;
using canopy::v1::ControllerMessage;

// Acknowledges every heartbeat; ends the call with UNAVAILABLE "bye" when it reads heartbeat 0.
class AckingService final : public canopy::v1::AgentService::Service {
 public:
  grpc::Status Connect(grpc::ServerContext*,
                       grpc::ServerReaderWriter<ControllerMessage, AgentMessage>* stream) override {
    AgentMessage in;
    while (stream->Read(&in)) {
      {
        absl::MutexLock lock(&mu_);
        received_.push_back(in);
      }
      if (!in.has_heartbeat()) {
        continue;
      }
      if (in.heartbeat().sequence() == 0) {
        return grpc::Status(grpc::StatusCode::UNAVAILABLE, "bye");
      }
      ControllerMessage ack;
      ack.mutable_heartbeat_ack()->set_sequence(in.heartbeat().sequence());
      stream->Write(ack);
    }
    return grpc::Status::OK;
  }

  std::vector<AgentMessage> received() {
    absl::MutexLock lock(&mu_);
    return received_;
  }

 private:
  absl::Mutex mu_;
  std::vector<AgentMessage> received_ ABSL_GUARDED_BY(mu_);
};

AgentMessage Beat(uint64_t sequence) {
  AgentMessage m;
  m.mutable_heartbeat()->set_sequence(sequence);
  return m;
}

AgentMessage Hello() {
  AgentMessage m;
  m.mutable_register_()->set_node_name("n1");
  return m;
}

// What a stream's callbacks saw.
struct Seen {
  absl::Mutex mu;
  std::vector<uint64_t> acks ABSL_GUARDED_BY(mu);
  int done_calls ABSL_GUARDED_BY(mu) = 0;
  grpc::Status status ABSL_GUARDED_BY(mu);
  absl::Notification done;

  ControllerStream::MessageHandler OnMessage() {
    return [this](const ControllerMessage& m) {
      absl::MutexLock lock(&mu);
      acks.push_back(m.heartbeat_ack().sequence());
    };
  }
  ControllerStream::DoneHandler OnDone() {
    return [this](const grpc::Status& s) {
      {
        absl::MutexLock lock(&mu);
        ++done_calls;
        status = s;
      }
      done.Notify();
    };
  }
  size_t ack_count() {
    absl::MutexLock lock(&mu);
    return acks.size();
  }
};

class ControllerStreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    stub_ = canopy::v1::AgentService::NewStub(grpc::CreateChannel(
        "127.0.0.1:" + std::to_string(port_), grpc::InsecureChannelCredentials()));
  }
  void TearDown() override { server_->Shutdown(absl::ToChronoTime(absl::Now())); }

  std::shared_ptr<ControllerStream> Start(Seen& seen) {
    std::shared_ptr<ControllerStream> stream = ControllerStream::Create(
        std::make_unique<grpc::ClientContext>(), Hello(), seen.OnMessage(), seen.OnDone());
    stream->Start(stub_.get());
    return stream;
  }

  AckingService service_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<canopy::v1::AgentService::Stub> stub_;
};

TEST_F(ControllerStreamTest, WritesFromManyThreadsArriveOnceInEachWritersOrder) {
  Seen seen;
  std::shared_ptr<ControllerStream> stream = Start(seen);
  constexpr int kThreads = 4;
  constexpr int kEach = 500;
  std::vector<std::thread> writers;
  for (int t = 0; t < kThreads; ++t) {
    writers.emplace_back([&stream, t] {
      for (int i = 1; i <= kEach; ++i) {
        EXPECT_TRUE(stream->Write(Beat(t * kEach + i)));
      }
    });
  }
  for (std::thread& w : writers) {
    w.join();
  }
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (seen.ack_count() < kThreads * kEach && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  const std::vector<AgentMessage> received = service_.received();
  ASSERT_EQ(received.size(), kThreads * kEach + 1);
  EXPECT_TRUE(received[0].has_register_()) << "the first message is the one Start was given";
  std::vector<uint64_t> last(kThreads, 0);
  for (size_t i = 1; i < received.size(); ++i) {
    const uint64_t seq = received[i].heartbeat().sequence();
    const int writer = static_cast<int>((seq - 1) / kEach);
    EXPECT_GT(seq, last[writer]) << "writer " << writer << " out of order";
    last[writer] = seq;
  }
  {
    absl::MutexLock lock(&seen.mu);
    EXPECT_EQ(std::set<uint64_t>(seen.acks.begin(), seen.acks.end()).size(), kThreads * kEach);
    EXPECT_EQ(seen.done_calls, 0);
  }
  stream->Cancel();
  ASSERT_TRUE(seen.done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  absl::MutexLock lock(&seen.mu);
  EXPECT_EQ(seen.status.error_code(), grpc::StatusCode::CANCELLED);
  EXPECT_EQ(seen.done_calls, 1);
}

TEST_F(ControllerStreamTest, TheServerEndingTheCallEndsTheStreamOnceAndRefusesLaterWrites) {
  Seen seen;
  std::shared_ptr<ControllerStream> stream = Start(seen);
  EXPECT_TRUE(stream->Write(Beat(7)));
  EXPECT_TRUE(stream->Write(Beat(0)));  // the server ends the call here
  ASSERT_TRUE(seen.done.WaitForNotificationWithTimeout(absl::Seconds(10)));
  {
    absl::MutexLock lock(&seen.mu);
    EXPECT_EQ(seen.status.error_code(), grpc::StatusCode::UNAVAILABLE);
    EXPECT_EQ(seen.status.error_message(), "bye");
    EXPECT_THAT(seen.acks, ::testing::ElementsAre(7)) << "messages before the end are handed on";
  }
  EXPECT_FALSE(stream->Write(Beat(8)));
  absl::SleepFor(absl::Milliseconds(50));
  absl::MutexLock lock(&seen.mu);
  EXPECT_EQ(seen.done_calls, 1);
}

TEST_F(ControllerStreamTest, WritesRacingTheEndOfTheCallAreSafe) {
  // Writers keep writing while the server ends the call: each Write either queues or says the
  // stream has ended; the stream finishes once, and nothing is written after that.
  for (int round = 0; round < 20; ++round) {
    Seen seen;
    std::shared_ptr<ControllerStream> stream = Start(seen);
    std::thread writer([&stream] {
      for (int i = 1; i <= 200 && stream->Write(Beat(i)); ++i) {
      }
    });
    stream->Write(Beat(0));
    writer.join();
    ASSERT_TRUE(seen.done.WaitForNotificationWithTimeout(absl::Seconds(10)));
    EXPECT_FALSE(stream->Write(Beat(1)));
    absl::MutexLock lock(&seen.mu);
    EXPECT_EQ(seen.done_calls, 1);
  }
}

TEST_F(ControllerStreamTest, WritesBeforeStartFollowTheFirstMessageAndHandlersCanWriteAtOnce) {
  // NodeSession publishes the stream before starting it, so that the handler of the
  // controller's first answer (RegisterAck) can write on it, however soon that answer comes.
  Seen seen;
  ControllerStream* published = nullptr;  // set before Start(), read by the handler after
  ControllerStream::MessageHandler on_message =
      [&published, record = seen.OnMessage()](const ControllerMessage& m) {
        record(m);
        if (m.heartbeat_ack().sequence() == 1) {
          EXPECT_TRUE(published->Write(Beat(2)));
        }
      };
  std::shared_ptr<ControllerStream> stream = ControllerStream::Create(
      std::make_unique<grpc::ClientContext>(), Hello(), std::move(on_message), seen.OnDone());
  EXPECT_TRUE(stream->Write(Beat(1)));  // queued behind the first message
  published = stream.get();
  stream->Start(stub_.get());
  const absl::Time deadline = absl::Now() + absl::Seconds(20);
  while (seen.ack_count() < 2 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  const std::vector<AgentMessage> received = service_.received();
  ASSERT_EQ(received.size(), 3u);
  EXPECT_TRUE(received[0].has_register_());
  EXPECT_EQ(received[1].heartbeat().sequence(), 1u);
  EXPECT_EQ(received[2].heartbeat().sequence(), 2u);
  {
    absl::MutexLock lock(&seen.mu);
    EXPECT_THAT(seen.acks, ::testing::ElementsAre(1, 2));
  }
  stream->Cancel();
  ASSERT_TRUE(seen.done.WaitForNotificationWithTimeout(absl::Seconds(10)));
}

TEST(ControllerStreamUnstartedTest, AStreamNeverStartedGoesWithItsLastHolder) {
  Seen seen;
  std::weak_ptr<ControllerStream> weak;
  {
    std::shared_ptr<ControllerStream> stream = ControllerStream::Create(
        std::make_unique<grpc::ClientContext>(), Hello(), seen.OnMessage(), seen.OnDone());
    EXPECT_TRUE(stream->Write(Beat(1)));
    weak = stream;
  }
  EXPECT_TRUE(weak.expired());
  EXPECT_FALSE(seen.done.HasBeenNotified()) << "a call never started does not end";
}

TEST(ControllerStreamNoServerTest, NoServerEndsTheStreamWithUnavailable) {
  // A port nothing listens on: bind one and close it.
  int port = 0;
  {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
    port = ntohs(addr.sin_port);
    close(fd);
  }
  std::shared_ptr<canopy::v1::AgentService::Stub> stub = canopy::v1::AgentService::NewStub(
      grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
  Seen seen;
  // The stub (and its channel) must outlive the call, which ends only once OnDone has returned
  // on gRPC's thread, after the test heard of it: the stream's done handler holds the last copy,
  // so the stub goes with the stream, on that thread.
  ControllerStream::DoneHandler on_done = [stub, heard = seen.OnDone()](const grpc::Status& s) {
    heard(s);
  };
  std::shared_ptr<ControllerStream> stream = ControllerStream::Create(
      std::make_unique<grpc::ClientContext>(), Hello(), seen.OnMessage(), std::move(on_done));
  stream->Start(stub.get());
  stub.reset();
  ASSERT_TRUE(seen.done.WaitForNotificationWithTimeout(absl::Seconds(20)));
  absl::MutexLock lock(&seen.mu);
  EXPECT_EQ(seen.status.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_TRUE(seen.acks.empty());
}

}  // namespace
}  // namespace canopy::agent
