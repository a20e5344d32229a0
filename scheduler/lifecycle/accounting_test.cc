// Fair share in the lifecycle: usage charged while jobs run (not only when they end), priorities
// from fair share, accounts checked at submit, operators' changes to priorities, and the crash
// test: a controller killed between commits and restarted from its store neither loses usage
// nor counts it twice (fake clock, the store as the controller fills it).
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/lifecycle/job_lifecycle.h"
#include "scheduler/lifecycle/test_time.h"
#include "scheduler/persistence/in_memory_store.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/test_cluster.h"

namespace canopy::lifecycle {
namespace {

using core::JobState;
using ::testing::HasSubstr;

// No decay, so usage is exactly GPU-seconds; calculation every minute.
constexpr char kPolicy[] = R"yaml(
priority:
  type: priority/multifactor
  weight_fairshare: 10000
  weight_age: 100
  decay_half_life: 0
  usage_reset_period: NONE
  calc_period: 1
accounting:
  storage_enforce: associations
accounts:
  - name: vision
    fairshare: 70
    users: [alice, {name: bob, default_account: nlp}]
  - name: nlp
    fairshare: 30
    users: [bob]
)yaml";

class AccountingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::TestCluster cluster =
        testing::LoadTestCluster(absl::StrCat(testing::kTwoLeafCluster, kPolicy));
    ASSERT_NE(cluster.config, nullptr);
    config_ = cluster.config;
    topology_ = cluster.topology;
    clock_.Set(kT0);
    alice_.authenticated = true;
    alice_.uid = 1001;
    alice_.user_name = "alice";
    bob_ = alice_;
    bob_.uid = 1002;
    bob_.user_name = "bob";
    root_ = alice_;
    root_.uid = 0;
    root_.user_name = "root";
    root_.is_operator = true;
    Start();
  }

  // A controller starting from the store: accounts and usage, then the jobs; nodes register.
  void Start() {
    absl::StatusOr<std::unique_ptr<JobLifecycle>> lc =
        JobLifecycle::Create(config_, topology_, clock_);
    ASSERT_TRUE(lc.ok()) << lc.status();
    jobs_ = *std::move(lc);
    Effects e;
    ASSERT_TRUE(jobs_->RestoreAccounting(*store_.LoadAccounting(), e).ok());
    ASSERT_TRUE(jobs_->Restore(*store_.LoadJobs(), e).ok());
    Commit(e);
    for (int i = 0; i < 4; ++i) {
      state::NodeRecord n;
      n.id = core::NodeId(i);
      n.name = topology_->node_name(n.id);
      n.ever_registered = true;
      n.connected = true;
      for (int g = 0; g < 4; ++g) {
        state::GpuStatus gpu;
        gpu.index = g;
        n.registration.gpus.push_back(gpu);
      }
      Effects node;
      jobs_->NodeChanged(n, node);
      Commit(node);
    }
  }

  // What the controller saves after a batch: changed jobs, the tree, the ledger.
  void Commit(const Effects& e) {
    persistence::Mutations m;
    for (core::JobId id : e.dirty) {
      m.job_upserts.push_back(std::make_shared<const core::Job>(*jobs_->Find(id)));
    }
    m.next_job_id = jobs_->next_job_id();
    if (e.associations_changed) {
      m.associations = jobs_->AssociationsToSave();
    }
    if (e.usage_changed) {
      m.usage = jobs_->UsageToSave();
    }
    ASSERT_TRUE(store_.Commit(m).ok());
  }

  uint32_t Submit(const Caller& who, int gpus, const std::string& account = "") {
    SubmitRequest req;
    core::JobSpec& spec = req.spec.Mutable();
    spec.min_nodes = 1;
    spec.gpus_per_node = gpus;
    spec.script = "#!/bin/sh\n";
    spec.account = account;
    spec.time_limit = absl::Minutes(50);
    Effects e;
    absl::StatusOr<SubmitAnswer> r = jobs_->Submit(req, who, e);
    EXPECT_TRUE(r.ok()) << r.status();
    Commit(e);
    return r.ok() ? r->job_id.value() : 0;
  }

  void Schedule() {
    Effects e;
    jobs_->Schedule(e);
    Commit(e);
  }

  void Report(uint32_t job, JobPhase phase) {
    const core::Job& j = *jobs_->Find(core::JobId(job));
    JobReport r;
    r.job = core::JobId(job);
    r.phase = phase;
    r.run_id = j.run_id;
    Effects e;
    jobs_->JobReported(j.allocation.nodes[0].node, r, e);
    Commit(e);
  }

  // Runs every Tick due up to `t`, committing each, as the controller's loop does.
  void AdvanceTo(absl::Time t) {
    while (jobs_->NextDeadline() <= t) {
      clock_.Set(std::max(clock_.Now(), jobs_->NextDeadline()));
      Effects e;
      jobs_->Tick(e);
      Commit(e);
    }
    clock_.Set(t);
  }

  double Usage(const std::string& account, const std::string& user) {
    return jobs_->accounting().ledger().Usage(account, user, clock_.Now());
  }

  std::shared_ptr<const config::ClusterConfig> config_;
  std::shared_ptr<const topology::Topology> topology_;
  testing::FakeClock clock_;
  persistence::InMemoryStore store_;
  std::unique_ptr<JobLifecycle> jobs_;
  Caller alice_, bob_, root_;
};

TEST_F(AccountingTest, AccountsAreResolvedAndEnforcedAtSubmit) {
  EXPECT_EQ(jobs_->Find(core::JobId(Submit(alice_, 1)))->spec->account, "vision");
  EXPECT_EQ(jobs_->Find(core::JobId(Submit(bob_, 1)))->spec->account, "nlp");  // DefaultAccount
  EXPECT_EQ(jobs_->Find(core::JobId(Submit(bob_, 1, "vision")))->spec->account, "vision");
  SubmitRequest req;
  core::JobSpec& spec = req.spec.Mutable();
  spec.min_nodes = 1;
  spec.script = "#!/bin/sh\n";
  spec.account = "nlp";
  Effects e;
  absl::StatusOr<SubmitAnswer> refused = jobs_->Submit(req, alice_, e);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(refused.status().message(),
            "Batch job submission failed: Invalid account or account/partition combination "
            "specified");
  Caller stranger = alice_;
  stranger.user_name = "mallory";
  req.spec.Mutable().account.clear();
  EXPECT_EQ(jobs_->Submit(req, stranger, e).status().code(), absl::StatusCode::kInvalidArgument);
}

// A running job's usage grows at every recalculation, before the job ends.
TEST_F(AccountingTest, RunningJobsAreChargedContinuously) {
  const uint32_t id = Submit(alice_, 2);
  Schedule();
  Report(id, JobPhase::kLaunched);
  ASSERT_EQ(jobs_->Find(core::JobId(id))->state, JobState::kRunning);
  AdvanceTo(kT0 + absl::Minutes(3));
  EXPECT_DOUBLE_EQ(Usage("vision", "alice"), 2 * 180.0);
  AdvanceTo(kT0 + absl::Minutes(10));
  EXPECT_DOUBLE_EQ(Usage("vision", "alice"), 2 * 600.0);
  clock_.Set(kT0 + absl::Minutes(10) + absl::Seconds(30));
  Report(id, JobPhase::kExited);  // the charge stops when the job stops running
  EXPECT_DOUBLE_EQ(Usage("vision", "alice"), 2 * 630.0);
  AdvanceTo(kT0 + absl::Minutes(20));
  EXPECT_DOUBLE_EQ(Usage("vision", "alice"), 2 * 630.0);
  // sshare's numbers are those of the last recalculation.
  const fairshare::AssociationTree& tree = jobs_->accounting().tree();
  EXPECT_DOUBLE_EQ(jobs_->accounting().shares()[tree.FindUser("alice", "vision")].raw_usage,
                   2 * 630.0);
}

// kill -9 between commits, at any moment: after the restart every GPU-second the job ran is
// charged exactly once, as in a run without the crash.
TEST_F(AccountingTest, CrashAndRestartNeitherLosesNorDoublesUsage) {
  const uint32_t id = Submit(alice_, 4);
  Schedule();
  Report(id, JobPhase::kLaunched);
  AdvanceTo(kT0 + absl::Minutes(5) + absl::Seconds(20));  // recalculated (and saved) at 5 min
  // Crash: whatever was not committed is gone; canopyd is down for 4 minutes while the job runs.
  clock_.Set(kT0 + absl::Minutes(9) + absl::Seconds(20));
  Start();
  EXPECT_EQ(jobs_->Find(core::JobId(id))->state, JobState::kRunning);
  AdvanceTo(kT0 + absl::Minutes(12));
  Report(id, JobPhase::kExited);  // ran from T0 to T0 + 12 min
  EXPECT_DOUBLE_EQ(Usage("vision", "alice"), 4 * 720.0);
  // A crash right after the end was committed: it is not charged again.
  clock_.Set(kT0 + absl::Minutes(14));
  Start();
  AdvanceTo(kT0 + absl::Minutes(30));
  EXPECT_DOUBLE_EQ(Usage("vision", "alice"), 4 * 720.0);
  // And the stored ledger agrees.
  EXPECT_EQ(store_.LoadAccounting()->usage->ledger.entries.size(), 1u);
  EXPECT_DOUBLE_EQ(store_.LoadAccounting()->usage->ledger.entries[0].usage, 4 * 720.0);
}

// The under-served user's job goes first once fair share has seen the other's usage.
TEST_F(AccountingTest, FairShareOrdersTheQueue) {
  // Alice (vision, 70 %) used the whole cluster for 20 minutes; bob (nlp, 30 %) nothing.
  std::vector<uint32_t> hogs;
  for (int i = 0; i < 4; ++i) {
    hogs.push_back(Submit(alice_, 4));
  }
  Schedule();
  for (uint32_t id : hogs) {
    Report(id, JobPhase::kLaunched);
  }
  AdvanceTo(kT0 + absl::Minutes(20));
  const uint32_t alice_next = Submit(alice_, 4);
  clock_.Advance(absl::Seconds(1));
  const uint32_t bob_next = Submit(bob_, 4);
  AdvanceTo(kT0 + absl::Minutes(21) + absl::Seconds(30));  // a recalculation
  const core::Job& a = *jobs_->Find(core::JobId(alice_next));
  const core::Job& b = *jobs_->Find(core::JobId(bob_next));
  EXPECT_GT(b.priority, a.priority);
  // One node frees up: bob's job, submitted later, takes it.
  Report(hogs[0], JobPhase::kExited);
  Report(hogs[0], JobPhase::kCleanedUp);
  Schedule();
  EXPECT_EQ(jobs_->Find(core::JobId(bob_next))->state, JobState::kConfiguring);
  EXPECT_EQ(jobs_->Find(core::JobId(alice_next))->state, JobState::kPending);
}

TEST_F(AccountingTest, OperatorsSetPriorityUsersOnlyRaiseNice) {
  // Keep the cluster full so jobs stay pending.
  for (int i = 0; i < 4; ++i) {
    Submit(alice_, 4);
  }
  Schedule();
  const uint32_t first = Submit(alice_, 1);
  const uint32_t second = Submit(alice_, 1);
  Effects e;
  EXPECT_EQ(jobs_->SetJobPriority(core::JobId(first), 5, alice_, e).code(),
            absl::StatusCode::kPermissionDenied);
  ASSERT_TRUE(jobs_->SetJobPriority(core::JobId(first), 5, root_, e).ok());
  EXPECT_EQ(jobs_->Find(core::JobId(first))->priority, 5u);
  EXPECT_TRUE(jobs_->Find(core::JobId(first))->priority_fixed);
  AdvanceTo(kT0 + absl::Minutes(2));
  EXPECT_EQ(jobs_->Find(core::JobId(first))->priority, 5u);  // not recomputed

  const uint32_t before = jobs_->Find(core::JobId(second))->priority;
  ASSERT_TRUE(jobs_->SetJobNice(core::JobId(second), 100, alice_, e).ok());
  EXPECT_EQ(jobs_->Find(core::JobId(second))->priority, before - 100);
  EXPECT_EQ(jobs_->SetJobNice(core::JobId(second), -10, alice_, e).code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(jobs_->SetJobNice(core::JobId(second), 10, bob_, e).code(),
            absl::StatusCode::kPermissionDenied);  // not bob's job

  // Priority=0 is an admin hold.
  ASSERT_TRUE(jobs_->SetJobPriority(core::JobId(second), 0, root_, e).ok());
  EXPECT_EQ(jobs_->Find(core::JobId(second))->reason, core::JobReason::kJobHeldAdmin);
}

TEST_F(AccountingTest, TopMovesAJobBeforeTheOwnersOthers) {
  for (int i = 0; i < 4; ++i) {
    Submit(alice_, 4);
  }
  Schedule();
  const uint32_t a = Submit(alice_, 1);
  clock_.Advance(absl::Minutes(1));
  const uint32_t b = Submit(alice_, 1);
  AdvanceTo(kT0 + absl::Minutes(3));
  ASSERT_GE(jobs_->Find(core::JobId(a))->priority, jobs_->Find(core::JobId(b))->priority);
  Effects e;
  EXPECT_EQ(jobs_->TopJob(core::JobId(b), alice_, e).code(), absl::StatusCode::kPermissionDenied);
  ASSERT_TRUE(jobs_->TopJob(core::JobId(b), root_, e).ok());
  EXPECT_GT(jobs_->Find(core::JobId(b))->priority, jobs_->Find(core::JobId(a))->priority);
  AdvanceTo(kT0 + absl::Minutes(10));  // the order survives recomputation
  EXPECT_GT(jobs_->Find(core::JobId(b))->priority, jobs_->Find(core::JobId(a))->priority);
}

TEST_F(AccountingTest, AssociationsChangeOnlyByOperatorsAndPersist) {
  absl::StatusOr<fairshare::AssociationTree> tree = fairshare::AssociationTree::Build({});
  ASSERT_TRUE(tree.ok());
  Effects e;
  EXPECT_EQ(jobs_->SetAssociations(*tree, alice_, e).code(), absl::StatusCode::kPermissionDenied);
  ASSERT_TRUE(jobs_->SetAssociations(*tree, root_, e).ok());
  EXPECT_TRUE(e.associations_changed);
  Commit(e);
  // The stored (empty) tree wins over the config's accounts at the next start.
  Start();
  EXPECT_EQ(jobs_->accounting().tree().size(), 1u);
}

// sbatch --test-only: when and where a job would start, nothing queued.
TEST_F(AccountingTest, TestSubmitAnswersWithoutQueueing) {
  // Three whole nodes busy for 50 minutes; one node free.
  for (int i = 0; i < 3; ++i) {
    const uint32_t id = Submit(alice_, 4);
    Schedule();
    Report(id, JobPhase::kLaunched);
  }
  const uint32_t next = jobs_->next_job_id();
  SubmitRequest req;
  core::JobSpec& spec = req.spec.Mutable();
  spec.min_nodes = 1;
  spec.gpus_per_node = 4;
  spec.script = "#!/bin/sh\n";
  spec.time_limit = absl::Minutes(10);
  absl::StatusOr<WillRunAnswer> now = jobs_->TestSubmit(req, alice_);
  ASSERT_TRUE(now.ok()) << now.status();
  EXPECT_EQ(now->job, core::JobId(next));
  EXPECT_EQ(now->start, clock_.Now());
  ASSERT_EQ(now->nodes.size(), 1u);
  EXPECT_EQ(now->partition, "gpu");
  req.spec.Mutable().min_nodes = 2;
  absl::StatusOr<WillRunAnswer> later = jobs_->TestSubmit(req, alice_);
  ASSERT_TRUE(later.ok()) << later.status();
  EXPECT_GE(later->start, clock_.Now() + absl::Minutes(50));
  EXPECT_LE(later->start, clock_.Now() + absl::Minutes(51));  // bf_resolution: 60 s
  EXPECT_EQ(later->nodes.size(), 2u);
  EXPECT_EQ(jobs_->next_job_id(), next);
  EXPECT_EQ(jobs_->pending_count(), 0u);
  req.spec.Mutable().account = "nlp";  // not alice's
  EXPECT_EQ(jobs_->TestSubmit(req, alice_).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace canopy::lifecycle
