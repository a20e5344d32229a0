// What keeps the database safe to start from and private: a row that cannot be read is
// quarantined instead of stopping canopyd, an array's texts load as one copy, and the files are
// owner-only.
#include <sys/stat.h>

#include <filesystem>
#include <memory>
#include <vector>

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

// Loaded, an array's tasks share one copy of its texts in memory again (each held its own: a
// restart multiplied an array's script by its task count); a task whose texts differ keeps its
// own.
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
    other.spec.Mutable().script = "#!/bin/sh\necho edited\n";  // not the same text: kept apart
    m.job_upserts.push_back(std::make_shared<const core::Job>(other));
    ASSERT_TRUE(store->Commit(m).ok());
  }
  absl::StatusOr<StoredJobs> jobs = Open()->LoadJobs();
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->jobs.size(), 4u);
  EXPECT_TRUE(jobs->jobs[0].spec->script.SharesWith(jobs->jobs[1].spec->script));
  EXPECT_TRUE(jobs->jobs[0].spec->script.SharesWith(jobs->jobs[2].spec->script));
  EXPECT_TRUE(jobs->jobs[0].spec->environment.SharesWith(jobs->jobs[2].spec->environment));
  EXPECT_FALSE(jobs->jobs[0].spec->script.SharesWith(jobs->jobs[3].spec->script));
  EXPECT_EQ(jobs->jobs[3].spec->script, "#!/bin/sh\necho edited\n");
  EXPECT_EQ(jobs->jobs[0].spec->script, FullJob(core::JobId(20)).spec->script);
}

// Jobs that are no array but were submitted with the same script and environment (an sbatch
// loop in one shell) share one copy once loaded: 100,000 such jobs parsed 100,000 environments
// at every start. Different texts stay apart.
TEST_F(SqliteStoreTest, SeparateJobsWithTheSameTextsShareThemAfterLoading) {
  {
    std::unique_ptr<SqliteStore> store = Open();
    Mutations m;
    for (uint32_t id : {30u, 31u, 32u}) {
      core::Job job = FullJob(core::JobId(id));
      job.array_job_id = 0;  // FullJob is an array's task
      job.array_task_id = 0;
      job.spec.Mutable().array_spec.clear();
      if (id == 32) {
        job.spec.Mutable().environment =
            std::map<std::string, std::string>{{"HOME", "/home/other"}};
      }
      m.job_upserts.push_back(std::make_shared<const core::Job>(job));
    }
    ASSERT_TRUE(store->Commit(m).ok());
  }
  absl::StatusOr<StoredJobs> jobs = Open()->LoadJobs();
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->jobs.size(), 3u);
  EXPECT_TRUE(jobs->jobs[0].spec->script.SharesWith(jobs->jobs[1].spec->script));
  EXPECT_TRUE(jobs->jobs[0].spec->script.SharesWith(jobs->jobs[2].spec->script));
  EXPECT_TRUE(jobs->jobs[0].spec->environment.SharesWith(jobs->jobs[1].spec->environment));
  EXPECT_FALSE(jobs->jobs[0].spec->environment.SharesWith(jobs->jobs[2].spec->environment));
  EXPECT_EQ(jobs->jobs[0].spec->environment, FullJob(core::JobId(30)).spec->environment);
  EXPECT_EQ(jobs->jobs[2].spec->environment.get().at("HOME"), "/home/other");
}

// An array's script and environment are stored once, however many tasks it has and however
// often they change (each row held a copy, written again at each change of its task: 4 GiB
// at the submit of --array=0-1000 with a 4 MiB script), and go with the array's last row.
TEST_F(SqliteStoreTest, AnArraysTextsAreStoredOnceAndGoWithItsLastRow) {
  constexpr uint32_t kTasks = 200;
  const core::SharedText script(std::string(256 << 10, '#'));  // 256 KiB, shared by the tasks
  core::Job task = FullJob(core::JobId(100));
  task.array_job_id = 100;
  task.spec.Mutable().script = script;
  task.end_time = absl::FromUnixSeconds(1000);
  auto all_tasks = [&](core::JobState state) {
    Mutations m;
    for (uint32_t i = 0; i < kTasks; ++i) {
      core::Job t = task;
      t.id = core::JobId(100 + i);
      t.array_task_id = i;
      t.state = state;
      m.job_upserts.push_back(std::make_shared<const core::Job>(t));
    }
    return m;
  };
  auto bytes_on_disk = [&] {
    std::error_code ec;
    return std::filesystem::file_size(DbPath()) + std::filesystem::file_size(DbPath() + "-wal", ec);
  };
  {
    std::unique_ptr<SqliteStore> store = Open();
    ASSERT_TRUE(store->Commit(all_tasks(core::JobState::kPending)).ok());
    ASSERT_TRUE(store->Commit(all_tasks(core::JobState::kRunning)).ok());
    ASSERT_TRUE(store->Commit(all_tasks(core::JobState::kCompleted)).ok());
    // Three saves of 200 rows: 150 MiB of script when each row held one.
    EXPECT_LT(bytes_on_disk(), 8u << 20);
  }
  EXPECT_EQ(SqlInt("SELECT COUNT(*) FROM array_texts"), 1);
  EXPECT_EQ(SqlInt("SELECT SUM(LENGTH(script)) FROM jobs"), 0);
  {
    std::unique_ptr<SqliteStore> store = Open();
    absl::StatusOr<StoredJobs> jobs = store->LoadJobs();
    ASSERT_TRUE(jobs.ok()) << jobs.status();
    ASSERT_EQ(jobs->jobs.size(), kTasks);
    EXPECT_EQ(jobs->jobs[0].spec->script, script.get());
    EXPECT_EQ(jobs->jobs[0].spec->environment, task.spec->environment.get());
    EXPECT_TRUE(jobs->jobs[0].spec->script.SharesWith(jobs->jobs[kTasks - 1].spec->script));
    // Saved again after the restart: the texts are written once more, still one row.
    Mutations again;
    for (const core::Job& j : jobs->jobs) {
      again.job_upserts.push_back(std::make_shared<const core::Job>(j));
    }
    ASSERT_TRUE(store->Commit(again).ok());
    EXPECT_EQ(SqlInt("SELECT COUNT(*) FROM array_texts"), 1);
    // The tasks leave memory, and their accounting is purged: the texts go with the last row.
    Mutations forget;
    for (uint32_t i = 0; i < kTasks; ++i) {
      forget.forget_jobs.push_back(core::JobId(100 + i));
    }
    ASSERT_TRUE(store->Commit(forget).ok());
    EXPECT_EQ(SqlInt("SELECT COUNT(*) FROM array_texts"), 1);
    Mutations purge;
    purge.purge_before = absl::FromUnixSeconds(2000);
    ASSERT_TRUE(store->Commit(purge).ok());
  }
  EXPECT_EQ(SqlInt("SELECT COUNT(*) FROM jobs"), 0);
  EXPECT_EQ(SqlInt("SELECT COUNT(*) FROM array_texts"), 0);
}

// A task row that leaves its texts to a missing array_texts row is quarantined, not loaded
// without a script.
TEST_F(SqliteStoreTest, ATaskWhoseArrayTextsAreMissingIsQuarantined) {
  {
    std::unique_ptr<SqliteStore> store = Open();
    Mutations m;
    core::Job task = FullJob(core::JobId(30));
    task.array_job_id = 30;
    m.job_upserts.push_back(std::make_shared<const core::Job>(task));
    ASSERT_TRUE(store->Commit(m).ok());
  }
  Sql("DELETE FROM array_texts");
  absl::StatusOr<StoredJobs> jobs = Open()->LoadJobs();
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  EXPECT_TRUE(jobs->jobs.empty());
  ASSERT_EQ(jobs->quarantined.size(), 1u);
  EXPECT_THAT(jobs->quarantined[0].what,
              HasSubstr("the script and environment of array 30 are missing"));
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
