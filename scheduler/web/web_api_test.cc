// The web view's JSON API over a real Controller (in-memory store, fake clock): the answers are
// the gRPC reads printed as JSON, errors are JSON with a status, PrivateData=jobs holds.
#include "scheduler/web/web_api.h"

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "scheduler/persistence/in_memory_store.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/test_cluster.h"

namespace canopy::web {
namespace {

using ::testing::HasSubstr;

class WebApiTest : public ::testing::Test {
 protected:
  void Start(absl::string_view yaml) {
    testing::TestCluster cluster = testing::LoadTestCluster(yaml);
    ASSERT_NE(cluster.config, nullptr);
    auto controller = server::Controller::Create(
        cluster.config, cluster.topology, std::make_unique<persistence::InMemoryStore>(), &clock_);
    ASSERT_TRUE(controller.ok()) << controller.status();
    controller_ = *std::move(controller);
    controller_->Start();
    service_ = std::make_unique<server::ControllerServiceImpl>(controller_.get(), "head", nullptr);
  }
  void TearDown() override {
    if (controller_ != nullptr) {
      controller_->Stop();
    }
  }

  testing::FakeClock clock_;
  std::unique_ptr<server::Controller> controller_;
  std::unique_ptr<server::ControllerServiceImpl> service_;
};

TEST_F(WebApiTest, TopologyAndNodesAreTheGrpcReadsAsJson) {
  Start(testing::kTwoLeafCluster);
  HttpAnswer topology = AnswerApi("/api/v1/topology", *service_);
  ASSERT_EQ(topology.status, 200) << topology.body;
  EXPECT_EQ(topology.content_type, "application/json");
  canopy::v1::GetTopologyResponse parsed;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(topology.body, &parsed).ok());
  ASSERT_EQ(parsed.switches_size(), 3);
  EXPECT_EQ(parsed.switches(0).name(), "leaf1");
  EXPECT_THAT(parsed.switches(0).nodes(), ::testing::ElementsAre("gpu1", "gpu2"));
  EXPECT_EQ(parsed.switches(2).total_gpus(), 16);
  // Zeroes are printed (the page reads them), in the JSON names protobuf gives.
  EXPECT_THAT(topology.body, HasSubstr("\"usedGpus\":0"));

  HttpAnswer nodes = AnswerApi("/api/v1/nodes/", *service_);  // a trailing slash is the same
  ASSERT_EQ(nodes.status, 200) << nodes.body;
  canopy::v1::ListNodesResponse listed;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(nodes.body, &listed).ok());
  EXPECT_EQ(listed.nodes_size(), 4);
  EXPECT_EQ(listed.nodes(3).switch_path(1), "leaf2");

  HttpAnswer ping = AnswerApi("/api/v1/ping", *service_);
  EXPECT_THAT(ping.body, HasSubstr("\"clusterName\":\"test\""));
}

TEST_F(WebApiTest, BadPathsAndIdsAreJsonErrorsThatSayWhat) {
  Start(testing::kTwoLeafCluster);
  HttpAnswer unknown = AnswerApi("/api/v1/nope", *service_);
  EXPECT_EQ(unknown.status, 404);
  EXPECT_THAT(unknown.body, HasSubstr("{\"error\":\"no such API path: /api/v1/nope (try "));
  HttpAnswer bad_id = AnswerApi("/api/v1/jobs/x\"1", *service_);
  EXPECT_EQ(bad_id.status, 400);
  // The caller's text comes back escaped: still one JSON string.
  EXPECT_EQ(bad_id.body, R"json({"error":"'x\"1' is not a job id (expected a number)"})json");
  HttpAnswer missing = AnswerApi("/api/v1/jobs/7", *service_);
  EXPECT_EQ(missing.status, 404);
  EXPECT_THAT(missing.body, HasSubstr("Invalid job id specified"));
  HttpAnswer empty = AnswerApi("/api/v1/jobs", *service_);
  EXPECT_EQ(empty.status, 200);
  EXPECT_EQ(empty.body.find("\"jobs\":[]") != std::string::npos, true) << empty.body;
}

TEST_F(WebApiTest, PrivateDataJobsKeepsJobsFromThePage) {
  Start(absl::StrCat(testing::kTwoLeafCluster, "accounting:\n  private_data: jobs\n"));
  HttpAnswer jobs = AnswerApi("/api/v1/jobs", *service_);
  EXPECT_EQ(jobs.status, 403);
  EXPECT_THAT(jobs.body, HasSubstr("PrivateData=jobs"));
  EXPECT_EQ(AnswerApi("/api/v1/topology", *service_).status, 200);  // the tree stays visible
}

}  // namespace
}  // namespace canopy::web
