#include "scheduler/server/unix_peer_listener.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "canopy/v1/controller.grpc.pb.h"
#include "gmock/gmock.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/create_channel_posix.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server_builder.h"
#include "gtest/gtest.h"

namespace canopy::server {

// For readable gtest failures.
void PrintTo(const PeerCredentials& c, std::ostream* os) {
  *os << "{uid " << c.uid << ", gid " << c.gid << ", pid " << c.pid << "}";
}

namespace {

using ::testing::MatchesRegex;
using ::testing::StartsWith;

// What a Ping handler saw.
struct Seen {
  std::string peer;
  std::optional<PeerCredentials> creds;
  // Only for blocking calls: Lookup() again just before returning.
  std::optional<PeerCredentials> creds_at_end;
};

// A Controller service whose Ping records its caller's peer string and credentials. With
// BlockNextCall(), the next Ping waits for Release() before looking up again and returning.
class RecordingService final : public canopy::v1::Controller::Service {
 public:
  explicit RecordingService(const UnixPeerListener* listener) : listener_(listener) {}

  grpc::Status Ping(grpc::ServerContext* context, const canopy::v1::PingRequest*,
                    canopy::v1::PingResponse*) override {
    Seen seen;
    seen.peer = context->peer();
    seen.creds = listener_->Lookup(*context);
    bool block = false;
    {
      absl::MutexLock lock(&mu_);
      block = std::exchange(block_next_, false);
      last_ = seen;
    }
    if (block) {
      started_.Notify();
      release_.WaitForNotification();
      seen.creds_at_end = listener_->Lookup(*context);
      absl::MutexLock lock(&mu_);
      blocked_ = seen;
    }
    return grpc::Status::OK;
  }

  Seen last() const {
    absl::MutexLock lock(&mu_);
    return last_;
  }
  Seen blocked() const {
    absl::MutexLock lock(&mu_);
    return blocked_;
  }
  void BlockNextCall() {
    absl::MutexLock lock(&mu_);
    block_next_ = true;
  }
  void WaitUntilBlocked() { started_.WaitForNotification(); }
  void Release() { release_.Notify(); }

 private:
  const UnixPeerListener* const listener_;
  mutable absl::Mutex mu_;
  Seen last_ ABSL_GUARDED_BY(mu_);
  Seen blocked_ ABSL_GUARDED_BY(mu_);
  bool block_next_ ABSL_GUARDED_BY(mu_) = false;
  absl::Notification started_;
  absl::Notification release_;
};

// The fd number in a "fd:<n>" peer string, or -1.
int PeerFd(const std::string& peer) {
  int fd = -1;
  if (peer.rfind("fd:", 0) != 0 || !absl::SimpleAtoi(peer.substr(3), &fd)) {
    return -1;
  }
  return fd;
}

PeerCredentials Me() {
  return PeerCredentials{static_cast<uint32_t>(getuid()), static_cast<uint32_t>(getgid()),
                         static_cast<int32_t>(getpid())};
}

bool WaitUntil(const std::function<bool()>& done, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) {
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

class UnixPeerListenerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/canopy-peer-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr) << std::strerror(errno);
    dir_ = tmpl;
    path_ = dir_ + "/canopyd.sock";
    absl::StatusOr<std::unique_ptr<UnixPeerListener>> listener = UnixPeerListener::Listen(path_);
    ASSERT_TRUE(listener.ok()) << listener.status();
    listener_ = *std::move(listener);
    service_ = std::make_unique<RecordingService>(listener_.get());
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &tcp_port_);
    builder.RegisterService(service_.get());
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    ASSERT_NE(tcp_port_, 0);
    listener_->Start(server_.get());
  }

  void TearDown() override {
    if (listener_ != nullptr) {
      listener_->Stop();
    }
    if (server_ != nullptr) {
      server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
    }
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  // A socket connected to the listener by this process, or — with `from_child` — by a forked
  // child, which makes the kernel record the child's pid. The socket is moved to a high fd
  // number so that the listener's accept() gets the lowest free number (the one the previous
  // connection used, once gRPC closed it): that is what makes fd reuse happen on purpose.
  // Returns the fd and the pid that connected.
  std::pair<int, pid_t> Connect(bool from_child) {
    const int low = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    EXPECT_GE(low, 0) << std::strerror(errno);
    const int fd = ::fcntl(low, F_DUPFD_CLOEXEC, 500);
    EXPECT_GE(fd, 500) << std::strerror(errno);
    ::close(low);
    sockaddr_un addr;
    std::memset(&addr, 0, sizeof(addr));
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, path_.data(), path_.size());
    pid_t connector = getpid();
    if (from_child) {
      connector = ::fork();
      if (connector == 0) {
        // Only async-signal-safe calls in the child of a threaded process.
        const int rc = ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr));
        ::_exit(rc == 0 ? 0 : 1);
      }
      int status = 0;
      EXPECT_EQ(::waitpid(connector, &status, 0), connector);
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child could not connect";
    } else {
      EXPECT_EQ(::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)), 0)
          << std::strerror(errno);
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    return {fd, connector};
  }

  static grpc::Status Ping(const std::shared_ptr<grpc::Channel>& channel,
                           grpc::ClientContext* context = nullptr) {
    auto stub = canopy::v1::Controller::NewStub(channel);
    grpc::ClientContext local;
    if (context == nullptr) {
      context = &local;
    }
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    canopy::v1::PingResponse response;
    return stub->Ping(context, canopy::v1::PingRequest(), &response);
  }

  // Waits until gRPC has closed the server side of a connection (fd number `fd`).
  static bool WaitForServerCloseWithin(int fd, std::chrono::milliseconds limit) {
    return WaitUntil([fd] { return ::fcntl(fd, F_GETFD) == -1 && errno == EBADF; }, limit);
  }
  static bool WaitForServerClose(int fd) {
    return WaitForServerCloseWithin(fd, std::chrono::seconds(10));
  }

  std::string dir_;
  std::string path_;
  int tcp_port_ = 0;
  std::unique_ptr<UnixPeerListener> listener_;
  std::unique_ptr<RecordingService> service_;
  std::unique_ptr<grpc::Server> server_;
};

TEST_F(UnixPeerListenerTest, UnixCallerIsIdentified) {
  auto channel = grpc::CreateChannel("unix:" + path_, grpc::InsecureChannelCredentials());
  ASSERT_TRUE(Ping(channel).ok());
  const Seen seen = service_->last();
  // The exact form gRPC 1.51 gives an fd channel's peer; Lookup() depends on it.
  std::cout << "peer of a unix-socket call: \"" << seen.peer << "\"\n";
  EXPECT_THAT(seen.peer, MatchesRegex("fd:[0-9]+"));
  ASSERT_TRUE(seen.creds.has_value());
  EXPECT_EQ(*seen.creds, Me());
  EXPECT_EQ(listener_->LookupPeer(seen.peer), Me());
}

TEST_F(UnixPeerListenerTest, TcpCallerIsUnauthenticated) {
  auto channel = grpc::CreateChannel(absl::StrCat("127.0.0.1:", tcp_port_),
                                     grpc::InsecureChannelCredentials());
  ASSERT_TRUE(Ping(channel).ok());
  const Seen seen = service_->last();
  EXPECT_THAT(seen.peer, StartsWith("ipv4:127.0.0.1:"));
  EXPECT_EQ(seen.creds, std::nullopt);
}

TEST_F(UnixPeerListenerTest, OtherPeerStringsAreUnauthenticated) {
  EXPECT_EQ(listener_->LookupPeer(""), std::nullopt);
  EXPECT_EQ(listener_->LookupPeer("unix:/tmp/x"), std::nullopt);
  EXPECT_EQ(listener_->LookupPeer("fd:"), std::nullopt);
  EXPECT_EQ(listener_->LookupPeer("fd:x"), std::nullopt);
  EXPECT_EQ(listener_->LookupPeer("fd:100000"), std::nullopt);  // never accepted
}

TEST_F(UnixPeerListenerTest, ReusedFdNumbersMapToTheirNewConnection) {
  // Alternate between connections made by this process and by forked children (another pid),
  // one at a time, waiting for gRPC to close each before the next: the server side then gets
  // the same fd number again and again, each time with other credentials.
  int reused_by_other_pid = 0;
  int previous_fd = -1;
  int32_t previous_pid = 0;
  for (int round = 0; round < 12; ++round) {
    auto [fd, pid] = Connect(/*from_child=*/round % 2 == 1);
    ASSERT_FALSE(HasFailure());
    auto channel = grpc::CreateInsecureChannelFromFd("canopy-test", fd);
    ASSERT_TRUE(Ping(channel).ok()) << "round " << round;
    const Seen seen = service_->last();
    const int server_fd = PeerFd(seen.peer);
    ASSERT_GE(server_fd, 0) << seen.peer;
    const PeerCredentials want{static_cast<uint32_t>(getuid()), static_cast<uint32_t>(getgid()),
                               static_cast<int32_t>(pid)};
    ASSERT_TRUE(seen.creds.has_value()) << "round " << round;
    EXPECT_EQ(*seen.creds, want) << "round " << round << " on " << seen.peer;
    if (server_fd == previous_fd && previous_pid != pid) {
      ++reused_by_other_pid;
    }
    previous_fd = server_fd;
    previous_pid = pid;
    channel.reset();  // closes the client side; gRPC then closes the server side
    ASSERT_TRUE(WaitForServerClose(server_fd)) << "round " << round;
  }
  // Otherwise the test proved nothing about reuse.
  EXPECT_GE(reused_by_other_pid, 6);
}

TEST_F(UnixPeerListenerTest, HandlerOutlivingItsClientKeepsItsCredentials) {
  // Client A (this process) starts a call whose handler blocks, then goes away entirely.
  auto [fd_a, pid_a] = Connect(/*from_child=*/false);
  auto channel_a = grpc::CreateInsecureChannelFromFd("canopy-test-a", fd_a);
  service_->BlockNextCall();
  grpc::ClientContext context_a;
  std::thread call_a([&] { EXPECT_FALSE(Ping(channel_a, &context_a).ok()); });
  service_->WaitUntilBlocked();
  const int server_fd_a = PeerFd(service_->last().peer);
  ASSERT_GE(server_fd_a, 0);
  context_a.TryCancel();
  call_a.join();
  channel_a.reset();
  // A gRPC client channel may keep its socket a while after it is released; a client process
  // that dies does not. Hang up the way the kernel does for a dead process.
  ::shutdown(fd_a, SHUT_RDWR);

  // If gRPC closed A's fd now, the next accept would reuse its number. It does not while A's
  // handler runs: the fd stays open (give it ample time to do otherwise).
  EXPECT_FALSE(WaitForServerCloseWithin(server_fd_a, std::chrono::milliseconds(300)));

  // Client B, a child process, connects meanwhile; A's handler must still see A.
  auto [fd_b, pid_b] = Connect(/*from_child=*/true);
  auto channel_b = grpc::CreateInsecureChannelFromFd("canopy-test-b", fd_b);
  ASSERT_TRUE(Ping(channel_b).ok());
  const Seen seen_b = service_->last();
  ASSERT_TRUE(seen_b.creds.has_value());
  EXPECT_EQ(seen_b.creds->pid, pid_b);
  EXPECT_NE(PeerFd(seen_b.peer), server_fd_a);

  service_->Release();
  ASSERT_TRUE(WaitUntil([&] { return service_->blocked().creds_at_end.has_value(); },
                        std::chrono::seconds(10)));
  EXPECT_EQ(service_->blocked().creds_at_end->pid, pid_a);
  // Once the handler is done, gRPC lets go of the connection.
  EXPECT_TRUE(WaitForServerClose(server_fd_a));
}

TEST_F(UnixPeerListenerTest, SocketFileIsWorldWritableAndStopRemovesIt) {
  struct stat st;
  ASSERT_EQ(::stat(path_.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0666u);

  listener_->Stop();
  EXPECT_FALSE(std::filesystem::exists(path_));
  listener_->Stop();  // idempotent
  // New connections cannot be made.
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr;
  std::memset(&addr, 0, sizeof(addr));
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path_.data(), path_.size());
  EXPECT_NE(::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)), 0);
  ::close(fd);
}

TEST(UnixPeerListenerListenTest, ReplacesALeftoverFile) {
  char tmpl[] = "/tmp/canopy-peer-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string path = std::string(tmpl) + "/canopyd.sock";
  std::ofstream(path) << "left over\n";
  absl::StatusOr<std::unique_ptr<UnixPeerListener>> listener = UnixPeerListener::Listen(path);
  ASSERT_TRUE(listener.ok()) << listener.status();
  struct stat st;
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  (*listener)->Stop();  // without Start()
  EXPECT_FALSE(std::filesystem::exists(path));
  std::filesystem::remove_all(tmpl);
}

TEST(UnixPeerListenerListenTest, ErrorsNameThePath) {
  absl::StatusOr<std::unique_ptr<UnixPeerListener>> missing =
      UnixPeerListener::Listen("/nonexistent-canopy-dir/canopyd.sock");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(),
            "cannot bind unix socket /nonexistent-canopy-dir/canopyd.sock: No such file or "
            "directory");

  const std::string long_path = "/tmp/" + std::string(120, 'x');
  absl::StatusOr<std::unique_ptr<UnixPeerListener>> too_long = UnixPeerListener::Listen(long_path);
  ASSERT_FALSE(too_long.ok());
  EXPECT_EQ(too_long.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(too_long.status().message()), ::testing::HasSubstr(long_path));
}

}  // namespace
}  // namespace canopy::server
