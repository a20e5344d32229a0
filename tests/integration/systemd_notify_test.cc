// canopyd and canopy-agent as systemd Type=notify services (deploy/systemd): each says READY=1
// once it serves, sends watchdog keep-alives when WatchdogSec= asks for them, and STOPPING=1 on
// SIGTERM. The test plays systemd's part: a datagram socket named by $NOTIFY_SOCKET.
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "common/os/unique_fd.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/integration/local_cluster.h"

namespace canopy::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kNotifyConfig[] = R"(
node_timeout: 5s
heartbeat_interval: 500ms
nodes:
  - names: n[1-2]
)";

// systemd's end of sd_notify: every message sent to the socket, in order. Like systemd it reads
// all the time: a datagram socket queues only net.unix.max_dgram_qlen messages (10 by default),
// after which sd_notify blocks, and a daemon blocked sending STOPPING=1 to a socket nobody reads
// cannot stop.
class NotifySocket {
 public:
  explicit NotifySocket(const std::string& path) : path_(path) {
    fd_.reset(socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    path.copy(addr.sun_path, sizeof(addr.sun_path) - 1);
    bound_ = bind(fd_.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
    timeval tv{0, 100 * 1000};
    setsockopt(fd_.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    if (bound_) {
      reader_ = std::thread([this] { Read(); });
    }
  }
  ~NotifySocket() {
    stop_ = true;
    if (reader_.joinable()) {
      reader_.join();
    }
    unlink(path_.c_str());
  }
  bool bound() const { return bound_; }

  // Messages received until one contains `want`, or `timeout` passes.
  std::string ReadUntil(const std::string& want, absl::Duration timeout) {
    absl::MutexLock lock(&mu_);
    auto seen = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return absl::StrContains(received_, want);
    };
    mu_.AwaitWithTimeout(absl::Condition(&seen), timeout);
    return received_;
  }

 private:
  void Read() {
    while (!stop_) {
      char buffer[4096];
      const ssize_t n = recv(fd_.get(), buffer, sizeof(buffer), 0);
      if (n > 0) {
        absl::MutexLock lock(&mu_);
        received_.append(buffer, static_cast<size_t>(n));
        received_ += "\n--\n";
      }
    }
  }

  std::string path_;
  os::UniqueFd fd_;
  bool bound_ = false;
  std::atomic<bool> stop_{false};
  absl::Mutex mu_;
  std::string received_ ABSL_GUARDED_BY(mu_);
  std::thread reader_;
};

TEST(SystemdNotifyTest, ReadyWatchdogAndStopping) {
  LocalCluster cluster(kNotifyConfig);
  NotifySocket controller_socket(cluster.dir() + "/notify-canopyd");
  NotifySocket agent_socket(cluster.dir() + "/notify-agent");
  ASSERT_TRUE(controller_socket.bound() && agent_socket.bound());
  // Only the daemons started while these are set see them.
  setenv("NOTIFY_SOCKET", (cluster.dir() + "/notify-canopyd").c_str(), 1);
  setenv("WATCHDOG_USEC", "300000", 1);
  const absl::Status started = cluster.StartController();
  setenv("NOTIFY_SOCKET", (cluster.dir() + "/notify-agent").c_str(), 1);
  const absl::Status agent = started.ok() ? cluster.StartAgent("n[1-2]") : started;
  unsetenv("NOTIFY_SOCKET");
  unsetenv("WATCHDOG_USEC");
  ASSERT_TRUE(started.ok()) << cluster.ControllerLog();
  ASSERT_TRUE(agent.ok()) << cluster.AgentLog();

  std::string heard = controller_socket.ReadUntil("WATCHDOG=1", absl::Seconds(10));
  EXPECT_THAT(heard, HasSubstr("READY=1\nSTATUS=serving 2 nodes on 127.0.0.1:"));
  EXPECT_THAT(heard, HasSubstr("WATCHDOG=1"));  // the owner thread answered the probe
  heard = agent_socket.ReadUntil("WATCHDOG=1", absl::Seconds(10));
  EXPECT_THAT(heard, HasSubstr("READY=1\nSTATUS=2 node(s), controller "));
  EXPECT_THAT(heard, HasSubstr("WATCHDOG=1"));

  cluster.StopAgent();
  EXPECT_THAT(agent_socket.ReadUntil("STOPPING=1", absl::Seconds(10)), HasSubstr("STOPPING=1"));
  cluster.StopController();
  EXPECT_THAT(controller_socket.ReadUntil("STOPPING=1", absl::Seconds(10)),
              HasSubstr("STOPPING=1"));
}

}  // namespace
}  // namespace canopy::testing
