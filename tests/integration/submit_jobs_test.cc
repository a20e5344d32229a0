// SubmitJobs: many jobs in one call and one commit (portals, workflow engines). Checked against a
// real canopyd over its unix socket: each job is accepted or refused on its own, in request
// order; the accepted ones are durable when the answer comes (they survive kill -9 of canopyd);
// an idempotency key makes a retried batch return the same ids; a batch over the limit is
// refused whole, in words.
#include <string>

#include "absl/strings/str_cat.h"
#include "canopy/v1/controller.grpc.pb.h"
#include "gmock/gmock.h"
#include "grpcpp/create_channel.h"
#include "gtest/gtest.h"
#include "tests/integration/local_cluster.h"

namespace canopy::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kConfig[] = R"(
cluster_name: itbatch
nodes:
  - names: gpu[1-2]
    cpus: 8
    gpus: {type: h100, count: 4}
partitions:
  - name: gpu
    nodes: ALL
    default: true
)";

canopy::v1::SubmitJobRequest Job(const std::string& name) {
  canopy::v1::SubmitJobRequest job;
  canopy::v1::JobSpec* spec = job.mutable_spec();
  spec->set_name(name);
  spec->set_script("#!/bin/sh\ntrue\n");
  spec->set_min_nodes(1);
  spec->set_gpus_per_node(1);
  spec->set_work_dir("/tmp");
  spec->set_submit_dir("/tmp");
  return job;
}

class SubmitJobsTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(cluster_.StartController().ok()); }
  std::unique_ptr<canopy::v1::Controller::Stub> Stub() {
    return canopy::v1::Controller::NewStub(
        grpc::CreateChannel(cluster_.socket_target(), grpc::InsecureChannelCredentials()));
  }
  grpc::Status Submit(const canopy::v1::SubmitJobsRequest& request,
                      canopy::v1::SubmitJobsResponse* response) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    return Stub()->SubmitJobs(&context, request, response);
  }
  std::vector<std::string> QueuedNames() {
    grpc::ClientContext context;
    canopy::v1::ListJobsResponse jobs;
    EXPECT_TRUE(Stub()->ListJobs(&context, canopy::v1::ListJobsRequest(), &jobs).ok());
    std::vector<std::string> names;
    for (const canopy::v1::Job& job : jobs.jobs()) {
      names.push_back(job.spec().name());
    }
    return names;
  }

  LocalCluster cluster_{kConfig};
};

TEST_F(SubmitJobsTest, EachJobStandsOnItsOwnAndTheAcceptedOnesAreDurable) {
  canopy::v1::SubmitJobsRequest request;
  *request.add_jobs() = Job("first");
  canopy::v1::SubmitJobRequest bad = Job("nowhere");
  bad.mutable_spec()->set_partition("cpu");
  *request.add_jobs() = bad;
  canopy::v1::SubmitJobRequest test_only = Job("test");
  test_only.set_test_only(true);
  *request.add_jobs() = test_only;
  *request.add_jobs() = Job("last");
  canopy::v1::SubmitJobsResponse response;
  grpc::Status status = Submit(request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(response.results_size(), 4);
  EXPECT_EQ(response.results(0).code(), 0);
  EXPECT_GT(response.results(0).job_id(), 0u);
  EXPECT_EQ(response.results(1).code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(response.results(1).error_message(), HasSubstr("cpu"));
  EXPECT_EQ(response.results(1).job_id(), 0u);
  EXPECT_EQ(response.results(2).code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(response.results(2).error_message(), HasSubstr("test_only"));
  EXPECT_EQ(response.results(3).code(), 0);
  EXPECT_EQ(response.results(3).job_id(), response.results(0).job_id() + 1);

  // Answered once committed: a crash right after loses neither.
  cluster_.CrashController();
  ASSERT_TRUE(cluster_.StartController().ok());
  EXPECT_THAT(QueuedNames(), ::testing::UnorderedElementsAre("first", "last"));
}

TEST_F(SubmitJobsTest, ARetriedBatchWithKeysQueuesNothingTwice) {
  canopy::v1::SubmitJobsRequest request;
  for (int i = 0; i < 3; ++i) {
    canopy::v1::SubmitJobRequest job = Job(absl::StrCat("keyed", i));
    job.set_idempotency_key(absl::StrCat("batch-7/", i));
    *request.add_jobs() = job;
  }
  canopy::v1::SubmitJobsResponse first;
  canopy::v1::SubmitJobsResponse again;
  ASSERT_TRUE(Submit(request, &first).ok());
  ASSERT_TRUE(Submit(request, &again).ok());
  ASSERT_EQ(again.results_size(), 3);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(again.results(i).job_id(), first.results(i).job_id()) << i;
  }
  EXPECT_EQ(QueuedNames().size(), 3u);
}

TEST_F(SubmitJobsTest, ABatchOverTheLimitIsRefusedWhole) {
  canopy::v1::SubmitJobsRequest request;
  const canopy::v1::SubmitJobRequest job = Job("many");
  for (int i = 0; i < 10'001; ++i) {
    *request.add_jobs() = job;
  }
  canopy::v1::SubmitJobsResponse response;
  grpc::Status status = Submit(request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("at most 10000"));
  EXPECT_TRUE(QueuedNames().empty());
}

}  // namespace
}  // namespace canopy::testing
