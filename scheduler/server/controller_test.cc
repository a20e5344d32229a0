// The controller's owner loop with a fake clock and an in-memory store: answers only after a
// commit, refuses what could not be stored, marks silent nodes down by the (fake) clock.
#include "scheduler/server/controller.h"

#include <future>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/persistence/in_memory_store.h"
#include "scheduler/topology/load_topology.h"
#include "tests/testing/fake_clock.h"

namespace canopy::server {
namespace {

using ::testing::ElementsAre;

// Captures what the controller sends down a stream.
class RecordingSink final : public AgentStreamSink {
 public:
  void Send(canopy::v1::ControllerMessage) override { ++sent; }
  void Close(grpc::Status status) override { closed_with = status.error_code(); }
  int sent = 0;
  grpc::StatusCode closed_with = grpc::StatusCode::OK;
};

class ControllerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto config = std::make_shared<config::ClusterConfig>();
    config->node_timeout = absl::Seconds(10);
    for (const char* name : {"n1", "n2"}) {
      config::NodeConfig n;
      n.name = name;
      n.cpus = 4;
      config->nodes.push_back(n);
    }
    auto store = std::make_unique<persistence::InMemoryStore>();
    store_ = store.get();
    absl::StatusOr<topology::Topology> topo = topology::LoadTopology(*config);
    ASSERT_TRUE(topo.ok()) << topo.status();
    auto controller = Controller::Create(
        config, std::make_shared<topology::Topology>(*std::move(topo)), std::move(store), &clock_);
    ASSERT_TRUE(controller.ok()) << controller.status();
    controller_ = *std::move(controller);
    controller_->Start();
  }
  void TearDown() override { controller_->Stop(); }

  // Registers `name` on a new stream and waits until the controller accepted it.
  std::shared_ptr<AgentOutbox> Register(const std::string& name, RecordingSink* sink) {
    auto outbox = std::make_shared<AgentOutbox>(sink);
    std::promise<absl::StatusOr<Controller::Registered>> done;
    state::NodeRegistration reg;
    reg.cpus = 4;
    controller_->AgentRegistered(
        name, reg, {}, outbox,
        [&](absl::StatusOr<Controller::Registered> r) { done.set_value(std::move(r)); });
    EXPECT_TRUE(done.get_future().get().ok());
    return outbox;
  }

  const state::NodeRecord& Node(int i) { return (*controller_->Snapshot()->nodes)[i]; }

  // Sinks outlive the controller: it closes every stream it still holds when it stops.
  RecordingSink first_, second_;
  canopy::testing::FakeClock clock_;
  persistence::InMemoryStore* store_ = nullptr;
  std::unique_ptr<Controller> controller_;
};

TEST_F(ControllerTest, DrainIsAnsweredOnlyAfterItIsStored) {
  Register("n1", &first_);
  const int before = store_->commits();
  absl::StatusOr<std::vector<std::string>> changed =
      controller_->UpdateNodes({"n1"}, state::NodeAdminAction::kDrain, "bad fan", "root");
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_THAT(*changed, ElementsAre("n1"));
  EXPECT_EQ(store_->commits(), before + 1);
  absl::StatusOr<std::vector<persistence::NodeAdminRow>> rows = store_->LoadNodeAdminState();
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_TRUE((*rows)[0].drain);
  EXPECT_EQ((*rows)[0].reason, "bad fan");
  EXPECT_TRUE(Node(0).drain) << "the snapshot shows it once acknowledged";
}

TEST_F(ControllerTest, AnswerWaitsUntilTheChangeIsSaved) {
  store_->FailCommitsWith(absl::ResourceExhaustedError("disk full"));
  std::future<absl::StatusOr<std::vector<std::string>>> changed =
      std::async(std::launch::async, [&] {
        return controller_->UpdateNodes({"n2"}, state::NodeAdminAction::kDown, "rma", "root");
      });
  // Not acknowledged while the database refuses it...
  EXPECT_EQ(changed.wait_for(std::chrono::milliseconds(700)), std::future_status::timeout);
  EXPECT_EQ(store_->commits(), 0);
  // ... and acknowledged, and saved, once it accepts it again.
  store_->FailCommitsWith(absl::OkStatus());
  absl::StatusOr<std::vector<std::string>> result = changed.get();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(*result, ElementsAre("n2"));
  absl::StatusOr<std::vector<persistence::NodeAdminRow>> rows = store_->LoadNodeAdminState();
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_TRUE((*rows)[0].admin_down);
}

TEST_F(ControllerTest, UnknownNodeIsRefusedAndItsStreamClosed) {
  auto outbox = std::make_shared<AgentOutbox>(&first_);
  std::promise<absl::StatusOr<Controller::Registered>> done;
  controller_->AgentRegistered("n9", {}, {}, outbox, [&](absl::StatusOr<Controller::Registered> r) {
    done.set_value(std::move(r));
  });
  EXPECT_EQ(done.get_future().get().status().code(), absl::StatusCode::kNotFound);
}

TEST_F(ControllerTest, SilentNodeGoesDownByTheControllersClockAndReplacedStreamIsIgnored) {
  auto old_stream = Register("n1", &first_);
  Register("n1", &second_);  // the agent reconnected: the old stream is closed
  EXPECT_EQ(first_.closed_with, grpc::StatusCode::ABORTED);
  // The old stream ending later must not mark the node down.
  controller_->AgentStreamClosed(old_stream);
  Register("n2", &first_);

  clock_.Advance(absl::Seconds(11));
  // Any command wakes the owner; its tick then sees both nodes silent for 11 s.
  ASSERT_TRUE(controller_->UpdateNodes({"n2"}, state::NodeAdminAction::kResume, "", "root").ok());
  EXPECT_TRUE(Node(0).not_responding);
  EXPECT_EQ(Node(0).reason, "Not responding");

  Register("n1", &second_);
  EXPECT_FALSE(Node(0).not_responding);
  EXPECT_EQ(Node(0).BaseState(), state::NodeBaseState::kIdle);
}

TEST_F(ControllerTest, CommandsAfterStopAreRefusedNotLeftWaiting) {
  controller_->Stop();
  absl::StatusOr<std::vector<std::string>> changed =
      controller_->UpdateNodes({"n1"}, state::NodeAdminAction::kDrain, "x", "root");
  EXPECT_EQ(changed.status().code(), absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace canopy::server
