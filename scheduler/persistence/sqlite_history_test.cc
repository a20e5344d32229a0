// Accounting in the SQLite store: jobs that leave memory, earlier runs, steps, the reader's
// selection and the retention purge.
#include <unistd.h>

#include <filesystem>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/persistence/sqlite_history_reader.h"
#include "scheduler/persistence/sqlite_store.h"
#include "tests/testing/test_cluster.h"

namespace canopy::persistence {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr char kCluster[] = R"yaml(
cluster_name: test
nodes:
  - names: gpu[1-4]
    cpus: 8
    gpus: {type: h100, count: 4}
partitions:
  - name: gpu
    nodes: ALL
    default: true
)yaml";

const absl::Time kT0 = absl::FromUnixSeconds(1'800'000'000);

class SqliteHistoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("canopy-history-test-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    topology_ = testing::LoadTestCluster(kCluster).topology;
    absl::StatusOr<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(Db(), topology_);
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
    absl::StatusOr<std::unique_ptr<SqliteHistoryReader>> reader = SqliteHistoryReader::Open(Db());
    ASSERT_TRUE(reader.ok()) << reader.status();
    reader_ = *std::move(reader);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Db() const { return (dir_ / "canopy.db").string(); }

  // A finished one-node job of `user` that ran on gpu`node`.
  static core::Job Finished(uint32_t id, uint32_t user, core::JobState state, int node) {
    core::Job j;
    j.id = core::JobId(id);
    j.spec.Mutable().name = absl::StrCat("job", id);
    j.spec.Mutable().account = user == 1001 ? "ml" : "vision";
    j.spec.Mutable().script = "#!/bin/sh\nsleep 1\n";
    j.spec.Mutable().environment = std::map<std::string, std::string>{{"SECRET", "x"}};
    j.user_id = user;
    j.partition = "gpu";
    j.qos = "normal";
    j.state = state;
    j.submit_time = kT0 + absl::Seconds(id);
    j.eligible_time = j.submit_time;
    j.start_time = j.submit_time + absl::Seconds(1);
    j.end_time = j.start_time + absl::Seconds(10);
    j.allocation.nodes = {{core::NodeId(node - 1), 2, 4, 1024, {0, 1}}};
    return j;
  }

  void Commit(Mutations m) { ASSERT_TRUE(store_->Commit(m).ok()); }
  void Save(std::vector<core::Job> jobs) {
    Mutations m;
    for (core::Job& j : jobs) {
      m.job_upserts.push_back(std::make_shared<const core::Job>(std::move(j)));
    }
    Commit(std::move(m));
  }
  std::vector<uint32_t> Ids(const HistoryQuery& q) {
    absl::StatusOr<std::vector<HistoryJob>> jobs = reader_->Read(q, 0);
    EXPECT_TRUE(jobs.ok()) << jobs.status();
    std::vector<uint32_t> ids;
    for (const HistoryJob& h : jobs.value_or(std::vector<HistoryJob>{})) {
      ids.push_back(h.job.id.value());
    }
    return ids;
  }

  std::filesystem::path dir_;
  std::shared_ptr<const topology::Topology> topology_;
  std::unique_ptr<SqliteStore> store_;
  std::unique_ptr<SqliteHistoryReader> reader_;
};

TEST_F(SqliteHistoryTest, ForgottenJobsAreNotLoadedButStayReadable) {
  Save({Finished(1, 1001, core::JobState::kCompleted, 1),
        Finished(2, 1002, core::JobState::kFailed, 2)});
  Mutations forget;
  forget.forget_jobs = {core::JobId(1)};
  Commit(std::move(forget));

  absl::StatusOr<StoredJobs> loaded = store_->LoadJobs();
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_EQ(loaded->jobs.size(), 1u);
  EXPECT_EQ(loaded->jobs[0].id.value(), 2u);
  EXPECT_EQ(loaded->jobs[0].allocation.nodes.size(), 1u);

  absl::StatusOr<std::vector<HistoryJob>> all = reader_->Read(HistoryQuery{}, 0);
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 2u);
  const HistoryJob& first = (*all)[0];
  EXPECT_EQ(first.job.state, core::JobState::kCompleted);
  ASSERT_EQ(first.nodes.size(), 1u);
  EXPECT_EQ(first.nodes[0].name, "gpu1");
  EXPECT_EQ(first.nodes[0].cpus, 4);
  // History is slim: no environment, the script cut to its first line.
  EXPECT_THAT(first.job.spec->environment, IsEmpty());
  EXPECT_EQ(first.job.spec->script, "#!/bin/sh");
}

TEST_F(SqliteHistoryTest, QuerySelectsByIdUserStateWindowAndNode) {
  core::Job array_task = Finished(5, 1001, core::JobState::kCompleted, 3);
  array_task.array_job_id = 4;
  array_task.array_task_id = 1;
  core::Job array_first = Finished(4, 1001, core::JobState::kCompleted, 3);
  array_first.array_job_id = 4;
  array_first.array_task_id = 0;
  core::Job pending = Finished(6, 1002, core::JobState::kPending, 1);
  pending.start_time = pending.end_time = absl::InfinitePast();
  pending.allocation = {};
  Save({Finished(1, 1001, core::JobState::kCompleted, 1),
        Finished(2, 1002, core::JobState::kFailed, 2),
        Finished(3, 1002, core::JobState::kCancelled, 2), array_first, array_task, pending});

  HistoryQuery by_id;
  by_id.job_ids = {2, 4};  // a job, and an array's id: every task
  EXPECT_THAT(Ids(by_id), ElementsAre(2, 4, 5));
  HistoryQuery task;
  task.array_tasks = {{4, 1}};
  EXPECT_THAT(Ids(task), ElementsAre(5));
  HistoryQuery user;
  user.user_ids = {1002};
  EXPECT_THAT(Ids(user), ElementsAre(2, 3, 6));
  HistoryQuery states;
  states.states = {core::JobState::kFailed, core::JobState::kCancelled};
  EXPECT_THAT(Ids(states), ElementsAre(2, 3));
  HistoryQuery node;
  node.nodes = {"gpu3"};
  EXPECT_THAT(Ids(node), ElementsAre(4, 5));
  // Ended after job 3 ended, or still in the queue.
  HistoryQuery window;
  window.window_start = kT0 + absl::Seconds(3 + 11);
  EXPECT_THAT(Ids(window), ElementsAre(3, 4, 5, 6));
  window.window_end = kT0 + absl::Seconds(4);
  EXPECT_THAT(Ids(window), ElementsAre(3, 4));
  absl::StatusOr<std::vector<HistoryJob>> limited = reader_->Read(HistoryQuery{}, 2);
  ASSERT_TRUE(limited.ok());
  EXPECT_EQ(limited->size(), 2u);
}

TEST_F(SqliteHistoryTest, EarlierRunsAndStepsComeBackWithDuplicates) {
  core::Job job = Finished(7, 1001, core::JobState::kCompleted, 2);
  job.restart_count = 1;
  Save({job});
  core::Allocation first_run;
  first_run.nodes.push_back(core::NodeShare{core::NodeId(0), 2, 4, 1024, {0, 1}});
  Mutations m;
  m.attempts.push_back(core::JobAttempt{.job = core::JobId(7),
                                        .attempt = 0,
                                        .state = core::JobState::kNodeFail,
                                        .state_message = "node gpu1 not responding",
                                        .eligible_time = kT0,
                                        .start_time = kT0 + absl::Seconds(1),
                                        .end_time = kT0 + absl::Seconds(5),
                                        .exit_code = 0,
                                        .exit_signal = 0,
                                        .allocation = first_run});
  core::StepRecord step;
  step.job = core::JobId(7);
  step.attempt = 0;
  step.step_id = 0;
  step.name = "hostname";
  step.state = core::JobState::kRunning;
  step.nodes = {core::NodeId(0)};
  step.ntasks = 2;
  step.cpus = 2;
  m.steps.push_back(step);
  core::StepRecord later = step;
  later.attempt = 1;
  later.nodes = {core::NodeId(1)};
  later.state = core::JobState::kCompleted;
  later.end_time = kT0 + absl::Seconds(20);
  m.steps.push_back(later);
  Commit(std::move(m));
  // The first run's step ended with it: its record is replaced.
  step.state = core::JobState::kCancelled;
  Mutations ended;
  ended.steps.push_back(step);
  Commit(std::move(ended));

  HistoryQuery plain;
  absl::StatusOr<std::vector<HistoryJob>> last = reader_->Read(plain, 0);
  ASSERT_TRUE(last.ok()) << last.status();
  ASSERT_EQ(last->size(), 1u);
  EXPECT_THAT((*last)[0].earlier, IsEmpty());
  ASSERT_EQ((*last)[0].steps.size(), 1u);  // only the last run's
  EXPECT_THAT((*last)[0].steps[0].node_names, ElementsAre("gpu2"));

  HistoryQuery dup;
  dup.duplicates = true;
  absl::StatusOr<std::vector<HistoryJob>> all = reader_->Read(dup, 0);
  ASSERT_TRUE(all.ok()) << all.status();
  const HistoryJob& h = (*all)[0];
  ASSERT_EQ(h.earlier.size(), 1u);
  EXPECT_EQ(h.earlier[0].attempt.state, core::JobState::kNodeFail);
  ASSERT_EQ(h.earlier[0].nodes.size(), 1u);
  EXPECT_EQ(h.earlier[0].nodes[0].name, "gpu1");
  ASSERT_EQ(h.steps.size(), 2u);
  EXPECT_EQ(h.steps[0].record.state, core::JobState::kCancelled);
  EXPECT_EQ(h.steps[1].record.attempt, 1);

  // -s NF -D: only the earlier run matched.
  dup.states = {core::JobState::kNodeFail};
  all = reader_->Read(dup, 0);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 1u);
  EXPECT_FALSE((*all)[0].last_selected);
}

TEST_F(SqliteHistoryTest, PurgeDeletesOnlyForgottenJobsEndedBeforeTheCutoff) {
  Save({Finished(1, 1001, core::JobState::kCompleted, 1),
        Finished(2, 1001, core::JobState::kCompleted, 1),
        Finished(30, 1001, core::JobState::kCompleted, 1)});
  Mutations forget;
  forget.forget_jobs = {core::JobId(1), core::JobId(30)};
  Commit(std::move(forget));
  Mutations purge;
  purge.purge_before = kT0 + absl::Seconds(20);  // after jobs 1 and 2 ended, before 30
  Commit(std::move(purge));
  // Job 2 is still in memory: it stays however old.
  EXPECT_THAT(Ids(HistoryQuery{}), ElementsAre(2, 30));
}

// Steps saved as started and not as ended come back with the jobs, with their layout, so that a
// restarted canopyd knows them again (restore.cc); an ended step does not.
TEST_F(SqliteHistoryTest, OpenStepsComeBackWithTheirLayout) {
  core::Job running = Finished(9, 1001, core::JobState::kRunning, 1);
  running.end_time = absl::InfinitePast();
  Save({running});
  core::StepRecord open;
  open.job = core::JobId(9);
  open.step_id = 3;
  open.name = "train";
  open.state = core::JobState::kRunning;
  open.start_time = kT0 + absl::Seconds(30);
  open.nodes = {core::NodeId(0), core::NodeId(1)};
  open.tasks_per_node = {2, 1};
  open.ntasks = 3;
  open.cpus = 3;
  core::StepRecord done = open;
  done.step_id = 2;
  done.state = core::JobState::kCompleted;
  done.end_time = kT0 + absl::Seconds(40);
  Mutations m;
  m.steps = {open, done};
  Commit(std::move(m));

  absl::StatusOr<StoredJobs> loaded = store_->LoadJobs();
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_EQ(loaded->open_steps.size(), 1u);
  EXPECT_EQ(loaded->open_steps[0], open);

  open.state = core::JobState::kCompleted;
  open.end_time = kT0 + absl::Seconds(50);
  Mutations ended;
  ended.steps = {open};
  Commit(std::move(ended));
  loaded = store_->LoadJobs();
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_THAT(loaded->open_steps, IsEmpty());
}

}  // namespace
}  // namespace canopy::persistence
