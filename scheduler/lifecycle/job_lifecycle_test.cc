// The job lifecycle as a state machine driven by events, with no I/O: submit, gang launch with
// confirmation, exits and cleanup, limits, cancel, node loss, arrays, steps, restart recovery.
#include "scheduler/lifecycle/job_lifecycle.h"

#include "absl/strings/str_cat.h"
#include "common/rpc/status_convert.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/lifecycle/array_spec.h"
#include "scheduler/lifecycle/step_layout.h"
#include "scheduler/topology/load_topology.h"

namespace canopy::lifecycle {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using V1 = canopy::v1::JobStatus;

constexpr char kCluster[] = R"yaml(
cluster_name: test
kill_wait: 5s
launch_timeout: 10s
nodes:
  - names: gpu[1-4]
    cpus: 8
    memory_mib: 1000
    gpus: {type: h100, count: 4}
partitions:
  - name: gpu
    nodes: ALL
    default: true
    max_time: "1:00:00"
  - name: tiny
    nodes: gpu1
topology_plugin: topology/tree
topology:
  switches:
    - name: leaf1
      nodes: gpu[1-2]
    - name: leaf2
      nodes: gpu[3-4]
    - name: spine
      switches: leaf[1-2]
)yaml";

const absl::Time kT0 = absl::FromUnixSeconds(1'800'000'000);

class JobLifecycleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<config::ClusterConfig> cfg = config::ParseCanopyYaml(kCluster, "test.yaml");
    ASSERT_TRUE(cfg.ok()) << cfg.status();
    config_ = std::make_shared<const config::ClusterConfig>(*std::move(cfg));
    absl::StatusOr<topology::Topology> topo = topology::LoadTopology(*config_);
    ASSERT_TRUE(topo.ok()) << topo.status();
    topology_ = std::make_shared<const topology::Topology>(*std::move(topo));
    Reset();
    alice_.authenticated = true;
    alice_.uid = 1001;
    alice_.gid = 1001;
    alice_.user_name = "alice";
    bob_ = alice_;
    bob_.uid = 1002;
    bob_.user_name = "bob";
  }

  void Reset() {
    absl::StatusOr<std::unique_ptr<JobLifecycle>> lc = JobLifecycle::Create(config_, topology_);
    ASSERT_TRUE(lc.ok()) << lc.status();
    jobs_ = *std::move(lc);
  }

  state::NodeRecord Node(int i, bool up = true) {
    state::NodeRecord n;
    n.id = core::NodeId(i);
    n.name = topology_->node_name(n.id);
    n.ever_registered = true;
    n.connected = up;
    n.not_responding = !up;
    for (int g = 0; g < 4; ++g) {
      state::GpuStatus gpu;
      gpu.index = g;
      n.registration.gpus.push_back(gpu);
    }
    return n;
  }

  void AllNodesUp() {
    Effects e;
    for (int i = 0; i < 4; ++i) {
      jobs_->NodeChanged(Node(i), now_, e);
    }
  }

  uint32_t Submit(int nodes, int gpus, const std::string& script = "#!/bin/sh\ntrue\n",
                  const Caller* who = nullptr) {
    canopy::v1::SubmitJobRequest req;
    req.mutable_spec()->set_min_nodes(nodes);
    req.mutable_spec()->set_gpus_per_node(gpus);
    req.mutable_spec()->set_script(script);
    req.mutable_spec()->set_requeue(true);
    Effects e;
    absl::StatusOr<canopy::v1::SubmitJobResponse> r =
        jobs_->Submit(req, who ? *who : alice_, now_, e);
    EXPECT_TRUE(r.ok()) << r.status();
    Commit(e);
    return r.ok() ? r->job_id() : 0;
  }

  // What the controller does after each batch: publish the dirty records.
  void Commit(Effects& e) {
    rows_ = jobs_->Publish(e.dirty);
    all_rows_.insert(all_rows_.end(), rows_.begin(), rows_.end());
  }

  Effects Schedule() {
    Effects e;
    jobs_->Schedule(now_, e);
    Commit(e);
    return e;
  }

  Effects Report(int node, uint32_t job, V1::Phase phase, int exit_code = 0, int signal = 0,
                 uint32_t run_id = 0) {
    canopy::v1::JobStatus st;
    st.set_run_id(run_id);
    st.set_job_id(job);
    st.set_phase(phase);
    st.set_exit_code(exit_code);
    st.set_exit_signal(signal);
    Effects e;
    jobs_->JobStatus(core::NodeId(node), st, now_, e);
    Commit(e);
    return e;
  }

  const canopy::v1::Job& Job(uint32_t id) {
    Effects e;
    e.dirty.insert(core::JobId(id));
    Commit(e);
    return *jobs_->published().at(id);
  }

  // Nodes a list of messages of one kind goes to.
  static std::vector<int> Targets(const Effects& e,
                                  canopy::v1::ControllerMessage::PayloadCase kind) {
    std::vector<int> out;
    for (const OutgoingMessage& m : e.messages) {
      if (m.message.payload_case() == kind) {
        out.push_back(m.node.value());
      }
    }
    return out;
  }

  // Starts a 2-node job and confirms it: RUNNING on gpu1, gpu2.
  uint32_t StartRunning(int nodes = 2) {
    AllNodesUp();
    const uint32_t id = Submit(nodes, 4);
    Schedule();
    for (int i = 0; i < nodes; ++i) {
      Report(i, id, V1::PHASE_LAUNCHED);
    }
    EXPECT_EQ(Job(id).state(), canopy::v1::JOB_STATE_RUNNING);
    return id;
  }

  std::shared_ptr<const config::ClusterConfig> config_;
  std::shared_ptr<const topology::Topology> topology_;
  std::unique_ptr<JobLifecycle> jobs_;
  Caller alice_, bob_;
  absl::Time now_ = kT0;
  std::vector<persistence::JobRow> rows_, all_rows_;
};

TEST_F(JobLifecycleTest, GangLaunchConfirmExitCleanupComplete) {
  AllNodesUp();
  const uint32_t id = Submit(2, 4);
  EXPECT_EQ(id, 1u);
  EXPECT_EQ(Job(id).state(), canopy::v1::JOB_STATE_PENDING);
  EXPECT_EQ(Job(id).user_name(), "alice");
  EXPECT_EQ(Job(id).partition(), "gpu");
  EXPECT_EQ(rpc::FromProtoDuration(Job(id).time_limit()), absl::Hours(1));  // partition MaxTime

  Effects e = Schedule();
  EXPECT_EQ(Job(id).state(), canopy::v1::JOB_STATE_CONFIGURING);
  EXPECT_THAT(Job(id).nodes(), ElementsAre("gpu1", "gpu2"));  // one leaf, as placement wants
  EXPECT_THAT(Job(id).leaf_switches(), ElementsAre("leaf1"));
  ASSERT_THAT(Targets(e, canopy::v1::ControllerMessage::kLaunchJob), ElementsAre(0, 1));
  const canopy::v1::LaunchJob& first = e.messages[0].message.launch_job();
  EXPECT_TRUE(first.is_batch_host());
  EXPECT_FALSE(e.messages[1].message.launch_job().is_batch_host());
  EXPECT_THAT(first.gpu_indexes(), ElementsAre(0, 1, 2, 3));
  EXPECT_EQ(first.topology_addr(), "spine.leaf1.gpu1");
  EXPECT_EQ(first.topology_addr_pattern(), "switch.switch.node");
  EXPECT_EQ(first.cluster_name(), "test");
  EXPECT_EQ(rpc::FromProtoDuration(first.kill_wait()), absl::Seconds(5));
  EXPECT_EQ(first.job().spec().script(), "#!/bin/sh\ntrue\n");
  EXPECT_EQ(jobs_->capacity().node(core::NodeId(0)).free_gpus, 0);

  now_ += absl::Seconds(1);
  Report(0, id, V1::PHASE_LAUNCHED);
  EXPECT_EQ(Job(id).state(), canopy::v1::JOB_STATE_CONFIGURING);  // gpu2 has not confirmed
  Report(1, id, V1::PHASE_LAUNCHED);
  EXPECT_EQ(Job(id).state(), canopy::v1::JOB_STATE_RUNNING);

  now_ += absl::Seconds(10);
  e = Report(0, id, V1::PHASE_EXITED, 3);
  EXPECT_EQ(Job(id).state(), canopy::v1::JOB_STATE_COMPLETING);
  EXPECT_EQ(Job(id).completing_to(), canopy::v1::JOB_STATE_FAILED);
  EXPECT_THAT(Targets(e, canopy::v1::ControllerMessage::kKillJob), ElementsAre(0, 1));
  EXPECT_THAT(Targets(e, canopy::v1::ControllerMessage::kJobStatusAck), ElementsAre());
  Report(0, id, V1::PHASE_CLEANED_UP);
  EXPECT_EQ(jobs_->capacity().node(core::NodeId(0)).free_gpus, 0);  // still held: gpu2 not clean
  Report(1, id, V1::PHASE_CLEANED_UP);
  const canopy::v1::Job& done = Job(id);
  EXPECT_EQ(done.state(), canopy::v1::JOB_STATE_FAILED);
  EXPECT_EQ(done.exit_code(), 3);
  EXPECT_THAT(done.nodes(), ElementsAre("gpu1", "gpu2"));  // where it ran stays on record
  EXPECT_EQ(jobs_->capacity().node(core::NodeId(0)).free_gpus, 4);
  EXPECT_EQ(rpc::FromProtoTime(done.end_time()), now_);
}

TEST_F(JobLifecycleTest, ExitAndCleanupReportsAreAcknowledgedEvenForUnknownJobs) {
  canopy::v1::JobStatus st;
  st.set_job_id(99);
  st.set_phase(V1::PHASE_EXITED);
  Effects e;
  std::optional<canopy::v1::ControllerMessage> ack = jobs_->JobStatus(core::NodeId(0), st, now_, e);
  ASSERT_TRUE(ack.has_value());
  EXPECT_EQ(ack->job_status_ack().job_id(), 99u);
  st.set_phase(V1::PHASE_LAUNCHED);
  EXPECT_FALSE(jobs_->JobStatus(core::NodeId(0), st, now_, e).has_value());
}

TEST_F(JobLifecycleTest, UnconfirmedLaunchGoesBackToPendingAndKillsWhatStarted) {
  AllNodesUp();
  const uint32_t id = Submit(2, 4);
  Schedule();
  Report(0, id, V1::PHASE_LAUNCHED);
  now_ += absl::Seconds(11);  // launch_timeout is 10 s; gpu2 never answered
  Effects e;
  jobs_->Tick(now_, e);
  Commit(e);
  const canopy::v1::Job& j = Job(id);
  EXPECT_EQ(j.state(), canopy::v1::JOB_STATE_PENDING);
  EXPECT_EQ(j.reason(), "Resources");
  EXPECT_EQ(j.restart_count(), 0);
  EXPECT_THAT(j.state_message(), HasSubstr("gpu2"));
  EXPECT_THAT(Targets(e, canopy::v1::ControllerMessage::kKillJob), ElementsAre(0, 1));
  EXPECT_TRUE(e.schedule);
  // The nodes stay held until they confirm that what may have started there is gone.
  EXPECT_EQ(jobs_->capacity().node(core::NodeId(0)).free_gpus, 0);
  EXPECT_EQ(jobs_->cleanup_holds(), 2u);
  Report(0, id, V1::PHASE_CLEANED_UP, 0, 0, /*run_id=*/1);
  EXPECT_EQ(jobs_->capacity().node(core::NodeId(0)).free_gpus, 4);
  EXPECT_EQ(jobs_->capacity().node(core::NodeId(1)).free_gpus, 0);
  now_ += absl::Seconds(70);  // KillWait + 60 s: gpu2 never answered; its share is freed anyway
  e = Effects();
  jobs_->Tick(now_, e);
  EXPECT_EQ(jobs_->capacity().node(core::NodeId(1)).free_gpus, 4);
  EXPECT_EQ(jobs_->cleanup_holds(), 0u);
}

TEST_F(JobLifecycleTest, LaunchFailureFailsTheJob) {
  AllNodesUp();
  const uint32_t id = Submit(1, 1);
  Schedule();
  canopy::v1::JobStatus st;
  st.set_job_id(id);
  st.set_phase(V1::PHASE_LAUNCH_FAILED);
  st.set_message("chdir to /nope: No such file or directory");
  Effects e;
  jobs_->JobStatus(core::NodeId(0), st, now_, e);
  Commit(e);
  EXPECT_EQ(Job(id).state(), canopy::v1::JOB_STATE_COMPLETING);
  Report(0, id, V1::PHASE_CLEANED_UP);
  EXPECT_EQ(Job(id).state(), canopy::v1::JOB_STATE_FAILED);
  EXPECT_EQ(Job(id).exit_code(), 1);
  EXPECT_THAT(Job(id).state_message(), HasSubstr("chdir to /nope"));
}

TEST_F(JobLifecycleTest, TimeLimitKillsAndEndsAsTimeout) {
  AllNodesUp();
  canopy::v1::SubmitJobRequest req;
  req.mutable_spec()->set_script("#!/bin/sh\nsleep 1000\n");
  *req.mutable_spec()->mutable_time_limit() = rpc::ToProtoDuration(absl::Minutes(1));
  req.mutable_spec()->set_warn_signal(10);
  *req.mutable_spec()->mutable_warn_time() = rpc::ToProtoDuration(absl::Seconds(20));
  req.mutable_spec()->set_warn_batch_only(true);
  Effects e;
  const uint32_t id = jobs_->Submit(req, alice_, now_, e)->job_id();
  Commit(e);
  Schedule();
  Report(0, id, V1::PHASE_LAUNCHED);
  const absl::Time started = now_;

  now_ = started + absl::Seconds(39);
  e = Effects();
  jobs_->Tick(now_, e);
  EXPECT_THAT(Targets(e, canopy::v1::ControllerMessage::kSignalJob), ElementsAre());
  now_ = started + absl::Seconds(40);  // --signal=B:USR1@20
  e = Effects();
  jobs_->Tick(now_, e);
  ASSERT_THAT(Targets(e, canopy::v1::ControllerMessage::kSignalJob), ElementsAre(0));
  EXPECT_EQ(e.messages[0].message.signal_job().signal(), 10);
  EXPECT_TRUE(e.messages[0].message.signal_job().batch_only());

  now_ = started + absl::Seconds(60);
  e = Effects();
  jobs_->Tick(now_, e);
  Commit(e);
  EXPECT_EQ(Job(id).state(), canopy::v1::JOB_STATE_COMPLETING);
  EXPECT_THAT(Targets(e, canopy::v1::ControllerMessage::kKillJob), ElementsAre(0));
  Report(0, id, V1::PHASE_EXITED, 0, 15);
  EXPECT_EQ(Job(id).state(), canopy::v1::JOB_STATE_COMPLETING);
  Report(0, id, V1::PHASE_CLEANED_UP);
  EXPECT_EQ(Job(id).state(), canopy::v1::JOB_STATE_TIMEOUT);
  EXPECT_EQ(Job(id).exit_signal(), 15);
}

TEST_F(JobLifecycleTest, CancelRespectsOwnershipAndStates) {
  AllNodesUp();
  const uint32_t pending = Submit(4, 4);  // takes every node
  const uint32_t waiting = Submit(1, 1);
  Schedule();
  Report(0, pending, V1::PHASE_LAUNCHED);
  Report(1, pending, V1::PHASE_LAUNCHED);
  Report(2, pending, V1::PHASE_LAUNCHED);
  Report(3, pending, V1::PHASE_LAUNCHED);

  canopy::v1::CancelJobRequest req;
  req.add_job_ids(waiting);
  req.add_job_ids(77);
  Effects e;
  canopy::v1::CancelJobResponse r = jobs_->Cancel(req, bob_, now_, e);
  ASSERT_EQ(r.results_size(), 2);
  EXPECT_FALSE(r.results(0).ok());
  EXPECT_EQ(r.results(0).error(), "Access/permission denied");
  EXPECT_EQ(r.results(1).error(), "Invalid job id specified");

  Caller root;
  root.authenticated = true;
  root.is_operator = true;
  root.user_name = "root";
  e = Effects();
  r = jobs_->Cancel(req, root, now_, e);
  Commit(e);
  EXPECT_TRUE(r.results(0).ok());
  EXPECT_EQ(Job(waiting).state(), canopy::v1::JOB_STATE_CANCELLED);
  e = Effects();
  r = jobs_->Cancel(req, root, now_, e);
  EXPECT_EQ(r.results(0).error(), "Job/step already completing or completed");

  // A running job is killed everywhere and ends CANCELLED once every node cleaned up.
  canopy::v1::CancelJobRequest running;
  running.add_job_ids(pending);
  e = Effects();
  r = jobs_->Cancel(running, alice_, now_, e);
  Commit(e);
  EXPECT_TRUE(r.results(0).ok());
  EXPECT_THAT(Targets(e, canopy::v1::ControllerMessage::kKillJob), ElementsAre(0, 1, 2, 3));
  for (int i = 0; i < 4; ++i) {
    Report(i, pending, V1::PHASE_CLEANED_UP);
  }
  EXPECT_EQ(Job(pending).state(), canopy::v1::JOB_STATE_CANCELLED);
  EXPECT_THAT(Job(pending).state_message(), HasSubstr("cancelled by alice"));
}

TEST_F(JobLifecycleTest, SignalGoesToTheJobsNodes) {
  const uint32_t id = StartRunning();
  canopy::v1::CancelJobRequest req;
  req.add_job_ids(id);
  req.set_signal(10);
  Effects e;
  EXPECT_TRUE(jobs_->Cancel(req, alice_, now_, e).results(0).ok());
  EXPECT_THAT(Targets(e, canopy::v1::ControllerMessage::kSignalJob), ElementsAre(0, 1));
  EXPECT_EQ(Job(id).state(), canopy::v1::JOB_STATE_RUNNING);
}

TEST_F(JobLifecycleTest, NodeLossRequeuesOrFailsTheJob) {
  const uint32_t id = StartRunning();
  Effects e;
  jobs_->NodeChanged(Node(1, /*up=*/false), now_, e);
  Commit(e);
  EXPECT_EQ(Job(id).state(), canopy::v1::JOB_STATE_PENDING);
  EXPECT_EQ(Job(id).restart_count(), 1);
  EXPECT_THAT(Job(id).state_message(), HasSubstr("gpu2"));
  EXPECT_THAT(Targets(e, canopy::v1::ControllerMessage::kKillJob), ElementsAre(0, 1));
  // gpu1 is held until its old processes are gone; the down gpu2 is not.
  EXPECT_EQ(jobs_->capacity().node(core::NodeId(0)).free_gpus, 0);
  EXPECT_EQ(jobs_->cleanup_holds(), 1u);

  // It starts again on what is left, avoiding the down node and the one still cleaning up.
  Schedule();
  EXPECT_EQ(Job(id).state(), canopy::v1::JOB_STATE_CONFIGURING);
  EXPECT_THAT(Job(id).nodes(), ElementsAre("gpu3", "gpu4"));
  Report(0, id, V1::PHASE_CLEANED_UP, 0, 0, /*run_id=*/1);
  EXPECT_EQ(jobs_->capacity().node(core::NodeId(0)).free_gpus, 4);
}

TEST_F(JobLifecycleTest, BrokenGpuOfTheJobRequeuesIt) {
  const uint32_t id = StartRunning(1);
  state::NodeRecord n = Node(0);
  n.registration.gpus[2].healthy = false;
  Effects e;
  jobs_->NodeChanged(n, now_, e);
  Commit(e);
  EXPECT_EQ(Job(id).state(), canopy::v1::JOB_STATE_PENDING);
  EXPECT_FALSE(jobs_->capacity().node(core::NodeId(0)).healthy);
}

TEST_F(JobLifecycleTest, SubmitRefusesWhatCanNeverRunAndAnonymousCallers) {
  canopy::v1::SubmitJobRequest req;
  req.mutable_spec()->set_script("#!/bin/sh\n");
  req.mutable_spec()->set_partition("nosuchpart");
  Effects e;
  absl::StatusOr<canopy::v1::SubmitJobResponse> r = jobs_->Submit(req, alice_, now_, e);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("Invalid partition name specified"));

  req.mutable_spec()->clear_partition();
  req.mutable_spec()->set_gpus_per_node(9);
  r = jobs_->Submit(req, alice_, now_, e);
  EXPECT_THAT(r.status().message(), HasSubstr("Requested node configuration is not available"));

  req.mutable_spec()->set_gpus_per_node(1);
  req.mutable_spec()->set_required_nodes("gpu9");
  r = jobs_->Submit(req, alice_, now_, e);
  EXPECT_THAT(r.status().message(), HasSubstr("Invalid node name specified"));

  req.mutable_spec()->clear_required_nodes();
  Caller anonymous;
  r = jobs_->Submit(req, anonymous, now_, e);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(r.status().message(), HasSubstr("unix socket"));
  EXPECT_TRUE(e.dirty.empty());
}

TEST_F(JobLifecycleTest, TooManyNodesForThePartitionPendsWithPartitionNodeLimit) {
  AllNodesUp();
  canopy::v1::SubmitJobRequest req;
  req.mutable_spec()->set_script("#!/bin/sh\n");
  req.mutable_spec()->set_min_nodes(2);
  req.mutable_spec()->set_partition("tiny");
  Effects e;
  const uint32_t id = jobs_->Submit(req, alice_, now_, e)->job_id();
  Commit(e);
  Schedule();
  EXPECT_EQ(Job(id).state(), canopy::v1::JOB_STATE_PENDING);
  EXPECT_EQ(Job(id).reason(), "PartitionNodeLimit");
}

TEST_F(JobLifecycleTest, HeldJobWaitsAndIdempotentSubmitReturnsTheFirstId) {
  AllNodesUp();
  canopy::v1::SubmitJobRequest req;
  req.mutable_spec()->set_script("#!/bin/sh\n");
  req.mutable_spec()->set_hold(true);
  req.set_idempotency_key("k1");
  Effects e;
  const uint32_t id = jobs_->Submit(req, alice_, now_, e)->job_id();
  EXPECT_EQ(jobs_->Submit(req, alice_, now_, e)->job_id(), id);
  Commit(e);
  Schedule();
  EXPECT_EQ(Job(id).state(), canopy::v1::JOB_STATE_PENDING);
  EXPECT_EQ(Job(id).reason(), "JobHeldUser");
  EXPECT_EQ(jobs_->next_job_id(), id + 1);
}

TEST_F(JobLifecycleTest, ArrayTasksGetConsecutiveIdsAndHonourTheThrottle) {
  AllNodesUp();
  canopy::v1::SubmitJobRequest req;
  req.mutable_spec()->set_script("#!/bin/sh\n");
  req.mutable_spec()->set_gpus_per_node(1);
  req.mutable_spec()->set_array_spec("1-3%2");
  Effects e;
  absl::StatusOr<canopy::v1::SubmitJobResponse> r = jobs_->Submit(req, alice_, now_, e);
  ASSERT_TRUE(r.ok()) << r.status();
  Commit(e);
  EXPECT_EQ(r->job_id(), 1u);
  EXPECT_THAT(r->array_task_job_ids(), ElementsAre(1, 2, 3));
  EXPECT_EQ(Job(3).array_job_id(), 1u);
  EXPECT_EQ(Job(3).array_task_id(), 3u);
  Schedule();
  EXPECT_EQ(Job(1).state(), canopy::v1::JOB_STATE_CONFIGURING);
  EXPECT_EQ(Job(2).state(), canopy::v1::JOB_STATE_CONFIGURING);
  EXPECT_EQ(Job(3).state(), canopy::v1::JOB_STATE_PENDING);  // %2

  // Cancelling the array's id cancels every task.
  canopy::v1::CancelJobRequest cancel;
  cancel.add_job_ids(1);
  e = Effects();
  EXPECT_TRUE(jobs_->Cancel(cancel, alice_, now_, e).results(0).ok());
  Commit(e);
  EXPECT_EQ(Job(3).state(), canopy::v1::JOB_STATE_CANCELLED);
}

TEST_F(JobLifecycleTest, StepLaysTasksOutInBlocksOverTheAllocation) {
  const uint32_t id = StartRunning(2);
  canopy::v1::CreateStepRequest req;
  req.set_job_id(id);
  req.set_ntasks(3);
  req.add_argv("hostname");
  req.set_io_address("127.0.0.1:5000");
  req.set_io_token("t");
  Effects e;
  absl::StatusOr<canopy::v1::CreateStepResponse> r = jobs_->CreateStep(req, alice_, e);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->step_id(), 0u);
  EXPECT_THAT(r->nodes(), ElementsAre("gpu1", "gpu2"));
  EXPECT_THAT(r->tasks_per_node(), ElementsAre(2, 1));
  ASSERT_THAT(Targets(e, canopy::v1::ControllerMessage::kLaunchStep), ElementsAre(0, 1));
  const canopy::v1::LaunchStep& second = e.messages[1].message.launch_step();
  EXPECT_THAT(second.task_ranks(), ElementsAre(2));
  EXPECT_EQ(second.node_index(), 1);
  EXPECT_EQ(second.step_nodelist(), "gpu[1-2]");
  EXPECT_EQ(second.tasks_per_node(), "2,1");
  EXPECT_EQ(jobs_->CreateStep(req, alice_, e)->step_id(), 1u);
  EXPECT_EQ(jobs_->CreateStep(req, bob_, e).status().code(), absl::StatusCode::kPermissionDenied);

  canopy::v1::CancelStepRequest kill;
  kill.set_job_id(id);
  kill.set_step_id(0);
  e = Effects();
  EXPECT_TRUE(jobs_->CancelStep(kill, alice_, e).ok());
  EXPECT_THAT(Targets(e, canopy::v1::ControllerMessage::kKillStep), ElementsAre(0, 1));
}

TEST_F(JobLifecycleTest, AllocationOnlyJobEndsWithCompleteJob) {
  AllNodesUp();
  const uint32_t id = Submit(1, 0, /*script=*/"");
  Schedule();
  Report(0, id, V1::PHASE_LAUNCHED);
  canopy::v1::CompleteJobRequest req;
  req.set_job_id(id);
  req.set_exit_code(2);
  Effects e;
  ASSERT_TRUE(jobs_->CompleteJob(req, alice_, now_, e).ok());
  Commit(e);
  Report(0, id, V1::PHASE_CLEANED_UP);
  EXPECT_EQ(Job(id).state(), canopy::v1::JOB_STATE_FAILED);
  EXPECT_EQ(Job(id).exit_code(), 2);
  EXPECT_EQ(Job(id).spec().name(), "interactive");
}

TEST_F(JobLifecycleTest, RestoreRebuildsJobsAndTheirCapacity) {
  const uint32_t running = StartRunning(2);
  const uint32_t pending = Submit(4, 4);
  Schedule();

  // Keep the last row of each job, as the database would.
  persistence::JobState saved;
  std::map<uint32_t, persistence::JobRow> last;
  for (const persistence::JobRow& row : all_rows_) {
    last[row.id] = row;
  }
  for (auto& [id, row] : last) {
    saved.jobs.push_back(row);
  }
  saved.next_job_id = jobs_->next_job_id();

  Reset();
  Effects e;
  ASSERT_TRUE(jobs_->Restore(saved, now_, e).ok());
  AllNodesUp();
  EXPECT_EQ(Job(running).state(), canopy::v1::JOB_STATE_RUNNING);
  EXPECT_EQ(Job(pending).state(), canopy::v1::JOB_STATE_PENDING);
  EXPECT_EQ(jobs_->capacity().node(core::NodeId(0)).free_gpus, 0);  // held again
  EXPECT_EQ(jobs_->next_job_id(), pending + 1);

  // The batch host re-registers without the job and never re-sends an exit: the job is lost.
  std::vector<uint32_t> kill = jobs_->NodeRegistered(Node(0), {running, 42}, now_, e);
  EXPECT_THAT(kill, ElementsAre(42));
  e = Effects();
  jobs_->NodeRegistered(Node(0), {}, now_, e);
  now_ += absl::Seconds(31);
  jobs_->Tick(now_, e);
  Commit(e);
  EXPECT_EQ(Job(running).state(), canopy::v1::JOB_STATE_PENDING);
  EXPECT_EQ(Job(running).restart_count(), 1);
}

TEST_F(JobLifecycleTest, ReportsFromAnEarlierRunAreAcknowledgedButIgnored) {
  Effects up;
  jobs_->NodeChanged(Node(0), now_, up);  // only gpu1
  const uint32_t id = Submit(1, 4);
  Schedule();
  EXPECT_EQ(Job(id).run_id(), 1u);
  now_ += absl::Seconds(11);  // never confirmed: back to PENDING
  Effects e;
  jobs_->Tick(now_, e);
  Commit(e);
  Schedule();
  // gpu1 is held until the first run is cleaned up there.
  ASSERT_EQ(Job(id).state(), canopy::v1::JOB_STATE_PENDING);
  // The first run's script dies of the kill: acknowledged, and ignored.
  e = Report(0, id, V1::PHASE_EXITED, 0, 15, /*run_id=*/1);
  EXPECT_EQ(Job(id).state(), canopy::v1::JOB_STATE_PENDING);
  EXPECT_EQ(Job(id).exit_signal(), 0);
  Report(0, id, V1::PHASE_CLEANED_UP, 0, 0, 1);
  Schedule();
  ASSERT_EQ(Job(id).state(), canopy::v1::JOB_STATE_CONFIGURING);
  EXPECT_EQ(Job(id).run_id(), 2u);
  EXPECT_EQ(Job(id).restart_count(), 0);
  // A late report of run 1 still changes nothing; run 2's confirmation starts it.
  Report(0, id, V1::PHASE_EXITED, 0, 15, 1);
  EXPECT_EQ(Job(id).state(), canopy::v1::JOB_STATE_CONFIGURING);
  Report(0, id, V1::PHASE_LAUNCHED, 0, 0, 2);
  EXPECT_EQ(Job(id).state(), canopy::v1::JOB_STATE_RUNNING);
}

TEST_F(JobLifecycleTest, ConfirmationLearnedAtRegistrationStartsTheJob) {
  AllNodesUp();
  const uint32_t id = Submit(2, 4);
  Schedule();
  Report(0, id, V1::PHASE_LAUNCHED);
  // gpu2's LAUNCHED was lost with its stream; it re-registers listing the job.
  Effects e;
  jobs_->NodeRegistered(Node(1), {id}, now_, e);
  Commit(e);
  EXPECT_EQ(Job(id).state(), canopy::v1::JOB_STATE_RUNNING);
}

TEST_F(JobLifecycleTest, CompleteJobWhileStartingIsRefusedAndNodeLossThenIsNoRestart) {
  AllNodesUp();
  const uint32_t id = Submit(2, 0, /*script=*/"");
  Schedule();
  canopy::v1::CompleteJobRequest req;
  req.set_job_id(id);
  Effects e;
  EXPECT_EQ(jobs_->CompleteJob(req, alice_, now_, e).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(Job(id).state(), canopy::v1::JOB_STATE_CONFIGURING);
  e = Effects();
  jobs_->NodeChanged(Node(1, /*up=*/false), now_, e);
  Commit(e);
  EXPECT_EQ(Job(id).state(), canopy::v1::JOB_STATE_PENDING);
  EXPECT_EQ(Job(id).restart_count(), 0);                       // it never ran
  EXPECT_EQ(jobs_->capacity().node(core::NodeId(0)).jobs, 1);  // held until it cleans up
  Report(0, id, V1::PHASE_CLEANED_UP);  // an agent that never had the job says run 0
  EXPECT_EQ(jobs_->capacity().node(core::NodeId(0)).jobs, 0);
}

TEST(ArraySpecTest, ParsesRangesStepsListsAndThrottle) {
  absl::StatusOr<ArraySpec> a = ParseArraySpec("0-6:2,9,3%4");
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_THAT(a->task_ids, ElementsAre(0, 2, 3, 4, 6, 9));
  EXPECT_EQ(a->max_running, 4);
  for (const char* bad : {"", "5-1", "1-x", "1:0", "1%0", "a"}) {
    EXPECT_FALSE(ParseArraySpec(bad).ok()) << bad;
  }
  EXPECT_FALSE(ParseArraySpec("0-5000").ok());
}

TEST(StepLayoutTest, BlockDistributionLikeSlurm) {
  absl::StatusOr<StepLayout> l = LayOutStep(4, 4, 8, 0);
  ASSERT_TRUE(l.ok());
  EXPECT_THAT(l->tasks_per_node, ElementsAre(2, 2, 2, 2));
  EXPECT_THAT(l->first_rank, ElementsAre(0, 2, 4, 6));
  EXPECT_EQ(l->TasksPerNodeString(), "2(x4)");
  l = LayOutStep(4, 0, 0, 2);
  EXPECT_EQ(l->ntasks, 8);
  l = LayOutStep(4, 0, 2, 0);  // fewer tasks than nodes: fewer nodes
  EXPECT_EQ(l->nodes, 2);
  l = LayOutStep(3, 3, 7, 0);
  EXPECT_EQ(l->TasksPerNodeString(), "3,2(x2)");
  EXPECT_FALSE(LayOutStep(2, 3, 0, 0).ok());
  EXPECT_FALSE(LayOutStep(2, 2, 9, 4).ok());
}

}  // namespace
}  // namespace canopy::lifecycle
