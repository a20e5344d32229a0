#include "scheduler/persistence/sqlite_store.h"

#include <unistd.h>

#include <filesystem>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace canopy::persistence {
namespace {

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

  std::filesystem::path dir_;
};

TEST_F(SqliteStoreTest, NodeAdminStateSurvivesReopen) {
  NodeAdminRow drained{.name = "gpu001",
                       .drain = true,
                       .reason = "bad fan",
                       .reason_time = absl::FromUnixSeconds(1700000000),
                       .reason_user = "root"};
  {
    absl::StatusOr<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(DbPath());
    ASSERT_TRUE(store.ok()) << store.status();
    Mutations m;
    m.node_admin_upserts.push_back(drained);
    NodeAdminRow down;
    down.name = "gpu002";
    down.admin_down = true;
    down.reason = "rma";
    m.node_admin_upserts.push_back(down);
    ASSERT_TRUE((*store)->Commit(m).ok());
    // An update of the same node replaces the row.
    drained.reason = "bad fan, ticket 42";
    Mutations m2;
    m2.node_admin_upserts.push_back(drained);
    ASSERT_TRUE((*store)->Commit(m2).ok());
  }
  absl::StatusOr<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(DbPath());
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<std::vector<NodeAdminRow>> rows = (*store)->LoadNodeAdminState();
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0], drained);
  EXPECT_EQ((*rows)[1].name, "gpu002");
  EXPECT_TRUE((*rows)[1].admin_down);
  EXPECT_EQ((*rows)[1].reason_time, absl::InfinitePast());
}

TEST_F(SqliteStoreTest, JobsAndNextIdSurviveReopen) {
  const std::string binary("\x00\x01record\xff", 10);  // records are opaque bytes, NULs included
  {
    absl::StatusOr<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(DbPath());
    ASSERT_TRUE(store.ok()) << store.status();
    Mutations m;
    m.job_upserts.push_back(JobRow{7, "PENDING", binary});
    m.job_upserts.push_back(JobRow{3, "RUNNING", "r3"});
    m.next_job_id = 8;
    ASSERT_TRUE((*store)->Commit(m).ok());
    Mutations m2;
    m2.job_upserts.push_back(JobRow{3, "COMPLETED", "r3 done"});
    ASSERT_TRUE((*store)->Commit(m2).ok());
  }
  absl::StatusOr<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(DbPath());
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<JobState> jobs = (*store)->LoadJobs();
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  EXPECT_EQ(jobs->next_job_id, 8u);
  ASSERT_EQ(jobs->jobs.size(), 2u);
  EXPECT_EQ(jobs->jobs[0], (JobRow{3, "COMPLETED", "r3 done"}));
  EXPECT_EQ(jobs->jobs[1], (JobRow{7, "PENDING", binary}));
}

TEST_F(SqliteStoreTest, FreshDatabaseHasNoJobs) {
  absl::StatusOr<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(DbPath());
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<JobState> jobs = (*store)->LoadJobs();
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  EXPECT_TRUE(jobs->jobs.empty());
  EXPECT_EQ(jobs->next_job_id, 0u);
}

TEST_F(SqliteStoreTest, RefusesDatabaseFromNewerCanopyd) {
  {
    absl::StatusOr<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(DbPath());
    ASSERT_TRUE(store.ok());
  }
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(DbPath().c_str(), &raw), SQLITE_OK);
  SqliteDb db(raw);
  ASSERT_TRUE(Exec(db.get(), "PRAGMA user_version = 999").ok());
  db.reset();
  absl::StatusOr<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(DbPath());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(store.status().message(), ::testing::HasSubstr("newer than this canopyd"));
}

TEST_F(SqliteStoreTest, GarbageFileIsDataLossNotCrash) {
  FILE* f = fopen(DbPath().c_str(), "w");
  ASSERT_NE(f, nullptr);
  fputs("this is not a database, just some text that is long enough to have a header........", f);
  fclose(f);
  absl::StatusOr<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(DbPath());
  EXPECT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kDataLoss) << store.status();
}

TEST_F(SqliteStoreTest, UnwritableDirectoryIsClearError) {
  absl::StatusOr<std::unique_ptr<SqliteStore>> store =
      SqliteStore::Open((dir_ / "no" / "such" / "dir" / "canopy.db").string());
  EXPECT_FALSE(store.ok());
  EXPECT_THAT(store.status().message(), ::testing::HasSubstr("no/such/dir/canopy.db"));
}

}  // namespace
}  // namespace canopy::persistence
