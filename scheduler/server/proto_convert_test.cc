// The wire <-> core conversions of jobs, requests, reports and agent messages.
#include "scheduler/server/proto_convert.h"

#include <memory>

#include "gmock/gmock.h"
#include "google/protobuf/util/field_mask_util.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "scheduler/server/job_read_mask.h"
#include "tests/testing/test_cluster.h"

namespace canopy::server {
namespace {

using ::testing::ElementsAre;

class ProtoConvertTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = testing::LoadTestCluster(testing::kTwoLeafCluster);
    ASSERT_NE(cluster_.config, nullptr);
    config_ = *cluster_.config;
    topology_ = cluster_.topology.get();
  }

  // A running 2-node job across both leaves.
  core::Job RunningJob() {
    core::Job job;
    job.id = core::JobId(12);
    job.spec.Mutable().name = "train";
    job.spec.Mutable().script = "#!/bin/sh\n";
    job.spec.Mutable().time_limit = absl::Minutes(5);
    job.spec.Mutable().environment = std::map<std::string, std::string>{{"A", "1"}};
    job.user_id = 1001;
    job.user_name = "alice";
    job.partition = "gpu";
    job.qos = "normal";
    job.time_limit = absl::Minutes(5);
    job.state = core::JobState::kRunning;
    job.run_id = 2;
    job.start_time = absl::FromUnixSeconds(1'800'000'000);
    job.allocation.nodes = {{core::NodeId(1), 2, 4, 100, {0, 1}},
                            {core::NodeId(2), 2, 4, 100, {2, 3}}};
    return job;
  }

  testing::TestCluster cluster_;
  config::ClusterConfig config_;
  const topology::Topology* topology_ = nullptr;
};

TEST_F(ProtoConvertTest, JobSpecRoundTripsThroughTheWire) {
  core::JobSpec spec;
  spec.name = "x";
  spec.min_nodes = 2;
  spec.time_limit = absl::Minutes(3);
  spec.switches_wait = absl::Seconds(40);
  spec.argv = {"a", "b"};
  spec.environment = std::map<std::string, std::string>{{"K", "v"}};
  spec.requeue = false;
  spec.warn_signal = 10;
  spec.warn_time = absl::Seconds(30);
  core::Dependency after;
  after.type = core::DependencyType::kAfter;
  after.job_id = 4;
  after.delay = absl::Minutes(10);
  after.state = core::DependencyState::kFailed;
  core::Dependency task;
  task.type = core::DependencyType::kAfterCorr;
  task.job_id = 5;
  task.array_task_id = 0;
  core::Dependency whole;
  whole.type = core::DependencyType::kAfterOk;
  whole.job_id = 6;
  whole.whole_array = true;
  whole.state = core::DependencyState::kSatisfied;
  core::Dependency singleton;
  singleton.type = core::DependencyType::kSingleton;
  spec.dependencies = {after, task, whole, singleton};
  spec.dependency_any = true;
  spec.kill_on_invalid_dep = false;
  spec.begin_time = absl::FromUnixSeconds(1'800'000'600);
  spec.comment = "sweep";
  spec.wckey = "proj";
  spec.mail_type = "END,FAIL";
  spec.mail_user = "a@b";
  spec.reservation = "r1";
  spec.deadline = absl::FromUnixSeconds(1'800'009'000);
  spec.delay_boot = absl::Minutes(2);
  spec.container = "/c";
  spec.gpus_per_task = 2;
  spec.cpus_per_gpu = 3;
  spec.mem_per_gpu_mib = 1024;
  spec.gpu_bind = "closest";
  spec.overcommit = true;
  spec.exclusive_mode = "user";
  spec.qos = "high";
  EXPECT_EQ(FromProto(ToProto(spec)), spec);
  EXPECT_EQ(ToProto(spec).qos(), "high");
  const canopy::v1::JobSpec wire = ToProto(spec);
  EXPECT_EQ(wire.dependencies(0).type(), canopy::v1::JobDependency::TYPE_AFTER);
  EXPECT_EQ(wire.dependencies(0).state(), canopy::v1::JobDependency::STATE_FAILED);
  EXPECT_TRUE(wire.dependencies(1).has_array_task_id());
  EXPECT_FALSE(wire.dependencies(2).has_array_task_id());
  // Unset optional fields stay unset (the partition's defaults apply).
  const core::JobSpec bare = FromProto(canopy::v1::JobSpec());
  EXPECT_FALSE(bare.time_limit.has_value());
  EXPECT_FALSE(bare.switches_wait.has_value());
  EXPECT_FALSE(bare.kill_on_invalid_dep.has_value());
  EXPECT_EQ(bare.begin_time, absl::InfinitePast());
}

TEST_F(ProtoConvertTest, NodeCarriesItsConfigAndNeverHeardFromIsNotResponding) {
  state::NodeRecord node;
  node.id = core::NodeId(0);
  node.name = config_.nodes[0].name;
  node.cpus = config_.nodes[0].cpus;
  config::NodeConfig layout = config_.nodes[0];
  layout.features = {"ib"};
  layout.weight = 5;
  canopy::v1::Node wire = NodeToProto(node, {}, layout, {"gpu"}, *topology_, node.last_heard);
  EXPECT_TRUE(wire.not_responding());  // never registered: Slurm's "*", +NOT_RESPONDING
  EXPECT_EQ(wire.slurm_state(), "unk*");
  EXPECT_THAT(wire.features(), ElementsAre("ib"));
  EXPECT_EQ(wire.weight(), 5);
  // Only CPUs configured: Slurm's layout of single-core sockets.
  EXPECT_EQ(wire.sockets(), layout.cpus);
  EXPECT_EQ(wire.cores_per_socket(), 1);
  EXPECT_EQ(wire.threads_per_core(), 1);
  EXPECT_EQ(wire.boards(), 1);
  layout.sockets = 2;
  layout.cores_per_socket = 4;
  layout.threads_per_core = 2;
  layout.boards = 1;
  node.ever_registered = true;
  node.connected = true;
  wire = NodeToProto(node, {}, layout, {"gpu"}, *topology_, node.last_heard);
  EXPECT_FALSE(wire.not_responding());
  EXPECT_EQ(wire.sockets(), 2);
  EXPECT_EQ(wire.cores_per_socket(), 4);
  EXPECT_EQ(wire.threads_per_core(), 2);
}

TEST_F(ProtoConvertTest, ADependencyOfUnknownTypeIsRefusedByName) {
  canopy::v1::JobSpec wire;
  wire.add_dependencies()->set_type(canopy::v1::JobDependency::TYPE_AFTER_OK);
  wire.add_dependencies()->set_job_id(3);  // TYPE_UNSPECIFIED
  const absl::Status s = CheckWireSpec(wire);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), ::testing::HasSubstr("spec.dependencies[1].type: expected TYPE_AFTER"));
  EXPECT_TRUE(CheckWireSpec(canopy::v1::JobSpec()).ok());
}

TEST_F(ProtoConvertTest, JobRecordNamesNodesAndLeaves) {
  const canopy::v1::Job wire = ToProto(RunningJob(), *topology_);
  EXPECT_EQ(wire.job_id(), 12u);
  EXPECT_EQ(wire.state(), canopy::v1::JOB_STATE_RUNNING);
  EXPECT_EQ(wire.reason(), "None");
  EXPECT_THAT(wire.nodes(), ElementsAre("gpu2", "gpu3"));
  EXPECT_THAT(wire.node_gpu_indexes(), ElementsAre("0,1", "2,3"));
  EXPECT_THAT(wire.leaf_switches(), ElementsAre("leaf1", "leaf2"));
  EXPECT_EQ(rpc::FromProtoDuration(wire.time_limit()), absl::Minutes(5));
  EXPECT_EQ(wire.completing_to(), canopy::v1::JOB_STATE_UNSPECIFIED);
  EXPECT_EQ(wire.qos(), "normal");
  // And back (the conversion of records stored by schema 2).
  absl::StatusOr<core::Job> back = FromProto(wire, *topology_);
  ASSERT_TRUE(back.ok()) << back.status();
  core::Job expected = RunningJob();
  expected.eligible_time = expected.submit_time;
  EXPECT_EQ(*back, expected);
  canopy::v1::Job gone = wire;
  gone.set_nodes(1, "gpu9");
  EXPECT_EQ(FromProto(gone, *topology_).status().code(), absl::StatusCode::kInvalidArgument);
}

// A ListJobs read mask converts only what it names (job_read_mask.h): for each field alone,
// of the job and of its spec, the same as the whole record trimmed to that field.
TEST_F(ProtoConvertTest, EachFieldAloneConvertsAsTheWholeRecordTrimmedToIt) {
  core::Job job = RunningJob();
  job.state = core::JobState::kCompleting;
  job.completing_to = core::JobState::kFailed;
  job.reason = core::JobReason::kResources;
  job.group_id = 20;
  job.supplementary_gids = {21, 22};
  job.submit_time = absl::FromUnixSeconds(1'799'999'000);
  job.end_time = absl::FromUnixSeconds(1'800'000'100);
  job.eligible_time = absl::FromUnixSeconds(1'799'999'100);
  job.expected_start = absl::FromUnixSeconds(1'800'000'900);
  job.expected_nodes = {core::NodeId(3)};
  job.exit_code = 3;
  job.exit_signal = 9;
  job.restart_count = 1;
  job.priority = 77;
  job.priority_fixed = true;
  job.placement_explanation = "one leaf";
  job.array_job_id = 10;
  job.array_task_id = 2;
  job.idempotency_key = "key";
  job.next_step_id = 4;
  job.state_message = "why";
  core::JobSpec& spec = job.spec.Mutable();
  spec.partition = "gpu";
  spec.account = "acct";
  spec.min_nodes = 2;
  spec.max_nodes = 3;
  spec.ntasks = 4;
  spec.ntasks_per_node = 2;
  spec.cpus_per_task = 2;
  spec.mem_per_node_mib = 1000;
  spec.gpus_per_node = 2;
  spec.gpu_type = "h100";
  spec.exclusive = true;
  spec.max_switches = 1;
  spec.switches_wait = absl::Seconds(40);
  spec.required_nodes = "gpu[1-2]";
  spec.excluded_nodes = "gpu3";
  spec.argv = {"a"};
  spec.export_none = true;
  spec.work_dir = "/w";
  spec.stdout_path = "o";
  spec.stderr_path = "e";
  spec.stdin_path = "i";
  spec.open_append = true;
  spec.requeue = true;
  spec.hold = true;
  spec.submit_host = "login";
  spec.submit_dir = "/s";
  spec.nice = 5;
  spec.array_spec = "1-3";
  spec.warn_signal = 10;
  spec.warn_time = absl::Seconds(30);
  spec.warn_batch_only = true;
  core::Dependency after;
  after.type = core::DependencyType::kAfterOk;
  after.job_id = 4;
  spec.dependencies = {after};
  spec.dependency_any = true;
  spec.kill_on_invalid_dep = true;
  spec.begin_time = absl::FromUnixSeconds(1'800'000'600);
  spec.qos = "high";
  spec.comment = "c";
  spec.wckey = "w";
  spec.mail_type = "END";
  spec.mail_user = "u";
  spec.reservation = "r";
  spec.deadline = absl::FromUnixSeconds(1'800'009'000);
  spec.delay_boot = absl::Minutes(2);
  spec.container = "/c";
  spec.gpus_per_task = 1;
  spec.cpus_per_gpu = 3;
  spec.mem_per_gpu_mib = 1024;
  spec.gpu_bind = "closest";
  spec.overcommit = true;
  spec.exclusive_mode = "user";

  const canopy::v1::Job whole = ToProto(job, *topology_);
  std::vector<const google::protobuf::FieldDescriptor*> set;
  whole.GetReflection()->ListFields(whole, &set);
  EXPECT_GE(set.size(), 35u) << "every field but steps is set, so a wrong guard shows";
  set.clear();
  whole.spec().GetReflection()->ListFields(whole.spec(), &set);
  EXPECT_GE(set.size(), 54u);

  // FieldNumbers holds numbers 1-63: a field numbered above would vanish from masked lists.
  for (const google::protobuf::Descriptor* message :
       {canopy::v1::Job::descriptor(), canopy::v1::JobSpec::descriptor()}) {
    for (int i = 0; i < message->field_count(); ++i) {
      EXPECT_LT(message->field(i)->number(), 64) << message->field(i)->full_name();
    }
  }

  std::vector<std::string> paths;
  const google::protobuf::Descriptor* d = canopy::v1::Job::descriptor();
  for (int i = 0; i < d->field_count(); ++i) {
    paths.push_back(d->field(i)->name());
  }
  const google::protobuf::Descriptor* sd = canopy::v1::JobSpec::descriptor();
  for (int i = 0; i < sd->field_count(); ++i) {
    paths.push_back("spec." + sd->field(i)->name());
  }
  for (const std::string& path : paths) {
    google::protobuf::FieldMask mask;
    mask.add_paths(path);
    absl::StatusOr<JobReadMask> parsed = JobReadMask::Parse(mask);
    ASSERT_TRUE(parsed.ok()) << path;
    const canopy::v1::Job masked =
        ToProto(job, *topology_, parsed->job_fields(), parsed->spec_fields());
    canopy::v1::Job expected = whole;
    google::protobuf::util::FieldMaskUtil::TrimMessage(mask, &expected);
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(masked, expected))
        << path << ":\n"
        << masked.DebugString() << "expected:\n"
        << expected.DebugString();
  }
}

TEST_F(ProtoConvertTest, LaunchJobCarriesWhatTheNodeNeeds) {
  auto job = std::make_shared<const core::Job>(RunningJob());
  const canopy::v1::ControllerMessage m =
      ToProto(lifecycle::AgentMessage(lifecycle::LaunchJob{job, 1}), *topology_, config_);
  ASSERT_TRUE(m.has_launch_job());
  const canopy::v1::LaunchJob& launch = m.launch_job();
  EXPECT_FALSE(launch.is_batch_host());
  EXPECT_EQ(launch.node_index(), 1);
  EXPECT_THAT(launch.gpu_indexes(), ElementsAre(2, 3));
  EXPECT_EQ(launch.cpus(), 4);
  EXPECT_EQ(launch.topology_addr(), "spine.leaf2.gpu3");
  EXPECT_EQ(launch.topology_addr_pattern(), "switch.switch.node");
  EXPECT_EQ(launch.cluster_name(), "test");
  EXPECT_EQ(rpc::FromProtoDuration(launch.kill_wait()), absl::Seconds(5));
  EXPECT_EQ(launch.job().run_id(), 2u);
  EXPECT_EQ(launch.job().spec().environment().at("A"), "1");
}

TEST_F(ProtoConvertTest, LaunchStepListsThisNodesRanks) {
  auto step = std::make_shared<lifecycle::StepLaunch>();
  step->request.job = core::JobId(12);
  step->request.argv = {"hostname"};
  step->request.io_address = "127.0.0.1:1";
  step->step_id = 3;
  step->layout = *slurm::LayOutTasks(2, 0, 5, 0);
  step->nodelist = "gpu[2-3]";
  const canopy::v1::ControllerMessage m =
      ToProto(lifecycle::AgentMessage(lifecycle::LaunchStep{step, 1}), *topology_, config_);
  ASSERT_TRUE(m.has_launch_step());
  EXPECT_THAT(m.launch_step().task_ranks(), ElementsAre(3, 4));
  EXPECT_EQ(m.launch_step().tasks_per_node(), "3,2");
  EXPECT_EQ(m.launch_step().ntasks(), 5);
  EXPECT_EQ(m.launch_step().step_num_nodes(), 2);
  EXPECT_THAT(m.launch_step().argv(), ElementsAre("hostname"));
}

TEST_F(ProtoConvertTest, ReportsAndAcknowledgements) {
  canopy::v1::JobStatus status;
  status.set_job_id(5);
  status.set_phase(canopy::v1::JobStatus::PHASE_EXITED);
  status.set_exit_code(2);
  status.set_out_of_memory(true);
  status.set_run_id(3);
  ASSERT_TRUE(FromProto(status).has_value());
  const lifecycle::JobReport r = *FromProto(status);
  EXPECT_EQ(r.job, core::JobId(5));
  EXPECT_EQ(r.phase, lifecycle::JobPhase::kExited);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.out_of_memory);
  const canopy::v1::ControllerMessage ack =
      ToProto(lifecycle::AgentMessage(lifecycle::JobReportAck{r.job, r.phase, r.run_id}),
              *topology_, config_);
  EXPECT_EQ(ack.job_status_ack().job_id(), 5u);
  EXPECT_EQ(ack.job_status_ack().phase(), canopy::v1::JobStatus::PHASE_EXITED);
  EXPECT_EQ(ack.job_status_ack().run_id(), 3u);
  const canopy::v1::ControllerMessage kill =
      ToProto(lifecycle::AgentMessage(lifecycle::KillJob{core::JobId(5), "time limit"}), *topology_,
              config_);
  EXPECT_EQ(kill.kill_job().reason(), "time limit");
  EXPECT_EQ(rpc::FromProtoDuration(kill.kill_job().kill_wait()), absl::Seconds(5));
}

// A report whose phase this build does not know is no launch confirmation.
TEST_F(ProtoConvertTest, ReportsOfUnknownPhaseAreDropped) {
  canopy::v1::JobStatus status;
  status.set_job_id(5);
  EXPECT_FALSE(FromProto(status).has_value());  // PHASE_UNSPECIFIED
  status.set_phase(static_cast<canopy::v1::JobStatus::Phase>(42));
  EXPECT_FALSE(FromProto(status).has_value());
  status.set_phase(canopy::v1::JobStatus::PHASE_LAUNCHED);
  EXPECT_EQ(FromProto(status)->phase, lifecycle::JobPhase::kLaunched);
}

}  // namespace
}  // namespace canopy::server
