// The controller's owner loop with a fake clock and an in-memory store: answers only after a
// commit, refuses what could not be stored, marks silent nodes down by the (fake) clock.
#include "scheduler/server/controller.h"

#include <future>
#include <optional>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/persistence/in_memory_store.h"
#include "scheduler/topology/load_topology.h"
#include "tests/testing/fake_clock.h"

namespace canopy::server {
namespace {

using ::testing::ElementsAre;

// Captures what the controller sends down a stream.
class RecordingSink final : public AgentStreamSink {
 public:
  void Send(canopy::v1::ControllerMessage) override { ++sent; }
  void Close(grpc::Status status) override { closed_with = status.error_code(); }
  int sent = 0;
  grpc::StatusCode closed_with = grpc::StatusCode::OK;
};

class ControllerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto config = std::make_shared<config::ClusterConfig>();
    config->node_timeout = absl::Seconds(10);
    for (const char* name : {"n1", "n2"}) {
      config::NodeConfig n;
      n.name = name;
      n.cpus = 4;
      config->nodes.push_back(n);
    }
    config::PartitionConfig batch;
    batch.name = "batch";
    batch.nodes = {"n1", "n2"};
    batch.is_default = true;
    config->partitions.push_back(batch);
    auto store = std::make_unique<persistence::InMemoryStore>();
    store_ = store.get();
    absl::StatusOr<topology::Topology> topo = topology::LoadTopology(*config);
    ASSERT_TRUE(topo.ok()) << topo.status();
    auto controller = Controller::Create(
        config, std::make_shared<topology::Topology>(*std::move(topo)), std::move(store), &clock_);
    ASSERT_TRUE(controller.ok()) << controller.status();
    controller_ = *std::move(controller);
    controller_->Start();
  }
  void TearDown() override { controller_->Stop(); }

  // Registers `name` on a new stream and waits until the controller accepted it.
  std::shared_ptr<AgentOutbox> Register(const std::string& name, RecordingSink* sink) {
    auto outbox = std::make_shared<AgentOutbox>(sink);
    std::promise<absl::StatusOr<Controller::Registered>> done;
    state::NodeRegistration reg;
    reg.cpus = 4;
    controller_->AgentRegistered(
        name, reg, {}, outbox,
        [&](absl::StatusOr<Controller::Registered> r) { done.set_value(std::move(r)); });
    EXPECT_TRUE(done.get_future().get().ok());
    return outbox;
  }

  const state::NodeRecord& Node(int i) { return (*controller_->Snapshot()->nodes)[i]; }

  // Stops the controller and starts a new one, of the same config, on `store`; it answers
  // DEADLINE_EXCEEDED after `answer_timeout` when one is given.
  void RestartOn(std::unique_ptr<persistence::InMemoryStore> store,
                 std::optional<absl::Duration> answer_timeout = std::nullopt) {
    controller_->Stop();
    store_ = store.get();
    auto config = std::make_shared<config::ClusterConfig>(controller_->config());
    absl::StatusOr<topology::Topology> topo = topology::LoadTopology(*config);
    ASSERT_TRUE(topo.ok());
    auto controller = Controller::Create(
        config, std::make_shared<topology::Topology>(*std::move(topo)), std::move(store), &clock_);
    ASSERT_TRUE(controller.ok()) << controller.status();
    controller_ = *std::move(controller);
    if (answer_timeout.has_value()) {
      controller_->set_answer_timeout(*answer_timeout);
    }
    controller_->Start();
  }
  // A new controller on a new in-memory store that answers DEADLINE_EXCEEDED after `timeout`.
  void RestartWithAnswerTimeout(absl::Duration timeout) {
    RestartOn(std::make_unique<persistence::InMemoryStore>(), timeout);
  }

  // Makes the database fail, submits a job, and returns once its commit has failed at least once;
  // the future is the submitter's answer.
  std::future<absl::StatusOr<lifecycle::SubmitAnswer>> SubmitWhileTheDatabaseFails() {
    store_->FailCommitsWith(absl::ResourceExhaustedError("disk full"));
    auto answer = std::make_shared<std::promise<absl::StatusOr<lifecycle::SubmitAnswer>>>();
    std::future<absl::StatusOr<lifecycle::SubmitAnswer>> future = answer->get_future();
    controller_->SubmitJob(
        OneNodeJob(), Alice(),
        [answer](absl::StatusOr<lifecycle::SubmitAnswer> r) { answer->set_value(std::move(r)); });
    for (int i = 0; i < 500 && store_->failed_commits() == 0; ++i) {
      absl::SleepFor(absl::Milliseconds(10));
    }
    EXPECT_GE(store_->failed_commits(), 1) << "the commit never failed";
    return future;
  }

  static lifecycle::SubmitRequest OneNodeJob() {
    lifecycle::SubmitRequest req;
    req.spec.Mutable().min_nodes = 1;
    req.spec.Mutable().script = "#!/bin/sh\ntrue\n";
    return req;
  }
  static lifecycle::Caller Alice() {
    lifecycle::Caller alice;
    alice.authenticated = true;
    alice.uid = 1000;
    alice.gid = 1000;
    alice.user_name = "alice";
    alice.via = "unix socket";
    return alice;
  }

  // Sinks outlive the controller: it closes every stream it still holds when it stops.
  RecordingSink first_, second_;
  canopy::testing::FakeClock clock_;
  persistence::InMemoryStore* store_ = nullptr;
  std::unique_ptr<Controller> controller_;
};

TEST_F(ControllerTest, DrainIsAnsweredOnlyAfterItIsStored) {
  Register("n1", &first_);
  const int before = store_->commits();
  absl::StatusOr<std::vector<std::string>> changed =
      controller_->UpdateNodes({"n1"}, state::NodeAdminAction::kDrain, "bad fan", "root");
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_THAT(*changed, ElementsAre("n1"));
  EXPECT_EQ(store_->commits(), before + 1);
  absl::StatusOr<std::vector<persistence::NodeAdminRow>> rows = store_->LoadNodeAdminState();
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_TRUE((*rows)[0].drain);
  EXPECT_EQ((*rows)[0].reason, "bad fan");
  EXPECT_TRUE(Node(0).drain) << "the snapshot shows it once acknowledged";
}

TEST_F(ControllerTest, AnswerWaitsUntilTheChangeIsSaved) {
  // An answered command first: whatever the start-up batch saves is committed by then, so only
  // this test's change is left to count.
  Register("n1", &first_);
  const int before = store_->commits();
  store_->FailCommitsWith(absl::ResourceExhaustedError("disk full"));
  std::future<absl::StatusOr<std::vector<std::string>>> changed =
      std::async(std::launch::async, [&] {
        return controller_->UpdateNodes({"n2"}, state::NodeAdminAction::kDown, "rma", "root");
      });
  // Not acknowledged while the database refuses it...
  EXPECT_EQ(changed.wait_for(std::chrono::milliseconds(700)), std::future_status::timeout);
  EXPECT_EQ(store_->commits(), before);
  // ... and acknowledged, and saved, once it accepts it again.
  store_->FailCommitsWith(absl::OkStatus());
  absl::StatusOr<std::vector<std::string>> result = changed.get();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_THAT(*result, ElementsAre("n2"));
  absl::StatusOr<std::vector<persistence::NodeAdminRow>> rows = store_->LoadNodeAdminState();
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_TRUE((*rows)[0].admin_down);
}

// A database that keeps failing must not hold an RPC thread forever (it did: the caller waited
// for a commit that never came). The caller hears DEADLINE_EXCEEDED; the change is kept and
// saved once the database accepts it.
TEST_F(ControllerTest, AnAnswerThatCannotBeSavedTimesOutAndTheChangeIsSavedLater) {
  RestartWithAnswerTimeout(absl::Milliseconds(300));
  Register("n1", &first_);

  store_->FailCommitsWith(absl::ResourceExhaustedError("disk full"));
  absl::StatusOr<std::vector<std::string>> result =
      controller_->UpdateNodes({"n2"}, state::NodeAdminAction::kDown, "rma", "root");
  EXPECT_EQ(result.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(result.status().message(), ::testing::HasSubstr("canopyd keeps the request"));
  store_->FailCommitsWith(absl::OkStatus());
  // Saved with the next commit that succeeds (any command wakes the owner).
  ASSERT_TRUE(controller_->UpdateNodes({"n1"}, state::NodeAdminAction::kResume, "", "root").ok());
  absl::StatusOr<std::vector<persistence::NodeAdminRow>> rows = store_->LoadNodeAdminState();
  ASSERT_TRUE(rows.ok());
  bool n2_down = false;
  for (const persistence::NodeAdminRow& row : *rows) {
    n2_down = n2_down || (row.name == "n2" && row.admin_down);
  }
  EXPECT_TRUE(n2_down);
}

// A submission waits for its commit without a thread of its own (gRPC's callback handlers):
// the owner thread answers it once the job is saved, or with DEADLINE_EXCEEDED at the answer
// timeout while the database keeps failing; the job is saved once the database accepts it.
TEST_F(ControllerTest, ACallbackSubmissionIsAnsweredAfterItsCommitOrAtItsDeadline) {
  RestartWithAnswerTimeout(absl::Milliseconds(300));
  std::promise<absl::StatusOr<lifecycle::SubmitAnswer>> saved;
  controller_->SubmitJob(OneNodeJob(), Alice(), [&](absl::StatusOr<lifecycle::SubmitAnswer> r) {
    saved.set_value(std::move(r));
  });
  absl::StatusOr<lifecycle::SubmitAnswer> first = saved.get_future().get();
  ASSERT_TRUE(first.ok()) << first.status();
  absl::StatusOr<persistence::StoredJobs> stored = store_->LoadJobs();
  ASSERT_TRUE(stored.ok());
  ASSERT_EQ(stored->jobs.size(), 1u);  // in the store before the answer
  EXPECT_EQ(stored->jobs[0].id, first->job_id);

  store_->FailCommitsWith(absl::ResourceExhaustedError("disk full"));
  std::promise<absl::StatusOr<lifecycle::SubmitAnswer>> timed_out;
  const absl::Time asked = absl::Now();
  controller_->SubmitJob(OneNodeJob(), Alice(), [&](absl::StatusOr<lifecycle::SubmitAnswer> r) {
    timed_out.set_value(std::move(r));
  });
  std::future<absl::StatusOr<lifecycle::SubmitAnswer>> answer = timed_out.get_future();
  ASSERT_EQ(answer.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_GE(absl::Now() - asked, absl::Milliseconds(300));
  absl::StatusOr<lifecycle::SubmitAnswer> second = answer.get();
  EXPECT_EQ(second.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(second.status().message(), ::testing::HasSubstr("canopyd keeps the request"));

  store_->FailCommitsWith(absl::OkStatus());
  ASSERT_TRUE(controller_->UpdateNodes({"n1"}, state::NodeAdminAction::kResume, "", "root").ok());
  stored = store_->LoadJobs();
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->jobs.size(), 2u);
}

// Stopping right after a failed commit still tries once more: a database that is back saves
// the change, and its caller hears so. Before, a failure under 500 ms before Stop() dropped
// everything kept since as "the database kept failing".
TEST_F(ControllerTest, StopRightAfterAFailedCommitStillSavesWhatWaits) {
  std::future<absl::StatusOr<lifecycle::SubmitAnswer>> saved = SubmitWhileTheDatabaseFails();
  store_->FailCommitsWith(absl::OkStatus());
  controller_->Stop();
  absl::StatusOr<lifecycle::SubmitAnswer> answer = saved.get();
  ASSERT_TRUE(answer.ok()) << answer.status();
  absl::StatusOr<persistence::StoredJobs> stored = store_->LoadJobs();
  ASSERT_TRUE(stored.ok());
  ASSERT_EQ(stored->jobs.size(), 1u);
  EXPECT_EQ(stored->jobs[0].id, answer->job_id);
}

// An agent is told it is registered only once what its registration changed is saved; when
// canopyd stops with the database still failing, the agent hears the error instead.
TEST_F(ControllerTest, ARegistrationNeverSavedIsNotAcknowledged) {
  std::future<absl::StatusOr<lifecycle::SubmitAnswer>> submitted = SubmitWhileTheDatabaseFails();
  auto outbox = std::make_shared<AgentOutbox>(&first_);
  state::NodeRegistration reg;
  reg.cpus = 4;
  std::promise<absl::StatusOr<Controller::Registered>> registered;
  controller_->AgentRegistered(
      "n1", reg, {}, outbox,
      [&](absl::StatusOr<Controller::Registered> r) { registered.set_value(std::move(r)); });
  std::future<absl::StatusOr<Controller::Registered>> answer = registered.get_future();
  // Waits for the commit that would save it, which the database refuses.
  EXPECT_EQ(answer.wait_for(std::chrono::milliseconds(300)), std::future_status::timeout);
  controller_->Stop();
  EXPECT_EQ(answer.get().status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(submitted.get().status().code(), absl::StatusCode::kUnavailable);
}

// The first pass is a backfill pass, planned on the planner thread and applied by the owner.
// Starting a job republishes what jobs hold on nodes, not the node records themselves.
TEST_F(ControllerTest, AJobStartedByThePlannedBackfillPassShowsInTheNodesUseOnly) {
  Register("n1", &first_);
  Register("n2", &second_);
  const std::shared_ptr<const std::vector<state::NodeRecord>> records =
      controller_->Snapshot()->nodes;
  std::promise<absl::StatusOr<lifecycle::SubmitAnswer>> saved;
  controller_->SubmitJob(OneNodeJob(), Alice(), [&](absl::StatusOr<lifecycle::SubmitAnswer> r) {
    saved.set_value(std::move(r));
  });
  absl::StatusOr<lifecycle::SubmitAnswer> answer = saved.get_future().get();
  ASSERT_TRUE(answer.ok()) << answer.status();
  std::shared_ptr<const ClusterSnapshot> snap = controller_->Snapshot();
  for (int i = 0; i < 100; ++i) {
    const core::Job* job = snap->FindJob(answer->job_id.value());
    if (job != nullptr && job->state == core::JobState::kConfiguring) {
      break;
    }
    clock_.Advance(absl::Seconds(1));  // past the gap between passes, by the fake clock
    ASSERT_TRUE(controller_->OwnerResponds(absl::Seconds(5)));  // wakes the owner to see it
    snap = controller_->NextSnapshot(snap.get(), absl::Milliseconds(50));
  }
  const core::Job* job = snap->FindJob(answer->job_id.value());
  ASSERT_NE(job, nullptr);
  ASSERT_EQ(job->state, core::JobState::kConfiguring);
  const core::NodeId node = job->allocation.nodes.at(0).node;
  EXPECT_EQ(snap->UseOf(node).cpus, job->allocation.nodes[0].cpus);
  EXPECT_NE((*snap->nodes)[node.value()].BaseState(snap->UseOf(node)), state::NodeBaseState::kIdle);
  EXPECT_EQ(snap->nodes, records) << "the node records were copied for a job's start";
}

// A submission that canopyd refuses is answered at once, without a commit; one posted after
// Stop() hears UNAVAILABLE on the caller's thread.
TEST_F(ControllerTest, ACallbackSubmissionIsRefusedAtOnceOrWhenStopped) {
  lifecycle::SubmitRequest nowhere = OneNodeJob();
  nowhere.spec.Mutable().partition = "nosuch";
  std::promise<absl::StatusOr<lifecycle::SubmitAnswer>> refused;
  controller_->SubmitJob(nowhere, Alice(), [&](absl::StatusOr<lifecycle::SubmitAnswer> r) {
    refused.set_value(std::move(r));
  });
  EXPECT_FALSE(refused.get_future().get().ok());

  controller_->Stop();
  absl::StatusOr<lifecycle::SubmitAnswer> late = absl::UnknownError("not answered");
  controller_->SubmitJob(OneNodeJob(), Alice(),
                         [&](absl::StatusOr<lifecycle::SubmitAnswer> r) { late = std::move(r); });
  EXPECT_EQ(late.status().code(), absl::StatusCode::kUnavailable);
}

// A step the restore closes (its job is not running any more) is closed in the database too:
// otherwise its row stays open for good, and sacct shows the step RUNNING once the job has left
// the controller's memory.
TEST_F(ControllerTest, AStepClosedByTheRestoreIsSaved) {
  // What canopyd had saved when it died: job 1 COMPLETING on n1 (its script ended), with its
  // srun step 0 started and not ended.
  auto store = std::make_unique<persistence::InMemoryStore>();
  core::Job job;
  job.id = core::JobId(1);
  job.spec.Mutable().script = "#!/bin/sh\nsrun true\n";
  job.spec.Mutable().min_nodes = 1;
  job.user_id = 1000;
  job.group_id = 1000;
  job.user_name = "alice";
  job.partition = "batch";
  job.state = core::JobState::kCompleting;
  job.completing_to = core::JobState::kCompleted;
  job.run_id = 1;
  job.submit_time = clock_.Now() - absl::Minutes(10);
  job.start_time = clock_.Now() - absl::Minutes(9);
  core::NodeShare share;
  share.node = core::NodeId(0);
  share.cpus = 1;
  job.allocation.nodes.push_back(share);
  core::StepRecord step;
  step.job = job.id;
  step.step_id = 0;
  step.name = "true";
  step.start_time = clock_.Now() - absl::Minutes(8);
  step.nodes = {core::NodeId(0)};
  step.ntasks = 1;
  step.cpus = 1;
  step.tasks_per_node = {1};
  persistence::Mutations before;
  before.job_upserts.push_back(std::make_shared<const core::Job>(job));
  before.steps.push_back(step);
  before.next_job_id = 2;
  ASSERT_TRUE(store->Commit(before).ok());
  ASSERT_EQ(store->LoadJobs()->open_steps.size(), 1u);
  RestartOn(std::move(store));

  // Something to commit.
  std::promise<absl::StatusOr<lifecycle::SubmitAnswer>> submitted;
  controller_->SubmitJob(OneNodeJob(), Alice(), [&](absl::StatusOr<lifecycle::SubmitAnswer> r) {
    submitted.set_value(std::move(r));
  });
  ASSERT_TRUE(submitted.get_future().get().ok());
  absl::StatusOr<persistence::StoredJobs> after = store_->LoadJobs();
  ASSERT_TRUE(after.ok());
  EXPECT_TRUE(after->open_steps.empty())
      << "the step the restore closed is still open in the store";
}

TEST_F(ControllerTest, UnknownNodeIsRefusedAndItsStreamClosed) {
  auto outbox = std::make_shared<AgentOutbox>(&first_);
  std::promise<absl::StatusOr<Controller::Registered>> done;
  controller_->AgentRegistered("n9", {}, {}, outbox, [&](absl::StatusOr<Controller::Registered> r) {
    done.set_value(std::move(r));
  });
  EXPECT_EQ(done.get_future().get().status().code(), absl::StatusCode::kNotFound);
}

TEST_F(ControllerTest, SilentNodeGoesDownByTheControllersClockAndReplacedStreamIsIgnored) {
  auto old_stream = Register("n1", &first_);
  Register("n1", &second_);  // the agent reconnected: the old stream is closed
  EXPECT_EQ(first_.closed_with, grpc::StatusCode::ABORTED);
  // The old stream ending later must not mark the node down.
  controller_->AgentStreamClosed(old_stream);
  Register("n2", &first_);

  clock_.Advance(absl::Seconds(11));
  // Any command wakes the owner; its tick then sees both nodes silent for 11 s.
  ASSERT_TRUE(controller_->UpdateNodes({"n2"}, state::NodeAdminAction::kResume, "", "root").ok());
  EXPECT_TRUE(Node(0).not_responding);
  EXPECT_EQ(Node(0).reason, "Not responding");
  // Its stream, still open, is closed: it must register again (and say what it still runs).
  EXPECT_EQ(second_.closed_with, grpc::StatusCode::UNAVAILABLE);

  Register("n1", &second_);
  EXPECT_FALSE(Node(0).not_responding);
  EXPECT_EQ(Node(0).BaseState(controller_->Snapshot()->UseOf(core::NodeId(0))),
            state::NodeBaseState::kIdle);
}

TEST_F(ControllerTest, CommandsAfterStopAreRefusedNotLeftWaiting) {
  controller_->Stop();
  absl::StatusOr<std::vector<std::string>> changed =
      controller_->UpdateNodes({"n1"}, state::NodeAdminAction::kDrain, "x", "root");
  EXPECT_EQ(changed.status().code(), absl::StatusCode::kUnavailable);
}

// sacctmgr add/modify qos: answered once the whole table is in the store, readable from the
// next snapshot; only operators may change it, and a refused change saves nothing.
TEST_F(ControllerTest, QosChangesAreStoredWholeAndPublished) {
  lifecycle::Caller root;
  root.authenticated = true;
  root.is_operator = true;
  root.user_name = "root";
  absl::StatusOr<std::vector<std::string>> changed = controller_->UpdateQos(
      QosEdit::kAdd, {"high"}, {{"Priority", "100"}, {"Preempt", "normal"}}, root);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_THAT(*changed, ElementsAre("high"));
  absl::StatusOr<persistence::StoredAccounting> stored = store_->LoadAccounting();
  ASSERT_TRUE(stored.ok() && stored->qos.has_value());
  ASSERT_EQ(stored->qos->size(), 2u);
  EXPECT_EQ((*stored->qos)[0].name, "normal");
  EXPECT_EQ((*stored->qos)[1].name, "high");
  EXPECT_EQ((*stored->qos)[1].priority, 100u);
  const limits::QosSpec* high = controller_->Snapshot()->accounting->qos().Find("high");
  ASSERT_NE(high, nullptr);
  EXPECT_EQ(high->preempt, std::vector<std::string>{"normal"});

  changed = controller_->UpdateQos(QosEdit::kModify, {"high"}, {{"MaxWall", "soon"}}, root);
  EXPECT_EQ(changed.status().code(), absl::StatusCode::kInvalidArgument);
  lifecycle::Caller alice;
  alice.authenticated = true;
  alice.user_name = "alice";
  changed = controller_->UpdateQos(QosEdit::kDelete, {"high"}, {}, alice);
  EXPECT_EQ(changed.status().code(), absl::StatusCode::kPermissionDenied);
  stored = store_->LoadAccounting();
  ASSERT_TRUE(stored.ok() && stored->qos.has_value());
  EXPECT_EQ(stored->qos->size(), 2u);
  EXPECT_NE(controller_->Snapshot()->accounting->qos().Find("high"), nullptr);
}

// A store whose database was written by schema 2: it hands over serialised canopy.v1.Job
// records, and remembers whether a commit dropped them.
class Schema2Store final : public persistence::Store {
 public:
  explicit Schema2Store(std::vector<persistence::LegacyJobRecord> legacy)
      : legacy_(std::move(legacy)) {}
  absl::Status Commit(const persistence::Mutations& m) override {
    if (m.drop_legacy_jobs) {
      legacy_.clear();
      ++drops;
    }
    for (const auto& job : m.job_upserts) {
      saved.push_back(*job);
    }
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<persistence::NodeAdminRow>> LoadNodeAdminState() override {
    return std::vector<persistence::NodeAdminRow>();
  }
  absl::StatusOr<persistence::StoredAccounting> LoadAccounting() override {
    return persistence::StoredAccounting();
  }
  absl::StatusOr<persistence::StoredJobs> LoadJobs() override {
    persistence::StoredJobs stored;
    stored.legacy = legacy_;
    stored.next_job_id = 8;
    return stored;
  }
  std::vector<core::Job> saved;
  int drops = 0;

 private:
  std::vector<persistence::LegacyJobRecord> legacy_;
};

TEST(ControllerUpgradeTest, Schema2JobsAreConvertedSavedOnceAndKept) {
  absl::StatusOr<config::ClusterConfig> cfg = config::ParseCanopyYaml(R"yaml(
cluster_name: test
nodes:
  - names: n[1-2]
    cpus: 4
partitions:
  - name: batch
    nodes: ALL
    default: true
)yaml",
                                                                      "test.yaml");
  ASSERT_TRUE(cfg.ok()) << cfg.status();
  auto config = std::make_shared<const config::ClusterConfig>(*std::move(cfg));
  absl::StatusOr<topology::Topology> topo = topology::LoadTopology(*config);
  ASSERT_TRUE(topo.ok()) << topo.status();
  canopy::v1::Job pending;
  pending.set_job_id(7);
  pending.set_state(canopy::v1::JOB_STATE_PENDING);
  pending.set_reason("Resources");
  pending.set_user_name("alice");
  pending.set_partition("batch");
  pending.mutable_spec()->set_script("#!/bin/sh\n");
  pending.mutable_spec()->set_requeue(true);
  canopy::v1::Job done = pending;
  done.set_job_id(3);
  done.set_state(canopy::v1::JOB_STATE_COMPLETED);
  done.add_nodes("n2");
  done.add_gpus_per_node_allocated(0);
  done.add_cpus_allocated(1);
  done.add_mem_allocated_mib(0);
  auto store = std::make_unique<Schema2Store>(std::vector<persistence::LegacyJobRecord>{
      {3, done.SerializeAsString()}, {7, pending.SerializeAsString()}});
  Schema2Store* raw = store.get();
  canopy::testing::FakeClock clock;
  absl::StatusOr<std::unique_ptr<Controller>> controller = Controller::Create(
      config, std::make_shared<topology::Topology>(*std::move(topo)), std::move(store), &clock);
  ASSERT_TRUE(controller.ok()) << controller.status();
  // Readers see the converted jobs at once.
  const std::shared_ptr<const ClusterSnapshot> snap = (*controller)->Snapshot();
  ASSERT_NE(snap->FindJob(7), nullptr);
  EXPECT_EQ(snap->FindJob(7)->state, core::JobState::kPending);
  ASSERT_NE(snap->FindJob(3), nullptr);
  EXPECT_EQ(snap->FindJob(3)->allocation.nodes.size(), 1u);  // where it ran
  (*controller)->Start();
  (*controller)->Stop();  // the first batch commits what the restore changed
  EXPECT_EQ(raw->drops, 1);
  ASSERT_EQ(raw->saved.size(), 2u);
  EXPECT_EQ(raw->saved[0].id, core::JobId(3));
  EXPECT_EQ(raw->saved[1].id, core::JobId(7));
  EXPECT_EQ(raw->saved[1].user_name, "alice");
}

}  // namespace
}  // namespace canopy::server
