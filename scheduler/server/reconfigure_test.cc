// Reconfigure's checks: a good file is described change by change; a bad file, a moved state
// directory, or a node or partition that still holds jobs leaves the running configuration alone.
#include "scheduler/server/reconfigure.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/topology/load_topology.h"

namespace canopy::server {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr char kConfig[] = R"(cluster_name: demo
state_dir: /var/spool/canopy-test
nodes:
  - {names: "n[1-3]", cpus: 8, memory_mib: 1024}
partitions:
  - {name: batch, nodes: "n[1-3]", default: true, max_time: "1:00:00"}
)";

class ReconfigureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "reconf-XXXXXX").string();
    dir_ = mkdtemp(tmpl.data());
    path_ = dir_ + "/canopy.yaml";
    Write(kConfig);
    absl::StatusOr<config::ClusterConfig> loaded = config::LoadClusterConfig(path_);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    running_ = *std::move(loaded);
    absl::StatusOr<topology::Topology> topo = topology::LoadTopology(running_);
    ASSERT_TRUE(topo.ok()) << topo.status();
    snapshot_.topology = std::make_shared<const topology::Topology>(*std::move(topo));
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void Write(const std::string& text) { std::ofstream(path_) << text; }

  // A job in `state` on node `node` (none if empty; holding `cpus` of it) of `partition`.
  void AddJob(uint32_t id, core::JobState state, const std::string& node,
              const std::string& partition = "batch", int32_t cpus = 1) {
    auto job = std::make_shared<core::Job>();
    job->id = core::JobId(id);
    job->state = state;
    job->partition = partition;
    if (!node.empty()) {
      core::NodeShare share;
      share.node = snapshot_.topology->FindNode(node);
      share.cpus = cpus;
      job->allocation.nodes.push_back(share);
    }
    if (snapshot_.job_chunks.empty()) {
      snapshot_.job_chunks.push_back(std::make_shared<JobChunk>());
    }
    auto chunk = std::make_shared<JobChunk>(*snapshot_.job_chunks[0]);
    chunk->jobs.push_back(std::move(job));
    snapshot_.job_chunks[0] = std::move(chunk);
  }

  std::string dir_, path_;
  config::ClusterConfig running_;
  ClusterSnapshot snapshot_;
};

TEST_F(ReconfigureTest, UnchangedFileHasNoChanges) {
  absl::StatusOr<ReconfigurePlan> plan = PrepareReconfigure(running_, "", snapshot_);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_THAT(plan->changes, IsEmpty());
}

TEST_F(ReconfigureTest, ChangesAreListedOneByOne) {
  AddJob(7, core::JobState::kRunning, "n3");
  Write(R"(cluster_name: demo
state_dir: /var/spool/canopy-test
min_job_age: 60s
nodes:
  - {names: "n[1-4]", cpus: 8, memory_mib: 1024}
partitions:
  - {name: batch, nodes: "n[1-4]", default: true, max_time: "2:00:00"}
  - {name: debug, nodes: "n4"}
)");
  absl::StatusOr<ReconfigurePlan> plan = PrepareReconfigure(running_, "", snapshot_);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_THAT(plan->changes,
              ElementsAre("nodes added: n4", "partition batch: MaxTime 1:00:00 -> 2:00:00",
                          "partition batch: Nodes n[1-3] -> n[1-4]", "partition added: debug",
                          "MinJobAge: 300 sec -> 60 sec"));
  EXPECT_EQ(plan->config.nodes.size(), 4u);
}

TEST_F(ReconfigureTest, BadFileIsRefusedWithTheLoadersMessage) {
  Write("cluster_name: demo\nnodes:\n  - {names: n1, cpus: many}\n");
  absl::StatusOr<ReconfigurePlan> plan = PrepareReconfigure(running_, "", snapshot_);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(plan.status().message(), HasSubstr("the configuration was not changed"));
  EXPECT_THAT(plan.status().message(), HasSubstr("cpus"));
}

TEST_F(ReconfigureTest, MovedStateDirectoryIsRefused) {
  Write(absl::StrReplaceAll(kConfig, {{"canopy-test", "elsewhere"}}));
  absl::StatusOr<ReconfigurePlan> plan = PrepareReconfigure(running_, "", snapshot_);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(plan.status().message(), HasSubstr("state directory moved"));
  // With --state_dir on canopyd's command line the file's directory does not matter.
  running_.state_dir = "/srv/state";
  EXPECT_TRUE(PrepareReconfigure(running_, "/srv/state", snapshot_).ok());
}

TEST_F(ReconfigureTest, RemovingANodeThatRunsAJobIsRefused) {
  AddJob(7, core::JobState::kRunning, "n3");
  AddJob(8, core::JobState::kCompleted, "n2");  // finished jobs do not hold a node
  Write(absl::StrReplaceAll(kConfig, {{"n[1-3]", "n[1-2]"}}));
  absl::StatusOr<ReconfigurePlan> plan = PrepareReconfigure(running_, "", snapshot_);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(plan.status().message(), HasSubstr("node n3 is no longer configured but job(s) 7"));
  EXPECT_THAT(plan.status().message(), HasSubstr("State=DRAIN"));
}

TEST_F(ReconfigureTest, RemovingAnIdleNodeIsAllowed) {
  AddJob(7, core::JobState::kRunning, "n1");
  Write(absl::StrReplaceAll(kConfig, {{"n[1-3]", "n[1-2]"}}));
  absl::StatusOr<ReconfigurePlan> plan = PrepareReconfigure(running_, "", snapshot_);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->changes.front(), "nodes removed: n3");
}

// Not removed, but too small now for what runs there: the restart would cancel the job, so the
// scratch restore refuses the file too.
TEST_F(ReconfigureTest, ShrinkingANodeBelowItsRunningJobIsRefused) {
  AddJob(7, core::JobState::kRunning, "n3", "batch", /*cpus=*/8);
  Write(R"(cluster_name: demo
state_dir: /var/spool/canopy-test
nodes:
  - {names: "n[1-2]", cpus: 8, memory_mib: 1024}
  - {names: n3, cpus: 4, memory_mib: 1024}
partitions:
  - {name: batch, nodes: "n[1-3]", default: true, max_time: "1:00:00"}
)");
  absl::StatusOr<ReconfigurePlan> plan = PrepareReconfigure(running_, "", snapshot_);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(plan.status().message(), HasSubstr("restarting on it would cancel 1 job(s): job 7"));
  // The same change with the job gone is fine.
  snapshot_.job_chunks.clear();
  AddJob(7, core::JobState::kCompleted, "");
  EXPECT_TRUE(PrepareReconfigure(running_, "", snapshot_).ok());
}

TEST_F(ReconfigureTest, RemovingAPartitionWithPendingJobsIsRefused) {
  AddJob(9, core::JobState::kPending, "");
  Write(absl::StrReplaceAll(kConfig, {{"name: batch", "name: main"}}));
  absl::StatusOr<ReconfigurePlan> plan = PrepareReconfigure(running_, "", snapshot_);
  ASSERT_FALSE(plan.ok());
  EXPECT_THAT(plan.status().message(),
              HasSubstr("partition batch is no longer configured but holds job(s) 9"));
}

}  // namespace
}  // namespace canopy::server
