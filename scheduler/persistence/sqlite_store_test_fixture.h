// The fixture of the SqliteStore tests: a store in a fresh directory on a small cluster, a job
// with every field set, and SQL run behind the store's back.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "scheduler/persistence/sqlite_handle.h"
#include "scheduler/persistence/sqlite_store.h"
#include "tests/testing/test_cluster.h"

namespace canopy::persistence::test_support {

inline std::shared_ptr<const topology::Topology> Cluster(const std::string& nodes) {
  const std::string yaml = absl::StrCat(R"yaml(
cluster_name: test
nodes:
  - names: )yaml",
                                        nodes, R"yaml(
    cpus: 8
    gpus: {type: h100, count: 4}
partitions:
  - name: gpu
    nodes: ALL
    default: true
)yaml");
  return testing::LoadTestCluster(yaml).topology;
}

// A job with every field of the record set to something other than its default.
inline core::Job FullJob(core::JobId id) {
  core::Job j;
  j.id = id;
  core::JobSpec& s = j.spec.Mutable();
  s.name = "train ünïcode";
  s.partition = "gpu";
  s.account = "ml";
  s.min_nodes = 2;
  s.max_nodes = 3;
  s.ntasks = 16;
  s.ntasks_per_node = 8;
  s.cpus_per_task = 2;
  s.mem_per_node_mib = 4096;
  s.gpus_per_node = 4;
  s.gpu_type = "h100";
  s.exclusive = true;
  s.time_limit = absl::Minutes(90);
  s.max_switches = 1;
  s.switches_wait = absl::Seconds(30);
  s.required_nodes = "gpu[1-2]";
  s.excluded_nodes = "gpu3";
  s.script = std::string("#!/bin/sh\necho 'a=b'\n\0binary tail", 31);
  s.argv = {"--lr=0.1", "", "two words"};
  s.environment =
      std::map<std::string, std::string>{{"PATH", "/usr/bin:/bin"}, {"EMPTY", ""}, {"EQ", "a=b=c"}};
  s.export_none = true;
  s.work_dir = "/home/alice";
  s.stdout_path = "out-%j.txt";
  s.stderr_path = "err-%j.txt";
  s.stdin_path = "/dev/zero";
  s.open_append = true;
  s.requeue = false;
  s.hold = true;
  s.submit_host = "login1";
  s.submit_dir = "/home/alice/exp";
  s.nice = 10;
  s.array_spec = "0-3%2";
  s.warn_signal = 10;
  s.warn_time = absl::Seconds(60);
  s.warn_batch_only = true;
  core::Dependency after;
  after.type = core::DependencyType::kAfter;
  after.job_id = 3;
  after.delay = absl::Minutes(10);
  after.state = core::DependencyState::kSatisfied;
  core::Dependency task;
  task.type = core::DependencyType::kAfterNotOk;
  task.job_id = 4;
  task.array_task_id = 0;  // task 0 is not "no task"
  task.state = core::DependencyState::kFailed;
  core::Dependency whole;
  whole.type = core::DependencyType::kAfterCorr;
  whole.job_id = 5;
  whole.whole_array = true;
  core::Dependency singleton;
  singleton.type = core::DependencyType::kSingleton;
  s.dependencies = {after, task, whole, singleton};
  s.dependency_any = true;
  s.kill_on_invalid_dep = false;  // not "unset"
  s.begin_time = absl::FromUnixMicros(1'800'000'500'000'001);
  s.qos = "high";
  s.comment = "sweep 3 of 9";
  s.wckey = "proj";
  s.mail_type = "BEGIN,END";
  s.mail_user = "alice@example.org";
  s.reservation = "maint";
  s.deadline = absl::FromUnixSeconds(1'800'100'000);
  s.delay_boot = absl::Minutes(5);
  s.container = "/containers/pt";
  s.gpus_per_task = 1;
  s.cpus_per_gpu = 4;
  s.mem_per_gpu_mib = 8192;
  s.gpu_bind = "closest";
  s.gpus_per_job = 6;
  s.gpus_per_node_requested = true;
  s.overcommit = true;
  s.exclusive_mode = "user";
  j.cancelled_by = 1002;
  j.user_id = 1001;
  j.group_id = 100;
  j.user_name = "alice";
  j.supplementary_gids = {4, 27};
  j.partition = "gpu";
  j.time_limit = absl::Minutes(90);
  j.array_job_id = id.value();
  j.array_task_id = 3;
  j.idempotency_key = "key-1";
  j.priority = 7;
  j.priority_fixed = true;
  j.qos = "high";
  j.state = core::JobState::kCompleting;
  j.reason = core::JobReason::kNone;
  j.completing_to = core::JobState::kTimeout;
  j.state_message = "time limit reached";
  j.placement_explanation = "leaf1 (1 leaf)";
  j.submit_time = absl::FromUnixMicros(1'800'000'000'123'456);
  j.eligible_time = j.submit_time + absl::Seconds(1);
  j.start_time = j.submit_time + absl::Seconds(2);
  j.end_time = absl::InfinitePast();
  j.allocation.exclusive = true;
  j.allocation.nodes = {{core::NodeId(0), 4, 16, 4096, {0, 1, 2, 3}},
                        {core::NodeId(1), 4, 16, 4096, {1, 3, 5, 7}}};
  j.restart_count = 2;
  j.exit_code = 3;
  j.exit_signal = 15;
  j.run_id = 4;
  j.next_step_id = 5;
  j.warn_sent = true;
  return j;
}

// Takes a database back to schema 6 (what migrations 7 to 12 added), to test migration 7.
inline constexpr char kUndoSchema7[] = R"sql(
    ALTER TABLE jobs DROP COLUMN gpus_per_job;
    ALTER TABLE jobs DROP COLUMN gpus_per_node_requested;
    UPDATE jobs SET
      script = (SELECT array_script FROM array_texts WHERE array_id = jobs.array_job_id),
      environment = (SELECT array_environment FROM array_texts WHERE array_id = jobs.array_job_id)
      WHERE texts_in_array = 1;
    DROP INDEX jobs_by_array_texts;
    ALTER TABLE jobs DROP COLUMN texts_in_array;
    DROP TABLE array_texts;
    ALTER TABLE job_steps DROP COLUMN tasks_per_node;
    ALTER TABLE jobs DROP COLUMN warn_sent;
    DROP TABLE quarantined_jobs;
    DROP INDEX jobs_in_memory;
    DROP INDEX jobs_by_end;
    DROP TABLE job_attempts;
    DROP TABLE job_steps;
    ALTER TABLE jobs DROP COLUMN in_memory;
    ALTER TABLE jobs DROP COLUMN cancelled_by;
    ALTER TABLE jobs DROP COLUMN comment;
    ALTER TABLE jobs DROP COLUMN wckey;
    ALTER TABLE jobs DROP COLUMN mail_type;
    ALTER TABLE jobs DROP COLUMN mail_user;
    ALTER TABLE jobs DROP COLUMN reservation;
    ALTER TABLE jobs DROP COLUMN deadline_us;
    ALTER TABLE jobs DROP COLUMN delay_boot_us;
    ALTER TABLE jobs DROP COLUMN container;
    ALTER TABLE jobs DROP COLUMN gpus_per_task;
    ALTER TABLE jobs DROP COLUMN cpus_per_gpu;
    ALTER TABLE jobs DROP COLUMN mem_per_gpu_mib;
    ALTER TABLE jobs DROP COLUMN gpu_bind;
    ALTER TABLE jobs DROP COLUMN overcommit;
    ALTER TABLE jobs DROP COLUMN exclusive_mode;
)sql";

// What an older schema did not store.
inline void ClearRecordedOptions(core::JobSpec& s) {
  s.wckey.clear();
  s.mail_type.clear();
  s.mail_user.clear();
  s.reservation.clear();
  s.deadline = absl::InfinitePast();
  s.delay_boot = absl::ZeroDuration();
  s.container.clear();
  s.gpus_per_task = 0;
  s.cpus_per_gpu = 0;
  s.mem_per_gpu_mib = 0;
  s.gpu_bind.clear();
  s.gpus_per_job = 0;
  s.gpus_per_node_requested = true;  // migration 12's default for older rows
  s.overcommit = false;
  s.exclusive_mode.clear();
}

class SqliteStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("canopy-store-test-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string DbPath() const { return (dir_ / "canopy.db").string(); }

  std::unique_ptr<SqliteStore> Open(std::shared_ptr<const topology::Topology> topo = nullptr) {
    absl::StatusOr<std::unique_ptr<SqliteStore>> store =
        SqliteStore::Open(DbPath(), topo != nullptr ? topo : topology_);
    EXPECT_TRUE(store.ok()) << store.status();
    return store.ok() ? *std::move(store) : nullptr;
  }

  // Runs SQL on the database behind the store's back.
  void Sql(const std::string& sql) {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(DbPath().c_str(), &raw), SQLITE_OK);
    SqliteDb db(raw);
    ASSERT_TRUE(Exec(db.get(), sql).ok()) << sql;
  }
  // The first column of the first row of a query, as an integer (-1 when there is none).
  int64_t SqlInt(const std::string& sql) {
    sqlite3* raw = nullptr;
    EXPECT_EQ(sqlite3_open(DbPath().c_str(), &raw), SQLITE_OK);
    SqliteDb db(raw);
    absl::StatusOr<SqliteStatement> stmt = Prepare(db.get(), sql);
    EXPECT_TRUE(stmt.ok()) << stmt.status();
    if (!stmt.ok() || sqlite3_step(stmt->get()) != SQLITE_ROW) {
      return -1;
    }
    return sqlite3_column_int64(stmt->get(), 0);
  }

  std::filesystem::path dir_;
  std::shared_ptr<const topology::Topology> topology_ = Cluster("gpu[1-4]");
};

}  // namespace canopy::persistence::test_support
