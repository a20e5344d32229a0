#include "scheduler/persistence/sqlite_store.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/persistence/sqlite_store_test_fixture.h"
#include "tests/testing/test_cluster.h"

namespace canopy::persistence {
namespace {

using test_support::ClearRecordedOptions;
using test_support::Cluster;
using test_support::FullJob;
using test_support::kUndoSchema7;
using test_support::SqliteStoreTest;
using ::testing::HasSubstr;

TEST_F(SqliteStoreTest, NodeAdminStateSurvivesReopen) {
  NodeAdminRow drained{.name = "gpu001",
                       .drain = true,
                       .reason = "bad fan",
                       .reason_time = absl::FromUnixSeconds(1700000000),
                       .reason_user = "root"};
  {
    std::unique_ptr<SqliteStore> store = Open();
    Mutations m;
    m.node_admin_upserts.push_back(drained);
    NodeAdminRow down;
    down.name = "gpu002";
    down.admin_down = true;
    down.reason = "rma";
    m.node_admin_upserts.push_back(down);
    ASSERT_TRUE(store->Commit(m).ok());
    // An update of the same node replaces the row.
    drained.reason = "bad fan, ticket 42";
    Mutations m2;
    m2.node_admin_upserts.push_back(drained);
    ASSERT_TRUE(store->Commit(m2).ok());
  }
  absl::StatusOr<std::vector<NodeAdminRow>> rows = Open()->LoadNodeAdminState();
  ASSERT_TRUE(rows.ok()) << rows.status();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0], drained);
  EXPECT_EQ((*rows)[1].name, "gpu002");
  EXPECT_TRUE((*rows)[1].admin_down);
  EXPECT_EQ((*rows)[1].reason_time, absl::InfinitePast());
}

TEST_F(SqliteStoreTest, EveryFieldOfAJobSurvivesReopen) {
  const core::Job full = FullJob(core::JobId(7));
  core::Job plain;  // all defaults, as a job just submitted by a minimal client
  plain.id = core::JobId(3);
  plain.resources.min_nodes = 5;  // derived: not stored
  {
    std::unique_ptr<SqliteStore> store = Open();
    Mutations m;
    m.job_upserts.push_back(std::make_shared<const core::Job>(full));
    m.job_upserts.push_back(std::make_shared<const core::Job>(plain));
    m.next_job_id = 8;
    ASSERT_TRUE(store->Commit(m).ok());
  }
  absl::StatusOr<StoredJobs> jobs = Open()->LoadJobs();
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  EXPECT_EQ(jobs->next_job_id, 8u);
  EXPECT_TRUE(jobs->problems.empty());
  EXPECT_TRUE(jobs->legacy.empty());
  ASSERT_EQ(jobs->jobs.size(), 2u);
  core::Job expected_plain = plain;
  expected_plain.resources = {};
  EXPECT_EQ(jobs->jobs[0], expected_plain);
  EXPECT_EQ(jobs->jobs[1], full);
  EXPECT_EQ(jobs->jobs[1].spec->script.size(), 31u);  // NUL bytes kept
}

TEST_F(SqliteStoreTest, AnUpdateReplacesTheRowAndItsNodes) {
  core::Job job = FullJob(core::JobId(1));
  std::unique_ptr<SqliteStore> store = Open();
  Mutations m;
  m.job_upserts.push_back(std::make_shared<const core::Job>(job));
  ASSERT_TRUE(store->Commit(m).ok());
  job.state = core::JobState::kPending;  // requeued: no nodes
  job.allocation = {};
  m.job_upserts = {std::make_shared<const core::Job>(job)};
  ASSERT_TRUE(store->Commit(m).ok());
  absl::StatusOr<StoredJobs> jobs = store->LoadJobs();
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->jobs.size(), 1u);
  EXPECT_EQ(jobs->jobs[0].state, core::JobState::kPending);
  EXPECT_TRUE(jobs->jobs[0].allocation.empty());
  job.allocation.nodes = {{core::NodeId(3), 1, 2, 0, {2}}};
  m.job_upserts = {std::make_shared<const core::Job>(job)};
  ASSERT_TRUE(store->Commit(m).ok());
  jobs = store->LoadJobs();
  ASSERT_EQ(jobs->jobs[0].allocation.nodes.size(), 1u);
  EXPECT_EQ(jobs->jobs[0].allocation.nodes[0].node, core::NodeId(3));
}

// A commit clears the node rows of the jobs it saves by runs of consecutive ids: every saved job
// gets exactly its new nodes, and jobs between or beside the runs keep theirs.
TEST_F(SqliteStoreTest, ACommitReplacesTheNodesOfTheJobsItSavesAndNoOthers) {
  auto with_node = [](uint32_t id, int node) {
    core::Job job = FullJob(core::JobId(id));
    job.allocation.nodes = {{core::NodeId(node), 1, 2, 0, {0}}};
    return std::make_shared<const core::Job>(job);
  };
  std::unique_ptr<SqliteStore> store = Open();
  Mutations m;
  for (uint32_t id : {1, 2, 3, 4, 5, 7}) {
    m.job_upserts.push_back(with_node(id, 0));
  }
  ASSERT_TRUE(store->Commit(m).ok());
  // Jobs 2-3 and 5 move to node 1, job 7 is requeued (no nodes); 1 and 4 are not saved. Job 3
  // comes twice, as after a failed commit: its last record is the one kept.
  core::Job requeued = FullJob(core::JobId(7));
  requeued.state = core::JobState::kPending;
  requeued.allocation = {};
  m.job_upserts = {with_node(5, 1), with_node(3, 2), with_node(2, 1),
                   std::make_shared<const core::Job>(requeued), with_node(3, 1)};
  ASSERT_TRUE(store->Commit(m).ok());
  absl::StatusOr<StoredJobs> jobs = store->LoadJobs();
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->jobs.size(), 6u);
  std::map<uint32_t, std::vector<core::NodeId>> nodes;
  for (const core::Job& job : jobs->jobs) {
    for (const core::NodeShare& share : job.allocation.nodes) {
      nodes[job.id.value()].push_back(share.node);
    }
  }
  const std::vector<core::NodeId> on0 = {core::NodeId(0)}, on1 = {core::NodeId(1)};
  EXPECT_EQ(nodes[1], on0);
  EXPECT_EQ(nodes[2], on1);
  EXPECT_EQ(nodes[3], on1);
  EXPECT_EQ(nodes[4], on0);
  EXPECT_EQ(nodes[5], on1);
  EXPECT_TRUE(nodes[7].empty());
}

TEST_F(SqliteStoreTest, NodesAreStoredByNameAndAGoneNodeIsAProblem) {
  {
    std::unique_ptr<SqliteStore> store = Open();
    Mutations m;
    core::Job job = FullJob(core::JobId(1));
    job.allocation.nodes = {{core::NodeId(0), 4, 16, 0, {0}}, {core::NodeId(3), 4, 16, 0, {0}}};
    m.job_upserts.push_back(std::make_shared<const core::Job>(job));
    ASSERT_TRUE(store->Commit(m).ok());
  }
  // gpu4 was removed from the configuration; gpu1 moved to another position.
  absl::StatusOr<StoredJobs> jobs = Open(Cluster("gpu[0-2]"))->LoadJobs();
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->problems.size(), 1u);
  EXPECT_EQ(jobs->problems[0].job, core::JobId(1));
  EXPECT_THAT(jobs->problems[0].what, HasSubstr("gpu4"));
  EXPECT_TRUE(jobs->jobs[0].allocation.empty());
  // With gpu4 back and gpu1 at another id, the names find the right nodes.
  jobs = Open(Cluster("gpu[0-4]"))->LoadJobs();
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  EXPECT_TRUE(jobs->problems.empty());
  ASSERT_EQ(jobs->jobs[0].allocation.nodes.size(), 2u);
  EXPECT_EQ(jobs->jobs[0].allocation.nodes[0].node, core::NodeId(1));
  EXPECT_EQ(jobs->jobs[0].allocation.nodes[1].node, core::NodeId(4));
}

// Migration 5 adds the columns of dependencies and begin times; a job stored by schema 4 comes
// back with none.
TEST_F(SqliteStoreTest, Schema4JobsGetNoDependenciesAndNoBeginTime) {
  core::Job job = FullJob(core::JobId(2));
  {
    std::unique_ptr<SqliteStore> store = Open();
    Mutations m;
    m.job_upserts.push_back(std::make_shared<const core::Job>(job));
    ASSERT_TRUE(store->Commit(m).ok());
  }
  Sql(absl::StrCat(kUndoSchema7, R"sql(
    ALTER TABLE jobs DROP COLUMN dependencies;
    ALTER TABLE jobs DROP COLUMN dependency_any;
    ALTER TABLE jobs DROP COLUMN kill_on_invalid_dep;
    ALTER TABLE jobs DROP COLUMN begin_time_us;
    DROP TABLE qos;
    ALTER TABLE jobs DROP COLUMN qos;
    ALTER TABLE jobs DROP COLUMN requested_qos;
    PRAGMA user_version = 4;
  )sql"));
  absl::StatusOr<StoredJobs> jobs = Open()->LoadJobs();
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->jobs.size(), 1u);
  job.spec.Mutable().dependencies.clear();
  job.spec.Mutable().dependency_any = false;
  job.spec.Mutable().kill_on_invalid_dep.reset();
  job.spec.Mutable().begin_time = absl::InfinitePast();
  job.spec.Mutable().qos.clear();
  job.qos.clear();
  job.spec.Mutable().comment.clear();
  ClearRecordedOptions(job.spec.Mutable());
  job.warn_sent = false;
  job.cancelled_by.reset();
  EXPECT_EQ(jobs->jobs[0], job);
}

// Migration 6 adds the qos table and the jobs' QOS columns: a job stored by schema 5 comes back
// with no QOS asked and none resolved, and the QOS table reads as never saved.
TEST_F(SqliteStoreTest, Schema5JobsGetNoQos) {
  core::Job job = FullJob(core::JobId(2));
  {
    std::unique_ptr<SqliteStore> store = Open();
    Mutations m;
    m.job_upserts.push_back(std::make_shared<const core::Job>(job));
    ASSERT_TRUE(store->Commit(m).ok());
  }
  Sql(absl::StrCat(kUndoSchema7, R"sql(
    DROP TABLE qos;
    ALTER TABLE jobs DROP COLUMN qos;
    ALTER TABLE jobs DROP COLUMN requested_qos;
    PRAGMA user_version = 5;
  )sql"));
  std::unique_ptr<SqliteStore> store = Open();
  absl::StatusOr<StoredJobs> jobs = store->LoadJobs();
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->jobs.size(), 1u);
  job.spec.Mutable().qos.clear();
  job.qos.clear();
  job.spec.Mutable().comment.clear();
  ClearRecordedOptions(job.spec.Mutable());
  job.warn_sent = false;
  job.cancelled_by.reset();
  EXPECT_EQ(jobs->jobs[0], job);
  absl::StatusOr<StoredAccounting> accounting = store->LoadAccounting();
  ASSERT_TRUE(accounting.ok()) << accounting.status();
  EXPECT_FALSE(accounting->qos.has_value());
}

// Migration 7 adds accounting: a job stored by schema 6 is still in memory, with no comment and
// nobody who cancelled it, and the new tables are there to write to.
TEST_F(SqliteStoreTest, Schema6JobsStayInMemoryAndGetAccountingTables) {
  core::Job job = FullJob(core::JobId(2));
  {
    std::unique_ptr<SqliteStore> store = Open();
    Mutations m;
    m.job_upserts.push_back(std::make_shared<const core::Job>(job));
    ASSERT_TRUE(store->Commit(m).ok());
  }
  Sql(absl::StrCat("BEGIN;", kUndoSchema7, R"sql(
    PRAGMA user_version = 6;
    COMMIT;
  )sql"));
  std::unique_ptr<SqliteStore> store = Open();
  absl::StatusOr<StoredJobs> jobs = store->LoadJobs();
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->jobs.size(), 1u);
  job.spec.Mutable().comment.clear();
  ClearRecordedOptions(job.spec.Mutable());
  job.warn_sent = false;
  job.cancelled_by.reset();
  EXPECT_EQ(jobs->jobs[0], job);
  core::StepRecord step;
  step.job = job.id;
  step.name = "hostname";
  Mutations m;
  m.steps.push_back(step);
  m.forget_jobs.push_back(job.id);
  ASSERT_TRUE(store->Commit(m).ok());
  EXPECT_TRUE(store->LoadJobs()->jobs.empty());
}

// A database written by the canopyd before schema 3 keeps its jobs: the store hands their
// records over for conversion and drops them once the converted jobs are committed.
TEST_F(SqliteStoreTest, Schema2RecordsAreHandedOverAndDroppedWithTheirConversion) {
  Sql(R"sql(
    CREATE TABLE node_admin (name TEXT PRIMARY KEY, drain INTEGER NOT NULL,
      admin_down INTEGER NOT NULL, reason TEXT NOT NULL, reason_time INTEGER,
      reason_user TEXT NOT NULL);
    CREATE TABLE jobs (id INTEGER PRIMARY KEY, state TEXT NOT NULL, record BLOB NOT NULL);
    CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
    INSERT INTO jobs VALUES (4, 'PENDING', x'0a0b0c');
    INSERT INTO meta VALUES ('next_job_id', 5);
    PRAGMA user_version = 2;
  )sql");
  std::unique_ptr<SqliteStore> store = Open();
  absl::StatusOr<StoredJobs> jobs = store->LoadJobs();
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  EXPECT_TRUE(jobs->jobs.empty());
  EXPECT_EQ(jobs->next_job_id, 5u);
  ASSERT_EQ(jobs->legacy.size(), 1u);
  EXPECT_EQ(jobs->legacy[0].id, 4u);
  EXPECT_EQ(jobs->legacy[0].record, "\x0a\x0b\x0c");
  Mutations m;
  m.job_upserts.push_back(std::make_shared<const core::Job>(FullJob(core::JobId(4))));
  m.drop_legacy_jobs = true;
  ASSERT_TRUE(store->Commit(m).ok());
  jobs = Open()->LoadJobs();
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  EXPECT_TRUE(jobs->legacy.empty());
  ASSERT_EQ(jobs->jobs.size(), 1u);
  EXPECT_EQ(jobs->jobs[0].id, core::JobId(4));
}

// The association tree and the ledger come back as saved; nothing saved reads as nullopt (a
// fresh controller then seeds them), and an empty tree saved stays an empty tree.
TEST_F(SqliteStoreTest, AccountingSurvivesReopen) {
  absl::StatusOr<StoredAccounting> fresh = Open()->LoadAccounting();
  ASSERT_TRUE(fresh.ok()) << fresh.status();
  EXPECT_FALSE(fresh->associations.has_value());
  EXPECT_FALSE(fresh->usage.has_value());

  fairshare::AssociationSpec vision;
  vision.account = "vision";
  vision.shares = 70;
  vision.attributes = {{"Description", "computer vision: a=b"}, {"Organization", "lab"}};
  fairshare::AssociationSpec alice;
  alice.account = "vision";
  alice.user = "alice";
  alice.shares = fairshare::kParentShares;
  UsageState usage;
  usage.ledger.as_of = absl::FromUnixSeconds(1'800'000'000);
  usage.ledger.last_reset = absl::InfinitePast();
  usage.ledger.entries = {{"nlp", "carol", 12.5}, {"vision", "alice", 3600.25}};
  usage.charged_through = absl::FromUnixSeconds(1'799'999'990);
  Mutations m;
  m.associations = std::vector<fairshare::AssociationSpec>{vision, alice};
  m.usage = usage;
  ASSERT_TRUE(Open()->Commit(m).ok());

  absl::StatusOr<StoredAccounting> back = Open()->LoadAccounting();
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_TRUE(back->associations.has_value());
  EXPECT_EQ(*back->associations, (std::vector<fairshare::AssociationSpec>{vision, alice}));
  ASSERT_TRUE(back->usage.has_value());
  EXPECT_EQ(back->usage->ledger.as_of, usage.ledger.as_of);
  EXPECT_EQ(back->usage->ledger.last_reset, absl::InfinitePast());
  EXPECT_EQ(back->usage->ledger.entries, usage.ledger.entries);
  EXPECT_EQ(back->usage->charged_through, usage.charged_through);

  Mutations empty_tree;
  empty_tree.associations = std::vector<fairshare::AssociationSpec>{};
  ASSERT_TRUE(Open()->Commit(empty_tree).ok());
  back = Open()->LoadAccounting();
  ASSERT_TRUE(back.ok() && back->associations.has_value());
  EXPECT_TRUE(back->associations->empty());
  EXPECT_TRUE(back->usage.has_value());
}

// A QOS with every field set away from its default.
limits::QosSpec FullQos() {
  limits::QosSpec q;
  q.name = "high";
  q.description = "urgent work, a=b";
  q.priority = 100;
  q.max_tres_per_user = {.gpus = 64, .cpus = 512, .nodes = -1, .mem_mib = 1024 * 1024};
  q.max_tres_per_job = {.gpus = 8, .cpus = -1, .nodes = 2, .mem_mib = -1};
  q.grp_tres = {.gpus = 128, .cpus = -1, .nodes = -1, .mem_mib = -1};
  q.max_jobs_per_user = 4;
  q.grp_jobs = 0;  // zero is a limit, not "none"
  q.max_wall = absl::Hours(48);
  q.preempt = {"low", "normal"};
  q.preempt_mode = slurm::PreemptMode::kRequeue;
  q.grace_time = absl::Seconds(30);
  return q;
}

// The QOS table comes back as saved, one typed row per QOS; a table never saved reads as
// nullopt, and an empty one saved (every QOS deleted) stays saved and empty.
TEST_F(SqliteStoreTest, QosTableSurvivesReopen) {
  absl::StatusOr<StoredAccounting> fresh = Open()->LoadAccounting();
  ASSERT_TRUE(fresh.ok()) << fresh.status();
  EXPECT_FALSE(fresh->qos.has_value());

  limits::QosSpec normal;
  normal.name = "normal";
  limits::QosSpec low;
  low.name = "low";
  low.preempt_mode = slurm::PreemptMode::kCancel;
  Mutations m;
  m.qos = std::vector<limits::QosSpec>{normal, FullQos(), low};
  ASSERT_TRUE(Open()->Commit(m).ok());
  absl::StatusOr<StoredAccounting> back = Open()->LoadAccounting();
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_TRUE(back->qos.has_value());
  // By name.
  EXPECT_EQ(*back->qos, (std::vector<limits::QosSpec>{FullQos(), low, normal}));
  EXPECT_FALSE(back->associations.has_value());

  // A commit replaces the whole table.
  Mutations replace;
  replace.qos = std::vector<limits::QosSpec>{normal};
  ASSERT_TRUE(Open()->Commit(replace).ok());
  back = Open()->LoadAccounting();
  ASSERT_TRUE(back.ok() && back->qos.has_value());
  EXPECT_EQ(*back->qos, std::vector<limits::QosSpec>{normal});

  Mutations empty;
  empty.qos = std::vector<limits::QosSpec>{};
  ASSERT_TRUE(Open()->Commit(empty).ok());
  back = Open()->LoadAccounting();
  ASSERT_TRUE(back.ok() && back->qos.has_value());
  EXPECT_TRUE(back->qos->empty());
}

TEST_F(SqliteStoreTest, AnUnreadableQosIsDataLossNamingQosAndColumn) {
  Mutations m;
  m.qos = std::vector<limits::QosSpec>{FullQos()};
  ASSERT_TRUE(Open()->Commit(m).ok());
  Sql("UPDATE qos SET preempt_mode = 'SUSPEND' WHERE name = 'high'");
  absl::StatusOr<StoredAccounting> back = Open()->LoadAccounting();
  EXPECT_EQ(back.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(back.status().message(), HasSubstr("qos row high: preempt_mode:"));
  Sql("UPDATE qos SET preempt_mode = '', grp_tres = 'gres/tpu=1' WHERE name = 'high'");
  back = Open()->LoadAccounting();
  EXPECT_EQ(back.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(back.status().message(), HasSubstr("qos row high: grp_tres: TRES 'gres/tpu'"));
}

TEST_F(SqliteStoreTest, FreshDatabaseHasNoJobs) {
  absl::StatusOr<StoredJobs> jobs = Open()->LoadJobs();
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  EXPECT_TRUE(jobs->jobs.empty());
  EXPECT_EQ(jobs->next_job_id, 0u);
  EXPECT_EQ(SqliteStore::CurrentSchemaVersion(), 12);
  // The empty schema 2 table that migration 3 renamed is gone after the first load.
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(DbPath().c_str(), &raw), SQLITE_OK);
  SqliteDb db(raw);
  absl::StatusOr<SqliteStatement> stmt =
      Prepare(db.get(), "SELECT count(*) FROM sqlite_master WHERE name = 'jobs_v2'");
  ASSERT_TRUE(stmt.ok());
  ASSERT_EQ(sqlite3_step(stmt->get()), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(stmt->get(), 0), 0);
}

TEST_F(SqliteStoreTest, RefusesDatabaseFromNewerCanopyd) {
  Open();
  Sql("PRAGMA user_version = 999");
  absl::StatusOr<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(DbPath(), topology_);
  EXPECT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(store.status().message(), HasSubstr("newer than this canopyd"));
}

TEST_F(SqliteStoreTest, GarbageFileIsDataLossNotCrash) {
  FILE* f = fopen(DbPath().c_str(), "w");
  ASSERT_NE(f, nullptr);
  fputs("this is not a database, just some text that is long enough to have a header........", f);
  fclose(f);
  absl::StatusOr<std::unique_ptr<SqliteStore>> store = SqliteStore::Open(DbPath(), topology_);
  EXPECT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kDataLoss) << store.status();
}

TEST_F(SqliteStoreTest, UnwritableDirectoryIsClearError) {
  absl::StatusOr<std::unique_ptr<SqliteStore>> store =
      SqliteStore::Open((dir_ / "no" / "such" / "dir" / "canopy.db").string(), topology_);
  EXPECT_FALSE(store.ok());
  EXPECT_THAT(store.status().message(), HasSubstr("no/such/dir/canopy.db"));
}

}  // namespace
}  // namespace canopy::persistence
