// Issue #15: portals follow jobs and nodes through WatchJobs/WatchNodes instead of polling, and
// the Python portal example (docs/examples/portal) works against a real cluster: stubs generated
// from proto/ with Debian's tools, an idempotent submit retried, the job followed to its end.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "canopy/v1/controller.grpc.pb.h"
#include "gmock/gmock.h"
#include "grpcpp/create_channel.h"
#include "gtest/gtest.h"
#include "tests/integration/local_cluster.h"

namespace canopy::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kConfig[] = R"(
cluster_name: itwatch
heartbeat_interval: 500ms
min_job_age: 2s
nodes:
  - names: n[1-2]
    cpus: 4
    gpus: {type: h100, count: 2}
partitions:
  - name: gpu
    nodes: ALL
    default: true
)";

class WatchTest : public ::testing::Test {
 protected:
  WatchTest() : cluster_(kConfig) {}

  void SetUp() override {
    ASSERT_TRUE(cluster_.StartController().ok()) << cluster_.ControllerLog();
    ASSERT_TRUE(cluster_.StartAgent("n[1-2]").ok());
    ASSERT_TRUE(WaitUntil(
        [&] {
          return cluster_.FrontEnd("sinfo", {"-h", "-t", "idle", "-o", "%D"}).out == "2\n";
        },
        absl::Seconds(20)))
        << cluster_.FrontEnd("sinfo", {}).out << cluster_.ControllerLog();
    stub_ = canopy::v1::Controller::NewStub(
        grpc::CreateChannel(cluster_.socket_target(), grpc::InsecureChannelCredentials()));
  }

  LocalCluster cluster_;
  std::unique_ptr<canopy::v1::Controller::Stub> stub_;
};

std::chrono::system_clock::time_point In(int seconds) {
  return std::chrono::system_clock::now() + std::chrono::seconds(seconds);
}

TEST_F(WatchTest, AJobIsFollowedFromSubmitToRemoval) {
  const CommandResult before = cluster_.FrontEnd("sbatch", {"-o", "/dev/null", "--wrap", "true"});
  ASSERT_EQ(before.exit_code, 0) << before.err;
  grpc::ClientContext context;
  context.set_deadline(In(30));
  canopy::v1::WatchJobsRequest request;
  std::unique_ptr<grpc::ClientReader<canopy::v1::JobEvent>> reader =
      stub_->WatchJobs(&context, request);
  canopy::v1::JobEvent event;
  // The listing: the job submitted before the watch, then SYNCED.
  ASSERT_TRUE(reader->Read(&event));
  EXPECT_EQ(event.kind(), canopy::v1::WATCH_EVENT_KIND_EXISTING);
  EXPECT_EQ(event.job().job_id(), 1u);
  EXPECT_TRUE(event.job().spec().environment().empty()) << "records are as slim as ListJobs's";
  ASSERT_TRUE(reader->Read(&event));
  while (event.kind() == canopy::v1::WATCH_EVENT_KIND_CHANGED) {
    ASSERT_TRUE(reader->Read(&event));  // job 1's own end, if it came before SYNCED was read
  }
  ASSERT_EQ(event.kind(), canopy::v1::WATCH_EVENT_KIND_SYNCED);

  const CommandResult job =
      cluster_.FrontEnd("sbatch", {"--parsable", "-o", "/dev/null", "--wrap", "sleep 1"});
  ASSERT_EQ(job.exit_code, 0) << job.err;
  // Job 2: new, running on a node, completed, and removed once older than MinJobAge (2 s).
  std::vector<canopy::v1::JobState> states;
  bool removed = false;
  while (!removed && reader->Read(&event)) {
    if (event.job().job_id() != 2) {
      continue;
    }
    ASSERT_EQ(event.kind() == canopy::v1::WATCH_EVENT_KIND_REMOVED ||
                  event.kind() == canopy::v1::WATCH_EVENT_KIND_CHANGED,
              true)
        << event.DebugString();
    removed = event.kind() == canopy::v1::WATCH_EVENT_KIND_REMOVED;
    if (!removed && (states.empty() || states.back() != event.job().state())) {
      states.push_back(event.job().state());
    }
    if (event.job().state() == canopy::v1::JOB_STATE_RUNNING) {
      EXPECT_EQ(event.job().nodes_size(), 1) << event.DebugString();
    }
  }
  EXPECT_TRUE(removed) << "no REMOVED event for job 2";
  ASSERT_FALSE(states.empty());
  // Its first record is whatever state the first snapshot holding it had: PENDING, or already
  // CONFIGURING when the pass that placed it ran in the same batch as the submit.
  EXPECT_THAT(states.front(),
              ::testing::AnyOf(canopy::v1::JOB_STATE_PENDING, canopy::v1::JOB_STATE_CONFIGURING,
                               canopy::v1::JOB_STATE_RUNNING));
  EXPECT_EQ(states.back(), canopy::v1::JOB_STATE_COMPLETED);
  EXPECT_THAT(states, ::testing::Contains(canopy::v1::JOB_STATE_RUNNING));
  context.TryCancel();
}

TEST_F(WatchTest, NodesAreListedOnceThenOnlyRealChangesFollow) {
  grpc::ClientContext context;
  context.set_deadline(In(30));
  canopy::v1::WatchNodesRequest request;
  request.set_nodes("n2");
  std::unique_ptr<grpc::ClientReader<canopy::v1::NodeEvent>> reader =
      stub_->WatchNodes(&context, request);
  canopy::v1::NodeEvent event;
  ASSERT_TRUE(reader->Read(&event));
  EXPECT_EQ(event.kind(), canopy::v1::WATCH_EVENT_KIND_EXISTING);
  EXPECT_EQ(event.node().name(), "n2");
  ASSERT_TRUE(reader->Read(&event));
  EXPECT_EQ(event.kind(), canopy::v1::WATCH_EVENT_KIND_SYNCED);
  // Several heartbeats (every 500 ms) pass unannounced; the drain is the next event.
  absl::SleepFor(absl::Seconds(2));
  const CommandResult drain =
      cluster_.FrontEnd("scontrol", {"update", "NodeName=n2", "State=DRAIN", "Reason=watch"});
  ASSERT_EQ(drain.exit_code, 0) << drain.err;
  ASSERT_TRUE(reader->Read(&event));
  EXPECT_EQ(event.kind(), canopy::v1::WATCH_EVENT_KIND_CHANGED);
  EXPECT_EQ(event.node().name(), "n2");
  EXPECT_EQ(event.node().reason(), "watch") << event.DebugString();
  context.TryCancel();
}

TEST_F(WatchTest, ThePythonPortalExampleSubmitsOnceAndFollowsItsJob) {
  const std::string stubs = cluster_.dir() + "/stubs";
  const CommandResult made = RunCommand(
      {"/bin/bash", std::string(CANOPY_SOURCE_DIR) + "/docs/examples/portal/make_stubs.sh", stubs});
  ASSERT_EQ(made.exit_code, 0) << made.out << made.err;
  // Debian's interpreter, where python3-grpcio and python3-protobuf are installed.
  const CommandResult portal = RunCommand(
      {"/usr/bin/python3", std::string(CANOPY_SOURCE_DIR) + "/docs/examples/portal/portal.py",
       "--controller", cluster_.socket_target(), "--nodes", "2", "--command", "sleep 1"},
      {{"PYTHONPATH", stubs}}, absl::Seconds(60));
  EXPECT_EQ(portal.exit_code, 0) << portal.out << portal.err << cluster_.ControllerLog();
  EXPECT_THAT(portal.out, HasSubstr("watch: synced"));
  EXPECT_THAT(portal.out, HasSubstr("submit: job 1; the retry with the same key got job 1"));
  EXPECT_THAT(portal.out, HasSubstr("-> JOB_STATE_RUNNING on n1,n2"));
  EXPECT_THAT(portal.out, HasSubstr("-> JOB_STATE_COMPLETED"));
  EXPECT_THAT(portal.out, HasSubstr("watch nodes: 2 node(s)"));
  EXPECT_THAT(portal.out, HasSubstr("job 1 ended JOB_STATE_COMPLETED"));
  EXPECT_THAT(portal.out, HasSubstr("batch: portal-batch-0 is job 2"));
  EXPECT_THAT(portal.out, HasSubstr("batch: portal-batch-1 is job 3"));
  EXPECT_THAT(portal.out, HasSubstr("batch: portal-batch-2 refused (code 3): "));
  // Job 1 once, though submitted twice, then the batch's two: no fourth job.
  EXPECT_EQ(cluster_.FrontEnd("sacct", {"-X", "-n", "-o", "jobid"}).out.find('4'),
            std::string::npos);
}

}  // namespace
}  // namespace canopy::testing
