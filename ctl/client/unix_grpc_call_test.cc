// UnixGrpcConnection against a real gRPC server on a unix socket: what gRPC's own client would
// get back (answers, statuses, metadata, limits, deadlines), one connection for many calls.
#include "ctl/client/unix_grpc_call.h"

#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "canopy/v1/controller.grpc.pb.h"
#include "common/os/unique_fd.h"
#include "grpc/grpc.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"
#include "gtest/gtest.h"

namespace canopy::ctl::client {
namespace {

constexpr size_t kLimit = 64 * 1024 * 1024;
// grpc-message travels percent-encoded: non-ASCII text and '%' must come back as sent.
constexpr char kMessage[] = "Job 12 not found: 100% gone, naïve ✓";

std::string MakeTempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "unix-grpc-XXXXXX").string();
  return mkdtemp(tmpl.data());
}

// Answers Ping with the caller's canopy-user metadata; ListJobs with as many jobs as the request
// has ids (each id a job, its name padded to 100 bytes); CancelJob with the status the request's
// signal asks for, its message the reason; GetJob after sleeping job_id milliseconds; SubmitJob
// with the length of the script it was sent, as the job id.
class FakeController final : public canopy::v1::Controller::Service {
 public:
  grpc::Status Ping(grpc::ServerContext* context, const canopy::v1::PingRequest*,
                    canopy::v1::PingResponse* response) override {
    auto user = context->client_metadata().find("canopy-user");
    if (user != context->client_metadata().end()) {
      response->set_hostname(std::string(user->second.data(), user->second.size()));
    }
    response->set_cluster_name("demo");
    response->set_uptime_seconds(++pings_);
    return grpc::Status::OK;
  }

  grpc::Status ListJobs(grpc::ServerContext*, const canopy::v1::ListJobsRequest* request,
                        canopy::v1::ListJobsResponse* response) override {
    const uint32_t count = request->job_ids_size() == 1 ? request->job_ids(0) : 0;
    for (uint32_t i = 1; i <= count; ++i) {
      canopy::v1::Job* job = response->add_jobs();
      job->set_job_id(i);
      job->mutable_spec()->set_name(std::string(100, 'a' + i % 26));
    }
    return grpc::Status::OK;
  }

  grpc::Status CancelJob(grpc::ServerContext*, const canopy::v1::CancelJobRequest* request,
                         canopy::v1::CancelJobResponse*) override {
    return grpc::Status(static_cast<grpc::StatusCode>(request->signal()), kMessage);
  }

  grpc::Status SubmitJob(grpc::ServerContext*, const canopy::v1::SubmitJobRequest* request,
                         canopy::v1::SubmitJobResponse* response) override {
    response->set_job_id(static_cast<uint32_t>(request->spec().script().size()));
    return grpc::Status::OK;
  }

  grpc::Status GetJob(grpc::ServerContext* context, const canopy::v1::GetJobRequest* request,
                      canopy::v1::Job* response) override {
    const absl::Time until = absl::Now() + absl::Milliseconds(request->job_id());
    while (absl::Now() < until && !context->IsCancelled()) {
      absl::SleepFor(absl::Milliseconds(5));
    }
    response->set_job_id(request->job_id());
    return grpc::Status::OK;
  }

 private:
  // Atomic: consecutive calls may run on different gRPC threads, whose ordering ThreadSanitizer
  // cannot see in Debian's uninstrumented gRPC.
  std::atomic<int> pings_{0};
};

// One HTTP/2 frame (RFC 9113, 4.1).
std::string Frame(uint8_t type, uint8_t flags, uint32_t stream, const std::string& payload) {
  std::string frame;
  const size_t length = payload.size();
  frame.push_back(static_cast<char>((length >> 16) & 0xff));
  frame.push_back(static_cast<char>((length >> 8) & 0xff));
  frame.push_back(static_cast<char>(length & 0xff));
  frame.push_back(static_cast<char>(type));
  frame.push_back(static_cast<char>(flags));
  for (int shift = 24; shift >= 0; shift -= 8) {
    frame.push_back(static_cast<char>((stream >> shift) & 0xff));
  }
  return frame + payload;
}

// An HPACK header field as a literal, not indexed, not Huffman-coded (RFC 7541, 6.2.2); short
// names and values only.
std::string Literal(const std::string& name, const std::string& value) {
  return std::string(1, '\0') + static_cast<char>(name.size()) + name +
         static_cast<char>(value.size()) + value;
}

// A hand-written HTTP/2 peer on a unix socket, for what a real gRPC server does not do on cue.
// On each connection it treats the calls in turn as `script` says, the last entry for every
// call after it:
//   kAnswer:    an empty message and grpc-status 0.
//   kActAndDie: a PING and, reading nothing more, the connection closed once the client's
//               acknowledgement waits unread in the socket, so the client's read fails with
//               ECONNRESET: a canopyd that saved a submit and was killed before answering.
//   kMalformed: response headers HTTP/2 forbids (an upper-case name), which the client's
//               nghttp2 answers with a reset of the stream.
//   kBrokenTrailers: a whole answer whose trailers hold grpc-status 0 and then such a field.
class ScriptedPeer {
 public:
  enum class Act { kAnswer, kActAndDie, kMalformed, kBrokenTrailers };

  ScriptedPeer(const std::string& path, std::vector<Act> script) : script_(std::move(script)) {
    listener_ = os::UniqueFd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    path.copy(address.sun_path, sizeof(address.sun_path) - 1);
    bound_ = ::bind(listener_.get(), reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0 &&
             ::listen(listener_.get(), 4) == 0;
    thread_ = std::thread([this] { Serve(); });
  }
  ~ScriptedPeer() {
    stop_ = true;
    thread_.join();
  }
  bool bound() const { return bound_; }
  // Requests read whole, on every connection.
  int requests() const { return requests_; }
  int connections() const { return connections_; }

 private:
  static constexpr uint8_t kData = 0, kHeaders = 1, kSettings = 4, kPing = 6;
  static constexpr uint8_t kEndStream = 0x1, kAck = 0x1, kEndHeaders = 0x4;

  void Serve() {
    while (!stop_) {
      pollfd p{listener_.get(), POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) {
        continue;
      }
      os::UniqueFd peer(::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC));
      if (peer.valid()) {
        ++connections_;
        ServeConnection(peer.get());
      }
    }
  }

  // MSG_NOSIGNAL: a client that hung up must fail the test, not kill its binary with SIGPIPE.
  void Send(int fd, const std::string& bytes) {
    (void)!::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  }

  void ServeConnection(int fd) {
    Send(fd, Frame(kSettings, 0, 0, ""));
    std::string in;
    size_t at = 24;  // after the client's connection preface
    size_t calls = 0;
    char buffer[4096];
    while (!stop_) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) {
        continue;
      }
      const ssize_t n = ::read(fd, buffer, sizeof(buffer));
      if (n <= 0) {
        return;
      }
      in.append(buffer, static_cast<size_t>(n));
      while (in.size() >= at + 9) {
        const size_t length = (static_cast<uint8_t>(in[at]) << 16) |
                              (static_cast<uint8_t>(in[at + 1]) << 8) |
                              static_cast<uint8_t>(in[at + 2]);
        if (in.size() < at + 9 + length) {
          break;
        }
        const uint8_t type = static_cast<uint8_t>(in[at + 3]);
        const uint8_t flags = static_cast<uint8_t>(in[at + 4]);
        const uint32_t stream = ((static_cast<uint8_t>(in[at + 5]) & 0x7f) << 24) |
                                (static_cast<uint8_t>(in[at + 6]) << 16) |
                                (static_cast<uint8_t>(in[at + 7]) << 8) |
                                static_cast<uint8_t>(in[at + 8]);
        at += 9 + length;
        if (type == kSettings && (flags & kAck) == 0) {
          Send(fd, Frame(kSettings, kAck, 0, ""));
        }
        if (type != kData || (flags & kEndStream) == 0) {
          continue;
        }
        ++requests_;
        const Act act = script_[std::min<size_t>(calls++, script_.size() - 1)];
        if (act == Act::kAnswer) {
          Send(fd,
               Frame(kHeaders, kEndHeaders, stream,
                     "\x88" + Literal("content-type", "application/grpc")) +
                   Frame(kData, 0, stream, std::string(5, '\0')) +
                   Frame(kHeaders, kEndHeaders | kEndStream, stream, Literal("grpc-status", "0")));
        } else if (act == Act::kBrokenTrailers) {
          Send(fd, Frame(kHeaders, kEndHeaders, stream,
                         "\x88" + Literal("content-type", "application/grpc")) +
                       Frame(kData, 0, stream, std::string(5, '\0')) +
                       Frame(kHeaders, kEndHeaders | kEndStream, stream,
                             Literal("grpc-status", "0") + Literal("Bad-Name", "x")));
        } else if (act == Act::kMalformed) {
          Send(fd, Frame(kHeaders, kEndHeaders, stream,
                         "\x88" + Literal("Content-Type", "application/grpc")));
        } else {
          // A PING, whose acknowledgement the client sends within its hold (kMaxAckHold,
          // 50 ms); once it waits in the socket, gone without reading it.
          Send(fd, Frame(kPing, 0, 0, std::string(8, '\0')));
          pollfd ack{fd, POLLIN, 0};
          (void)::poll(&ack, 1, 10'000);
          return;
        }
      }
    }
  }

  const std::vector<Act> script_;
  os::UniqueFd listener_;
  bool bound_ = false;
  std::atomic<bool> stop_{false};
  std::atomic<int> requests_{0};
  std::atomic<int> connections_{0};
  std::thread thread_;
};

class UnixGrpcCallTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir();
    socket_ = dir_ + "/canopyd.sock";
    StartServer({});
  }
  void TearDown() override {
    StopServer();
    std::filesystem::remove_all(dir_);
  }
  // A server on socket_ (a new one, as after a restart, when one ran before), with `args`.
  void StartServer(const std::vector<std::pair<std::string, int>>& args) {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("unix:" + socket_, grpc::InsecureServerCredentials());
    builder.SetMaxSendMessageSize(-1);
    for (const auto& [name, value] : args) {
      builder.AddChannelArgument(name, value);
    }
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
  }
  void StopServer() {
    if (server_ != nullptr) {
      server_->Shutdown(absl::ToChronoTime(absl::Now() + absl::Seconds(1)));
      server_->Wait();
      server_.reset();
    }
    std::filesystem::remove(socket_);
  }
  grpc::Status Ping(UnixGrpcConnection& connection) {
    canopy::v1::PingResponse response;
    return connection.Call("/canopy.v1.Controller/Ping", canopy::v1::PingRequest(), {}, Soon(),
                           &response);
  }
  static absl::Time Soon() { return absl::Now() + absl::Seconds(10); }

  std::string dir_;
  std::string socket_;
  FakeController service_;
  std::unique_ptr<grpc::Server> server_;
};

TEST_F(UnixGrpcCallTest, CallsRunOneAfterAnotherOnOneConnectionWithTheCallersMetadata) {
  UnixGrpcConnection connection(socket_, kLimit);
  for (int i = 1; i <= 3; ++i) {
    canopy::v1::PingResponse response;
    grpc::Status status = connection.Call("/canopy.v1.Controller/Ping", canopy::v1::PingRequest(),
                                          {{"canopy-user", "alice"}}, Soon(), &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(response.cluster_name(), "demo");
    EXPECT_EQ(response.hostname(), "alice");
    EXPECT_EQ(response.uptime_seconds(), i);
  }
}

TEST_F(UnixGrpcCallTest, AnAnswerOfManyMegabytesArrivesWhole) {
  UnixGrpcConnection connection(socket_, kLimit);
  canopy::v1::ListJobsRequest request;
  request.add_job_ids(200'000);  // about 22 MB: more than the flow-control windows
  canopy::v1::ListJobsResponse response;
  grpc::Status status =
      connection.Call("/canopy.v1.Controller/ListJobs", request, {}, Soon(), &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(response.jobs_size(), 200'000);
  EXPECT_EQ(response.jobs(199'999).job_id(), 200'000u);
  EXPECT_EQ(response.jobs(199'999).spec().name(), std::string(100, 'a' + 200'000 % 26));
}

TEST_F(UnixGrpcCallTest, ARequestOfMegabytesGoesOutWhole) {
  // More than the frames gathered before a write and than the server's first flow-control
  // window: the request goes out in parts, between the server's window updates.
  UnixGrpcConnection connection(socket_, kLimit);
  canopy::v1::SubmitJobRequest request;
  request.mutable_spec()->set_script(std::string(3 * 1024 * 1024, '#'));
  canopy::v1::SubmitJobResponse response;
  for (int i = 0; i < 2; ++i) {  // and the connection carries the next call as well
    grpc::Status status =
        connection.Call("/canopy.v1.Controller/SubmitJob", request, {}, Soon(), &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(response.job_id(), 3u * 1024 * 1024);
  }
}

TEST_F(UnixGrpcCallTest, ARequestOverTheServersLimitIsRefusedAndTheConnectionStaysUsable) {
  // gRPC's server takes 4 MiB by default: it ends the call while the rest of the request is
  // still on its way, and what the client had not sent of it is dropped.
  UnixGrpcConnection connection(socket_, kLimit);
  canopy::v1::SubmitJobRequest request;
  request.mutable_spec()->set_script(std::string(6 * 1024 * 1024, '#'));
  canopy::v1::SubmitJobResponse response;
  grpc::Status status =
      connection.Call("/canopy.v1.Controller/SubmitJob", request, {}, Soon(), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << status.error_message();
  EXPECT_TRUE(Ping(connection).ok());
}

TEST_F(UnixGrpcCallTest, AnAnswerOverTheLimitIsResourceExhaustedAndTheConnectionStaysUsable) {
  UnixGrpcConnection connection(socket_, 1024 * 1024);
  canopy::v1::ListJobsRequest request;
  request.add_job_ids(20'000);  // about 2.2 MB
  canopy::v1::ListJobsResponse response;
  grpc::Status status =
      connection.Call("/canopy.v1.Controller/ListJobs", request, {}, Soon(), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  canopy::v1::PingResponse ping;
  EXPECT_TRUE(
      connection.Call("/canopy.v1.Controller/Ping", canopy::v1::PingRequest(), {}, Soon(), &ping)
          .ok());
}

TEST_F(UnixGrpcCallTest, TheServersStatusAndMessageComeBackAsSent) {
  UnixGrpcConnection connection(socket_, kLimit);
  for (grpc::StatusCode code : {grpc::StatusCode::NOT_FOUND, grpc::StatusCode::PERMISSION_DENIED,
                                grpc::StatusCode::FAILED_PRECONDITION}) {
    canopy::v1::CancelJobRequest request;
    request.set_signal(code);
    canopy::v1::CancelJobResponse response;
    grpc::Status status =
        connection.Call("/canopy.v1.Controller/CancelJob", request, {}, Soon(), &response);
    EXPECT_EQ(status.error_code(), code);
    EXPECT_EQ(status.error_message(), kMessage);
  }
}

TEST_F(UnixGrpcCallTest, AMethodTheServerLacksIsUnimplemented) {
  UnixGrpcConnection connection(socket_, kLimit);
  canopy::v1::GetConfigResponse response;
  grpc::Status status = connection.Call("/canopy.v1.Controller/GetConfig",
                                        canopy::v1::GetConfigRequest(), {}, Soon(), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNIMPLEMENTED);
}

TEST_F(UnixGrpcCallTest, ACallPastItsDeadlineIsDeadlineExceededAndTheNextCallWorks) {
  UnixGrpcConnection connection(socket_, kLimit);
  canopy::v1::GetJobRequest slow;
  slow.set_job_id(2'000);  // the server sleeps 2 s
  canopy::v1::Job job;
  const absl::Time start = absl::Now();
  grpc::Status status = connection.Call("/canopy.v1.Controller/GetJob", slow, {},
                                        absl::Now() + absl::Milliseconds(200), &job);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));
  canopy::v1::GetJobRequest quick;
  quick.set_job_id(1);
  ASSERT_TRUE(connection.Call("/canopy.v1.Controller/GetJob", quick, {}, Soon(), &job).ok());
  EXPECT_EQ(job.job_id(), 1u);
}

TEST_F(UnixGrpcCallTest, NothingListeningIsUnavailableWithTheSocketsPath) {
  UnixGrpcConnection connection(dir_ + "/missing.sock", kLimit);
  canopy::v1::PingResponse response;
  grpc::Status status = connection.Call("/canopy.v1.Controller/Ping", canopy::v1::PingRequest(), {},
                                        Soon(), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_NE(status.error_message().find(dir_ + "/missing.sock"), std::string::npos)
      << status.error_message();
}

TEST_F(UnixGrpcCallTest, AStoppedServerIsUnavailableAndARestartedOneIsReachedAgain) {
  UnixGrpcConnection connection(socket_, kLimit);
  ASSERT_TRUE(Ping(connection).ok());
  StopServer();
  grpc::Status status = Ping(connection);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE) << status.error_message();
  StartServer({});
  status = Ping(connection);
  EXPECT_TRUE(status.ok()) << status.error_message();
}

TEST_F(UnixGrpcCallTest, AConnectionEndedBetweenCallsIsReplacedWithoutAFailedCall) {
  // canopyd restarted while the command waited (srun through a long step): the next call must
  // not fail on the old connection.
  UnixGrpcConnection connection(socket_, kLimit);
  ASSERT_TRUE(Ping(connection).ok());
  StopServer();
  StartServer({});
  for (int i = 0; i < 3; ++i) {
    grpc::Status status = Ping(connection);
    EXPECT_TRUE(status.ok()) << i << ": " << status.error_message();
  }
}

TEST_F(UnixGrpcCallTest, AnIdleConnectionTheServerDroppedIsReplacedWithoutAFailedCall) {
  // The server pings idle connections and drops those that do not answer; an idle command
  // does not read its socket, so it cannot answer. Its next call must still work.
  StopServer();
  StartServer({{GRPC_ARG_KEEPALIVE_TIME_MS, 200},
               {GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 100},
               {GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1}});
  UnixGrpcConnection connection(socket_, kLimit);
  ASSERT_TRUE(Ping(connection).ok());
  absl::SleepFor(absl::Milliseconds(1500));
  grpc::Status status = Ping(connection);
  EXPECT_TRUE(status.ok()) << status.error_message();
}

TEST_F(UnixGrpcCallTest, ARequestTheServerReadWholeIsNotSentAgainWhenItDiesBeforeAnswering) {
  // The server may have acted on it (a submit saved): sent again on a new connection, it would
  // be acted on twice. The caller hears UNAVAILABLE and checks, as with gRPC's own client.
  const std::string path = dir_ + "/dying.sock";
  ScriptedPeer peer(path, {ScriptedPeer::Act::kAnswer, ScriptedPeer::Act::kActAndDie,
                           ScriptedPeer::Act::kAnswer});
  ASSERT_TRUE(peer.bound());
  UnixGrpcConnection connection(path, kLimit);
  ASSERT_TRUE(Ping(connection).ok());
  grpc::Status status = Ping(connection);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE) << status.error_message();
  // The case under test: a reset (the peer closed with the acknowledgement unread), not an end.
  EXPECT_NE(status.error_message().find("reset by peer"), std::string::npos)
      << status.error_message();
  EXPECT_EQ(peer.requests(), 2);
  EXPECT_EQ(peer.connections(), 1);
  // The connection is replaced for the next call, which the peer answers.
  status = Ping(connection);
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(peer.connections(), 2);
}

// Answers nghttp2 rejects: response headers HTTP/2 forbids, and trailers that break the rules
// after grpc-status 0 arrived (still a broken answer, as gRPC's own client would say). The
// client's nghttp2 resets the stream; that reset must go out and end the call now, not at the
// call's deadline, and the connection serves the next call.
TEST_F(UnixGrpcCallTest, ABrokenAnswerEndsTheCallAtOnceAsAnErrorAndTheNextCallWorks) {
  for (ScriptedPeer::Act broken :
       {ScriptedPeer::Act::kMalformed, ScriptedPeer::Act::kBrokenTrailers}) {
    SCOPED_TRACE(static_cast<int>(broken));
    const std::string path = absl::StrCat(dir_, "/broken", static_cast<int>(broken), ".sock");
    ScriptedPeer peer(path, {broken, ScriptedPeer::Act::kAnswer});
    ASSERT_TRUE(peer.bound());
    UnixGrpcConnection connection(path, kLimit);
    const absl::Time start = absl::Now();
    grpc::Status status = Ping(connection);
    EXPECT_LT(absl::Now() - start, absl::Seconds(5));
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INTERNAL) << status.error_message();
    EXPECT_NE(status.error_message().find("broke HTTP/2's rules"), std::string::npos)
        << status.error_message();
    status = Ping(connection);
    EXPECT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(peer.requests(), 2);
  }
}

TEST_F(UnixGrpcCallTest, ASocketThatIsNotHttp2IsAnErrorNotAHang) {
  // Something else listens on the path and answers with text.
  const std::string path = dir_ + "/other.sock";
  os::UniqueFd listener(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  path.copy(address.sun_path, sizeof(address.sun_path) - 1);
  ASSERT_EQ(::bind(listener.get(), reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
  ASSERT_EQ(::listen(listener.get(), 4), 0);
  absl::Notification answered;
  std::thread other([&] {
    os::UniqueFd peer(::accept(listener.get(), nullptr, nullptr));
    const char text[] = "HTTP/1.1 400 Bad Request\r\n\r\n";
    (void)!::write(peer.get(), text, sizeof(text) - 1);
    answered.WaitForNotificationWithTimeout(absl::Seconds(10));
  });
  UnixGrpcConnection connection(path, kLimit);
  canopy::v1::PingResponse response;
  const absl::Time start = absl::Now();
  grpc::Status status = connection.Call("/canopy.v1.Controller/Ping", canopy::v1::PingRequest(), {},
                                        Soon(), &response);
  const absl::Duration took = absl::Now() - start;
  answered.Notify();  // the peer keeps its end open until now: the error is not its closing
  other.join();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE) << status.error_message();
  EXPECT_LT(took, absl::Seconds(5));
}

TEST(PercentDecodeTest, DecodesEscapesAndLeavesTheRest) {
  EXPECT_EQ(PercentDecode("100%25 done"), "100% done");
  EXPECT_EQ(PercentDecode("na%C3%AFve"), "naïve");
  EXPECT_EQ(PercentDecode("50% off"), "50% off");  // not an escape
  EXPECT_EQ(PercentDecode("end%4"), "end%4");
  EXPECT_EQ(PercentDecode("%41"), "A");
}

TEST(StatusCodeForHttpStatusTest, FollowsGrpcsMapping) {
  EXPECT_EQ(StatusCodeForHttpStatus(400), grpc::StatusCode::INTERNAL);
  EXPECT_EQ(StatusCodeForHttpStatus(401), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(StatusCodeForHttpStatus(403), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(StatusCodeForHttpStatus(404), grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_EQ(StatusCodeForHttpStatus(503), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(StatusCodeForHttpStatus(500), grpc::StatusCode::UNKNOWN);
}

}  // namespace
}  // namespace canopy::ctl::client
