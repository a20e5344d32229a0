// What keeps the database safe to start from and private: a row that cannot be read is
// quarantined instead of stopping canopyd, an array's texts load as one copy, and the files are
// owner-only.
#include <sys/stat.h>

#include <memory>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/persistence/sqlite_store_test_fixture.h"

namespace canopy::persistence {
namespace {

using test_support::FullJob;
using test_support::SqliteStoreTest;
using ::testing::HasSubstr;

// One corrupt row must not keep canopyd down: the job is quarantined (set aside with the reason)
// and the others load; the next start does not meet it again.
TEST_F(SqliteStoreTest, AnUnreadableJobIsQuarantinedNamingColumnAndTheOthersLoad) {
  {
    std::unique_ptr<SqliteStore> store = Open();
    Mutations m;
    for (uint32_t id : {8u, 9u, 10u, 11u}) {
      core::Job job = FullJob(core::JobId(id));
      job.allocation.nodes = {{core::NodeId(0), 4, 16, 0, {0}}};
      m.job_upserts.push_back(std::make_shared<const core::Job>(job));
    }
    ASSERT_TRUE(store->Commit(m).ok());
  }
  Sql("UPDATE jobs SET state = 'RUNNNING' WHERE id = 9");
  Sql("UPDATE jobs SET dependencies = 'afterok:5::0:0:done' WHERE id = 10");
  Sql("UPDATE job_nodes SET gpu_indexes = '0,x' WHERE job_id = 11");
  absl::StatusOr<StoredJobs> jobs = Open()->LoadJobs();
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->jobs.size(), 1u);
  EXPECT_EQ(jobs->jobs[0].id, core::JobId(8));
  ASSERT_EQ(jobs->quarantined.size(), 3u);
  EXPECT_EQ(jobs->quarantined[0].job, core::JobId(9));
  EXPECT_THAT(jobs->quarantined[0].what, HasSubstr("column state: 'RUNNNING'"));
  EXPECT_EQ(jobs->quarantined[1].job, core::JobId(10));
  EXPECT_THAT(jobs->quarantined[1].what, HasSubstr("column dependencies: 'afterok:5::0:0:done'"));
  EXPECT_EQ(jobs->quarantined[2].job, core::JobId(11));
  EXPECT_THAT(jobs->quarantined[2].what, HasSubstr("'x' is not a GPU index"));
  EXPECT_EQ(SqlInt("SELECT COUNT(*) FROM quarantined_jobs"), 3);
  EXPECT_EQ(SqlInt("SELECT COUNT(*) FROM jobs WHERE in_memory = -1"), 3);
  // Set aside: the next start loads the good job only and reports nothing new.
  jobs = Open()->LoadJobs();
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  EXPECT_EQ(jobs->jobs.size(), 1u);
  EXPECT_TRUE(jobs->quarantined.empty());
}

// The database holds every job's script and environment: owner-only, new or made so.
// Each array task's row stores the script and environment; loaded, the tasks share one copy in
// memory again (each held its own: a restart multiplied an array's script by its task count).
TEST_F(SqliteStoreTest, AnArraysTasksShareTheirTextsAgainAfterLoading) {
  {
    std::unique_ptr<SqliteStore> store = Open();
    Mutations m;
    for (uint32_t id : {20u, 21u, 22u}) {
      core::Job job = FullJob(core::JobId(id));
      job.array_job_id = 20;
      job.array_task_id = id - 20;
      m.job_upserts.push_back(std::make_shared<const core::Job>(job));
    }
    core::Job other = FullJob(core::JobId(23));
    other.array_job_id = 20;
    other.array_task_id = 3;
    other.spec.script = "#!/bin/sh\necho edited\n";  // not the same text: kept apart
    m.job_upserts.push_back(std::make_shared<const core::Job>(other));
    ASSERT_TRUE(store->Commit(m).ok());
  }
  absl::StatusOr<StoredJobs> jobs = Open()->LoadJobs();
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->jobs.size(), 4u);
  EXPECT_TRUE(jobs->jobs[0].spec.script.SharesWith(jobs->jobs[1].spec.script));
  EXPECT_TRUE(jobs->jobs[0].spec.script.SharesWith(jobs->jobs[2].spec.script));
  EXPECT_TRUE(jobs->jobs[0].spec.environment.SharesWith(jobs->jobs[2].spec.environment));
  EXPECT_FALSE(jobs->jobs[0].spec.script.SharesWith(jobs->jobs[3].spec.script));
  EXPECT_EQ(jobs->jobs[3].spec.script, "#!/bin/sh\necho edited\n");
  EXPECT_EQ(jobs->jobs[0].spec.script, FullJob(core::JobId(20)).spec.script);
}

TEST_F(SqliteStoreTest, DatabaseFilesAreOwnerOnly) {
  auto mode = [](const std::string& path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 ? (st.st_mode & 0777) : 01000;
  };
  {
    std::unique_ptr<SqliteStore> store = Open();
    Mutations m;
    m.job_upserts.push_back(std::make_shared<const core::Job>(FullJob(core::JobId(1))));
    ASSERT_TRUE(store->Commit(m).ok());
    EXPECT_EQ(mode(DbPath()), 0600u);
    EXPECT_EQ(mode(DbPath() + "-wal"), 0600u);
  }
  ASSERT_EQ(::chmod(DbPath().c_str(), 0644), 0);
  ASSERT_TRUE(Open() != nullptr);
  EXPECT_EQ(mode(DbPath()), 0600u);  // an older, world-readable database is closed up
}

}  // namespace
}  // namespace canopy::persistence
