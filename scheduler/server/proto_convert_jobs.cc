// Jobs and agent messages <-> canopy.v1 (proto_convert.h); agent reports are in
// proto_convert_agent.cc, client requests in proto_convert_requests.cc.
#include <algorithm>
#include <type_traits>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "scheduler/server/proto_convert.h"

namespace canopy::server {
namespace {

using rpc::FromProtoDuration;
using rpc::FromProtoTime;
using rpc::ToProtoDuration;
using rpc::ToProtoTime;

canopy::v1::JobStatus::Phase PhaseToProto(lifecycle::JobPhase phase) {
  switch (phase) {
    case lifecycle::JobPhase::kLaunched:
      return canopy::v1::JobStatus::PHASE_LAUNCHED;
    case lifecycle::JobPhase::kLaunchFailed:
      return canopy::v1::JobStatus::PHASE_LAUNCH_FAILED;
    case lifecycle::JobPhase::kExited:
      return canopy::v1::JobStatus::PHASE_EXITED;
    case lifecycle::JobPhase::kCleanedUp:
      return canopy::v1::JobStatus::PHASE_CLEANED_UP;
  }
  return canopy::v1::JobStatus::PHASE_UNSPECIFIED;
}

canopy::v1::LaunchJob LaunchToProto(const lifecycle::LaunchJob& m,
                                    const topology::Topology& topology,
                                    const config::ClusterConfig& config) {
  canopy::v1::LaunchJob out;
  *out.mutable_job() = ToProto(*m.job, topology);
  const core::NodeShare& share = m.job->allocation.nodes[m.node_index];
  out.set_is_batch_host(m.node_index == 0);
  out.set_node_index(m.node_index);
  for (int g : share.gpu_indexes) {
    out.add_gpu_indexes(g);
  }
  out.set_cpus(share.cpus);
  out.set_topology_addr(topology.TopologyAddress(share.node));
  out.set_topology_addr_pattern(topology.TopologyAddressPattern(share.node));
  out.set_cluster_name(config.cluster_name);
  *out.mutable_kill_wait() = ToProtoDuration(config.kill_wait);
  return out;
}

canopy::v1::LaunchStep StepToProto(const lifecycle::LaunchStep& m,
                                   const config::ClusterConfig& config) {
  const lifecycle::StepLaunch& step = *m.step;
  const lifecycle::StepRequest& r = step.request;
  canopy::v1::LaunchStep out;
  out.set_job_id(r.job.value());
  out.set_step_id(step.step_id);
  out.set_node_index(m.node_index);
  const int32_t first = step.layout.first_rank[m.node_index];
  for (int32_t t = 0; t < step.layout.tasks_per_node[m.node_index]; ++t) {
    out.add_task_ranks(first + t);
  }
  out.set_ntasks(step.layout.ntasks);
  out.set_step_nodelist(step.nodelist);
  out.set_step_num_nodes(step.layout.nodes);
  out.set_tasks_per_node(step.layout.TasksPerNodeString());
  *out.mutable_argv() = {r.argv.begin(), r.argv.end()};
  out.mutable_environment()->insert(r.environment.begin(), r.environment.end());
  out.set_work_dir(r.work_dir);
  out.set_io_address(r.io_address);
  out.set_io_token(r.io_token);
  out.set_stdout_path(r.stdout_path);
  out.set_stderr_path(r.stderr_path);
  *out.mutable_kill_wait() = ToProtoDuration(config.kill_wait);
  return out;
}

using WireDependency = canopy::v1::JobDependency;

// Wire and core dependency types and states, by position: kept in one table each.
constexpr std::pair<core::DependencyType, WireDependency::Type> kDependencyTypes[] = {
    {core::DependencyType::kAfter, WireDependency::TYPE_AFTER},
    {core::DependencyType::kAfterAny, WireDependency::TYPE_AFTER_ANY},
    {core::DependencyType::kAfterOk, WireDependency::TYPE_AFTER_OK},
    {core::DependencyType::kAfterNotOk, WireDependency::TYPE_AFTER_NOT_OK},
    {core::DependencyType::kAfterCorr, WireDependency::TYPE_AFTER_CORR},
    {core::DependencyType::kSingleton, WireDependency::TYPE_SINGLETON},
};
constexpr std::pair<core::DependencyState, WireDependency::State> kDependencyStates[] = {
    {core::DependencyState::kWaiting, WireDependency::STATE_UNFULFILLED},
    {core::DependencyState::kSatisfied, WireDependency::STATE_FULFILLED},
    {core::DependencyState::kFailed, WireDependency::STATE_FAILED},
};

WireDependency DependencyToProto(const core::Dependency& d) {
  WireDependency out;
  for (const auto& [core_type, wire] : kDependencyTypes) {
    if (core_type == d.type) {
      out.set_type(wire);
    }
  }
  for (const auto& [core_state, wire] : kDependencyStates) {
    if (core_state == d.state) {
      out.set_state(wire);
    }
  }
  out.set_job_id(d.job_id);
  if (d.array_task_id.has_value()) {
    out.set_array_task_id(*d.array_task_id);
  }
  if (d.delay != absl::ZeroDuration()) {
    *out.mutable_delay() = ToProtoDuration(d.delay);
  }
  out.set_whole_array(d.whole_array);
  return out;
}

}  // namespace

// An item of a submitted spec. The state and whole_array are the controller's to decide
// (ResolveDependencies resets them); an unknown type is kept out of the core by the caller.
std::optional<core::Dependency> DependencyFromProto(const canopy::v1::JobDependency& d) {
  core::Dependency out;
  bool known = false;
  for (const auto& [core_type, wire] : kDependencyTypes) {
    if (wire == d.type()) {
      out.type = core_type;
      known = true;
    }
  }
  if (!known) {
    return std::nullopt;
  }
  for (const auto& [core_state, wire] : kDependencyStates) {
    if (wire == d.state()) {
      out.state = core_state;
    }
  }
  out.job_id = d.job_id();
  if (d.has_array_task_id()) {
    out.array_task_id = d.array_task_id();
  }
  out.delay = FromProtoDuration(d.delay());
  out.whole_array = d.whole_array();
  return out;
}

canopy::v1::JobState ToProtoState(core::JobState state) {
  using S = core::JobState;
  switch (state) {
    case S::kPending:
      return canopy::v1::JOB_STATE_PENDING;
    case S::kConfiguring:
      return canopy::v1::JOB_STATE_CONFIGURING;
    case S::kRunning:
      return canopy::v1::JOB_STATE_RUNNING;
    case S::kCompleting:
      return canopy::v1::JOB_STATE_COMPLETING;
    case S::kCompleted:
      return canopy::v1::JOB_STATE_COMPLETED;
    case S::kFailed:
      return canopy::v1::JOB_STATE_FAILED;
    case S::kCancelled:
      return canopy::v1::JOB_STATE_CANCELLED;
    case S::kTimeout:
      return canopy::v1::JOB_STATE_TIMEOUT;
    case S::kNodeFail:
      return canopy::v1::JOB_STATE_NODE_FAIL;
    case S::kOutOfMemory:
      return canopy::v1::JOB_STATE_OUT_OF_MEMORY;
    case S::kRequeued:
      return canopy::v1::JOB_STATE_REQUEUED;
    case S::kPreempted:
      return canopy::v1::JOB_STATE_PREEMPTED;
  }
  return canopy::v1::JOB_STATE_UNSPECIFIED;
}

core::JobState FromProtoState(canopy::v1::JobState state) {
  for (int i = 0; i < core::kJobStateCount; ++i) {
    if (ToProtoState(static_cast<core::JobState>(i)) == state) {
      return static_cast<core::JobState>(i);
    }
  }
  return core::JobState::kPending;
}

absl::Status CheckWireSpec(const canopy::v1::JobSpec& spec) {
  for (int i = 0; i < spec.dependencies_size(); ++i) {
    if (!DependencyFromProto(spec.dependencies(i)).has_value()) {
      return absl::InvalidArgumentError(
          absl::StrCat("spec.dependencies[", i,
                       "].type: expected TYPE_AFTER, TYPE_AFTER_ANY, TYPE_AFTER_OK, "
                       "TYPE_AFTER_NOT_OK, TYPE_AFTER_CORR or TYPE_SINGLETON, got ",
                       static_cast<int>(spec.dependencies(i).type())));
    }
  }
  return absl::OkStatus();
}

core::JobSpec FromProto(const canopy::v1::JobSpec& s) {
  core::JobSpec out;
  out.name = s.name();
  out.partition = s.partition();
  out.account = s.account();
  out.min_nodes = s.min_nodes();
  out.max_nodes = s.max_nodes();
  out.ntasks = s.ntasks();
  out.ntasks_per_node = s.ntasks_per_node();
  out.cpus_per_task = s.cpus_per_task();
  out.mem_per_node_mib = s.mem_per_node_mib();
  out.gpus_per_node = s.gpus_per_node();
  out.gpu_type = s.gpu_type();
  out.exclusive = s.exclusive();
  if (s.has_time_limit()) {
    out.time_limit = FromProtoDuration(s.time_limit());
  }
  out.max_switches = s.max_switches();
  if (s.has_switches_wait()) {
    out.switches_wait = FromProtoDuration(s.switches_wait());
  }
  out.required_nodes = s.required_nodes();
  out.excluded_nodes = s.excluded_nodes();
  out.script = s.script();
  out.argv.assign(s.argv().begin(), s.argv().end());
  out.environment =
      std::map<std::string, std::string>(s.environment().begin(), s.environment().end());
  out.export_none = s.export_none();
  out.work_dir = s.work_dir();
  out.stdout_path = s.stdout_path();
  out.stderr_path = s.stderr_path();
  out.stdin_path = s.stdin_path();
  out.open_append = s.open_append();
  out.requeue = s.requeue();
  out.hold = s.hold();
  out.submit_host = s.submit_host();
  out.submit_dir = s.submit_dir();
  out.nice = s.nice();
  out.array_spec = s.array_spec();
  out.warn_signal = s.warn_signal();
  out.warn_time = FromProtoDuration(s.warn_time());
  out.warn_batch_only = s.warn_batch_only();
  for (const WireDependency& d : s.dependencies()) {
    if (std::optional<core::Dependency> item = DependencyFromProto(d); item.has_value()) {
      out.dependencies.push_back(*item);
    }
  }
  out.dependency_any = s.dependency_any();
  if (s.has_kill_on_invalid_dep()) {
    out.kill_on_invalid_dep = s.kill_on_invalid_dep();
  }
  if (s.has_begin_time()) {
    out.begin_time = FromProtoTime(s.begin_time());
  }
  out.qos = s.qos();
  out.comment = s.comment();
  out.wckey = s.wckey();
  out.mail_type = s.mail_type();
  out.mail_user = s.mail_user();
  out.reservation = s.reservation();
  if (s.has_deadline()) {
    out.deadline = FromProtoTime(s.deadline());
  }
  if (s.has_delay_boot()) {
    out.delay_boot = FromProtoDuration(s.delay_boot());
  }
  out.container = s.container();
  out.gpus_per_task = s.gpus_per_task();
  out.cpus_per_gpu = s.cpus_per_gpu();
  out.mem_per_gpu_mib = s.mem_per_gpu_mib();
  out.gpu_bind = s.gpu_bind();
  out.gpus_per_job = s.gpus_per_job();
  out.gpus_per_node_requested = s.gpus_per_node_requested();
  out.overcommit = s.overcommit();
  out.exclusive_mode = s.exclusive_mode();
  return out;
}

canopy::v1::JobSpec ToProto(const core::JobSpec& s, const FieldNumbers& want) {
  using F = canopy::v1::JobSpec;
  canopy::v1::JobSpec out;
  if (want(F::kNameFieldNumber)) out.set_name(s.name);
  if (want(F::kPartitionFieldNumber)) out.set_partition(s.partition);
  if (want(F::kAccountFieldNumber)) out.set_account(s.account);
  if (want(F::kMinNodesFieldNumber)) out.set_min_nodes(s.min_nodes);
  if (want(F::kMaxNodesFieldNumber)) out.set_max_nodes(s.max_nodes);
  if (want(F::kNtasksFieldNumber)) out.set_ntasks(s.ntasks);
  if (want(F::kNtasksPerNodeFieldNumber)) out.set_ntasks_per_node(s.ntasks_per_node);
  if (want(F::kCpusPerTaskFieldNumber)) out.set_cpus_per_task(s.cpus_per_task);
  if (want(F::kMemPerNodeMibFieldNumber)) out.set_mem_per_node_mib(s.mem_per_node_mib);
  if (want(F::kGpusPerNodeFieldNumber)) out.set_gpus_per_node(s.gpus_per_node);
  if (want(F::kGpuTypeFieldNumber)) out.set_gpu_type(s.gpu_type);
  if (want(F::kExclusiveFieldNumber)) out.set_exclusive(s.exclusive);
  if (want(F::kTimeLimitFieldNumber) && s.time_limit.has_value()) {
    *out.mutable_time_limit() = ToProtoDuration(*s.time_limit);
  }
  if (want(F::kMaxSwitchesFieldNumber)) out.set_max_switches(s.max_switches);
  if (want(F::kSwitchesWaitFieldNumber) && s.switches_wait.has_value()) {
    *out.mutable_switches_wait() = ToProtoDuration(*s.switches_wait);
  }
  if (want(F::kRequiredNodesFieldNumber)) out.set_required_nodes(s.required_nodes);
  if (want(F::kExcludedNodesFieldNumber)) out.set_excluded_nodes(s.excluded_nodes);
  if (want(F::kScriptFieldNumber)) out.set_script(s.script);
  if (want(F::kArgvFieldNumber)) *out.mutable_argv() = {s.argv.begin(), s.argv.end()};
  if (want(F::kEnvironmentFieldNumber)) {
    out.mutable_environment()->insert(s.environment.begin(), s.environment.end());
  }
  if (want(F::kExportNoneFieldNumber)) out.set_export_none(s.export_none);
  if (want(F::kWorkDirFieldNumber)) out.set_work_dir(s.work_dir);
  if (want(F::kStdoutPathFieldNumber)) out.set_stdout_path(s.stdout_path);
  if (want(F::kStderrPathFieldNumber)) out.set_stderr_path(s.stderr_path);
  if (want(F::kStdinPathFieldNumber)) out.set_stdin_path(s.stdin_path);
  if (want(F::kOpenAppendFieldNumber)) out.set_open_append(s.open_append);
  if (want(F::kRequeueFieldNumber)) out.set_requeue(s.requeue);
  if (want(F::kHoldFieldNumber)) out.set_hold(s.hold);
  if (want(F::kSubmitHostFieldNumber)) out.set_submit_host(s.submit_host);
  if (want(F::kSubmitDirFieldNumber)) out.set_submit_dir(s.submit_dir);
  if (want(F::kNiceFieldNumber)) out.set_nice(s.nice);
  if (want(F::kArraySpecFieldNumber)) out.set_array_spec(s.array_spec);
  if (want(F::kWarnSignalFieldNumber)) out.set_warn_signal(s.warn_signal);
  if (want(F::kWarnTimeFieldNumber) &&
      (s.warn_signal != 0 || s.warn_time != absl::ZeroDuration())) {
    *out.mutable_warn_time() = ToProtoDuration(s.warn_time);
  }
  if (want(F::kWarnBatchOnlyFieldNumber)) out.set_warn_batch_only(s.warn_batch_only);
  if (want(F::kDependenciesFieldNumber)) {
    for (const core::Dependency& d : s.dependencies) {
      *out.add_dependencies() = DependencyToProto(d);
    }
  }
  if (want(F::kDependencyAnyFieldNumber)) out.set_dependency_any(s.dependency_any);
  if (want(F::kKillOnInvalidDepFieldNumber) && s.kill_on_invalid_dep.has_value()) {
    out.set_kill_on_invalid_dep(*s.kill_on_invalid_dep);
  }
  if (want(F::kBeginTimeFieldNumber) && s.begin_time != absl::InfinitePast()) {
    *out.mutable_begin_time() = ToProtoTime(s.begin_time);
  }
  if (want(F::kQosFieldNumber)) out.set_qos(s.qos);
  if (want(F::kCommentFieldNumber)) out.set_comment(s.comment);
  if (want(F::kWckeyFieldNumber)) out.set_wckey(s.wckey);
  if (want(F::kMailTypeFieldNumber)) out.set_mail_type(s.mail_type);
  if (want(F::kMailUserFieldNumber)) out.set_mail_user(s.mail_user);
  if (want(F::kReservationFieldNumber)) out.set_reservation(s.reservation);
  if (want(F::kDeadlineFieldNumber) && s.deadline != absl::InfinitePast()) {
    *out.mutable_deadline() = ToProtoTime(s.deadline);
  }
  if (want(F::kDelayBootFieldNumber) && s.delay_boot != absl::ZeroDuration()) {
    *out.mutable_delay_boot() = ToProtoDuration(s.delay_boot);
  }
  if (want(F::kContainerFieldNumber)) out.set_container(s.container);
  if (want(F::kGpusPerTaskFieldNumber)) out.set_gpus_per_task(s.gpus_per_task);
  if (want(F::kCpusPerGpuFieldNumber)) out.set_cpus_per_gpu(s.cpus_per_gpu);
  if (want(F::kMemPerGpuMibFieldNumber)) out.set_mem_per_gpu_mib(s.mem_per_gpu_mib);
  if (want(F::kGpuBindFieldNumber)) out.set_gpu_bind(s.gpu_bind);
  if (want(F::kGpusPerJobFieldNumber)) out.set_gpus_per_job(s.gpus_per_job);
  if (want(F::kGpusPerNodeRequestedFieldNumber)) {
    out.set_gpus_per_node_requested(s.gpus_per_node_requested);
  }
  if (want(F::kOvercommitFieldNumber)) out.set_overcommit(s.overcommit);
  if (want(F::kExclusiveModeFieldNumber)) out.set_exclusive_mode(s.exclusive_mode);
  return out;
}

canopy::v1::Job ToProto(const core::Job& job, const topology::Topology& topology,
                        const FieldNumbers& want, const FieldNumbers& want_spec) {
  using F = canopy::v1::Job;
  canopy::v1::Job out;
  if (want(F::kJobIdFieldNumber)) out.set_job_id(job.id.value());
  if (want(F::kSpecFieldNumber)) {
    *out.mutable_spec() = ToProto(*job.spec, want_spec);
  }
  if (want(F::kStateFieldNumber)) out.set_state(ToProtoState(job.state));
  if (want(F::kReasonFieldNumber)) out.set_reason(std::string(core::JobReasonName(job.reason)));
  if (want(F::kUserIdFieldNumber)) out.set_user_id(job.user_id);
  if (want(F::kGroupIdFieldNumber)) out.set_group_id(job.group_id);
  if (want(F::kUserNameFieldNumber)) out.set_user_name(job.user_name);
  if (want(F::kSupplementaryGidsFieldNumber)) {
    out.mutable_supplementary_gids()->Add(job.supplementary_gids.begin(),
                                          job.supplementary_gids.end());
  }
  std::vector<core::SwitchId> leaves;
  for (const core::NodeShare& share : job.allocation.nodes) {
    if (want(F::kNodesFieldNumber)) out.add_nodes(topology.node_name(share.node));
    if (want(F::kGpusPerNodeAllocatedFieldNumber)) out.add_gpus_per_node_allocated(share.gpus);
    if (want(F::kCpusAllocatedFieldNumber)) out.add_cpus_allocated(share.cpus);
    if (want(F::kMemAllocatedMibFieldNumber)) out.add_mem_allocated_mib(share.mem_mib);
    if (want(F::kNodeGpuIndexesFieldNumber)) {
      out.add_node_gpu_indexes(absl::StrJoin(share.gpu_indexes, ","));
    }
    if (const core::SwitchId leaf = topology.leaf_of(share.node);
        want(F::kLeafSwitchesFieldNumber) && leaf.valid()) {
      leaves.push_back(leaf);
    }
  }
  std::sort(leaves.begin(), leaves.end());
  leaves.erase(std::unique(leaves.begin(), leaves.end()), leaves.end());
  for (core::SwitchId leaf : leaves) {
    out.add_leaf_switches(topology.switch_name(leaf));
  }
  if (want(F::kSubmitTimeFieldNumber)) *out.mutable_submit_time() = ToProtoTime(job.submit_time);
  if (want(F::kStartTimeFieldNumber)) *out.mutable_start_time() = ToProtoTime(job.start_time);
  if (want(F::kEndTimeFieldNumber)) *out.mutable_end_time() = ToProtoTime(job.end_time);
  if (want(F::kExitCodeFieldNumber)) out.set_exit_code(job.exit_code);
  if (want(F::kExitSignalFieldNumber)) out.set_exit_signal(job.exit_signal);
  if (want(F::kRestartCountFieldNumber)) out.set_restart_count(job.restart_count);
  if (want(F::kPriorityFieldNumber)) out.set_priority(job.priority);
  if (want(F::kPlacementExplanationFieldNumber)) {
    out.set_placement_explanation(job.placement_explanation);
  }
  if (want(F::kArrayJobIdFieldNumber)) out.set_array_job_id(job.array_job_id);
  if (want(F::kArrayTaskIdFieldNumber)) out.set_array_task_id(job.array_task_id);
  if (want(F::kTimeLimitFieldNumber) && job.time_limit != absl::InfiniteDuration()) {
    *out.mutable_time_limit() = ToProtoDuration(job.time_limit);
  }
  if (want(F::kPartitionFieldNumber)) out.set_partition(job.partition);
  if (want(F::kCompletingToFieldNumber) && job.completing_to.has_value()) {
    out.set_completing_to(ToProtoState(*job.completing_to));
  }
  if (want(F::kIdempotencyKeyFieldNumber)) out.set_idempotency_key(job.idempotency_key);
  if (want(F::kNextStepIdFieldNumber)) out.set_next_step_id(job.next_step_id);
  if (want(F::kStateMessageFieldNumber)) out.set_state_message(job.state_message);
  if (want(F::kRunIdFieldNumber)) out.set_run_id(job.run_id);
  if (want(F::kExpectedStartFieldNumber) && job.expected_start != absl::InfinitePast()) {
    *out.mutable_expected_start() = ToProtoTime(job.expected_start);
  }
  if (want(F::kExpectedNodesFieldNumber)) {
    for (core::NodeId node : job.expected_nodes) {
      out.add_expected_nodes(topology.node_name(node));
    }
  }
  if (want(F::kPriorityFixedFieldNumber)) out.set_priority_fixed(job.priority_fixed);
  if (want(F::kEligibleTimeFieldNumber) && job.eligible_time != absl::InfinitePast()) {
    *out.mutable_eligible_time() = ToProtoTime(job.eligible_time);
  }
  if (want(F::kQosFieldNumber)) out.set_qos(job.qos);
  return out;
}

canopy::v1::JobStep StepToProto(const core::StepRecord& step, const topology::Topology& topology) {
  canopy::v1::JobStep out;
  out.set_step_id(step.step_id);
  out.set_name(step.name);
  out.set_state(ToProtoState(step.state));
  for (core::NodeId node : step.nodes) {
    out.add_nodes(topology.node_name(node));
  }
  if (step.start_time != absl::InfinitePast()) {
    *out.mutable_start_time() = ToProtoTime(step.start_time);
  }
  out.set_ntasks(step.ntasks);
  out.set_cpus(step.cpus);
  out.set_gpus(step.gpus);
  return out;
}

absl::StatusOr<core::Job> FromProto(const canopy::v1::Job& r, const topology::Topology& topology) {
  core::Job job;
  job.id = core::JobId(r.job_id());
  job.spec = FromProto(r.spec());
  job.state = FromProtoState(r.state());
  job.reason = core::JobReasonFromName(r.reason()).value_or(core::JobReason::kNone);
  job.user_id = r.user_id();
  job.group_id = r.group_id();
  job.user_name = r.user_name();
  job.supplementary_gids.assign(r.supplementary_gids().begin(), r.supplementary_gids().end());
  job.partition = r.partition();
  job.qos = r.qos();
  job.time_limit =
      r.has_time_limit() ? FromProtoDuration(r.time_limit()) : absl::InfiniteDuration();
  job.array_job_id = r.array_job_id();
  job.array_task_id = r.array_task_id();
  job.idempotency_key = r.idempotency_key();
  job.priority = r.priority();
  job.priority_fixed = r.priority_fixed();
  if (r.completing_to() != canopy::v1::JOB_STATE_UNSPECIFIED) {
    job.completing_to = FromProtoState(r.completing_to());
  }
  job.state_message = r.state_message();
  job.placement_explanation = r.placement_explanation();
  job.submit_time = FromProtoTime(r.submit_time());
  job.eligible_time = r.has_eligible_time() ? FromProtoTime(r.eligible_time()) : job.submit_time;
  job.start_time = FromProtoTime(r.start_time());
  job.end_time = FromProtoTime(r.end_time());
  job.restart_count = r.restart_count();
  job.exit_code = r.exit_code();
  job.exit_signal = r.exit_signal();
  job.run_id = r.run_id();
  job.next_step_id = r.next_step_id();
  const int n = r.nodes_size();
  if (r.gpus_per_node_allocated_size() != n || r.cpus_allocated_size() != n ||
      r.mem_allocated_mib_size() != n) {
    return absl::InvalidArgumentError(
        absl::StrCat("job ", r.job_id(), ": per-node allocation lists disagree"));
  }
  job.allocation.exclusive = r.spec().exclusive();
  for (int i = 0; i < n; ++i) {
    core::NodeShare share;
    share.node = topology.FindNode(r.nodes(i));
    if (!share.node.valid()) {
      return absl::InvalidArgumentError(
          absl::StrCat("job ", r.job_id(), ": node ", r.nodes(i), " is no longer configured"));
    }
    share.gpus = r.gpus_per_node_allocated(i);
    share.cpus = r.cpus_allocated(i);
    share.mem_mib = r.mem_allocated_mib(i);
    if (i < r.node_gpu_indexes_size()) {
      for (absl::string_view g : absl::StrSplit(r.node_gpu_indexes(i), ',', absl::SkipEmpty())) {
        int index = 0;
        if (absl::SimpleAtoi(g, &index)) {
          share.gpu_indexes.push_back(index);
        }
      }
    }
    job.allocation.nodes.push_back(std::move(share));
  }
  return job;
}

canopy::v1::ControllerMessage ToProto(const lifecycle::AgentMessage& message,
                                      const topology::Topology& topology,
                                      const config::ClusterConfig& config) {
  canopy::v1::ControllerMessage out;
  std::visit(
      [&](const auto& m) {
        using M = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<M, lifecycle::LaunchJob>) {
          *out.mutable_launch_job() = LaunchToProto(m, topology, config);
        } else if constexpr (std::is_same_v<M, lifecycle::SignalJob>) {
          canopy::v1::SignalJob* sig = out.mutable_signal_job();
          sig->set_job_id(m.job.value());
          sig->set_signal(m.signal);
          sig->set_batch_only(m.batch_only);
        } else if constexpr (std::is_same_v<M, lifecycle::KillJob>) {
          canopy::v1::KillJob* kill = out.mutable_kill_job();
          kill->set_job_id(m.job.value());
          kill->set_reason(m.reason);
          *kill->mutable_kill_wait() = ToProtoDuration(config.kill_wait);
        } else if constexpr (std::is_same_v<M, lifecycle::LaunchStep>) {
          *out.mutable_launch_step() = StepToProto(m, config);
        } else if constexpr (std::is_same_v<M, lifecycle::KillStep>) {
          canopy::v1::KillStep* kill = out.mutable_kill_step();
          kill->set_job_id(m.job.value());
          kill->set_step_id(m.step_id);
          kill->set_signal(m.signal);
          *kill->mutable_kill_wait() = ToProtoDuration(config.kill_wait);
        } else if constexpr (std::is_same_v<M, lifecycle::JobNotice>) {
          canopy::v1::NotifyJob* notify = out.mutable_notify_job();
          notify->set_job_id(m.job.value());
          notify->set_message(m.message);
          notify->mutable_step_ids()->Add(m.step_ids.begin(), m.step_ids.end());
        } else if constexpr (std::is_same_v<M, lifecycle::StepAttach>) {
          canopy::v1::AttachStep* attach = out.mutable_attach_step();
          attach->set_job_id(m.job.value());
          attach->set_step_id(m.step_id);
          attach->set_io_address(m.io_address);
          attach->set_io_token(m.io_token);
        } else {
          static_assert(std::is_same_v<M, lifecycle::JobReportAck>);
          canopy::v1::JobStatusAck* ack = out.mutable_job_status_ack();
          ack->set_job_id(m.job.value());
          ack->set_phase(PhaseToProto(m.phase));
          ack->set_run_id(m.run_id);
        }
      },
      message);
  return out;
}

}  // namespace canopy::server
