// Conversions between the wire types (proto/canopy/v1) and the controller's own types: nodes
// and registrations here (proto_convert.cc), jobs, requests, reports and agent messages in
// proto_convert_jobs.cc. The only place the two meet (STYLE.md §3). Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "canopy/v1/agent.pb.h"
#include "canopy/v1/controller.pb.h"
#include "canopy/v1/types.pb.h"
#include "common/config/cluster_config.h"
#include "common/rpc/status_convert.h"
#include "google/protobuf/repeated_ptr_field.h"
#include "scheduler/core/job.h"
#include "scheduler/core/job_history.h"
#include "scheduler/lifecycle/commands.h"
#include "scheduler/lifecycle/effects.h"
#include "scheduler/state/node_record.h"
#include "scheduler/topology/topology.h"

namespace canopy::server {

// ---- Nodes

state::NodeRegistration FromProto(const canopy::v1::Register& reg);
std::vector<state::GpuStatus> GpusFromProto(
    const google::protobuf::RepeatedPtrField<canopy::v1::Gpu>& gpus);

// `partitions` are the partitions holding the node; `topology` gives its switch path; `config`
// is its NodeName line (features, weight, CPU layout); `last_heard` when the node was last heard
// from (ClusterSnapshot::LastHeard: a published record's own is stale).
canopy::v1::Node NodeToProto(const state::NodeRecord& node, const state::NodeUse& use,
                             const config::NodeConfig& config,
                             const std::vector<std::string>& partitions,
                             const topology::Topology& topology, absl::Time last_heard);

// ---- Jobs

canopy::v1::JobState ToProtoState(core::JobState state);
core::JobState FromProtoState(canopy::v1::JobState state);

// What the core's JobSpec cannot express: InvalidArgument naming the field (a dependency of
// unknown type). FromProto drops such items, so submissions are checked with this first.
absl::Status CheckWireSpec(const canopy::v1::JobSpec& spec);
core::JobSpec FromProto(const canopy::v1::JobSpec& spec);
// One dependency item; nullopt for an unknown type. Its state and whole_array are the
// controller's to decide (ResolveDependencies resets them).
std::optional<core::Dependency> DependencyFromProto(const canopy::v1::JobDependency& item);
// Which fields of a message a conversion fills, by field number (up to 63); every one unless
// narrowed (a ListJobs read mask, job_read_mask.h).
class FieldNumbers {
 public:
  FieldNumbers() = default;  // every field
  static FieldNumbers None() {
    FieldNumbers none;
    none.all_ = false;
    return none;
  }
  void Add(int number) {
    all_ = false;
    if (number > 0 && number < 64) {
      set_ |= uint64_t{1} << number;
    }
  }
  bool operator()(int number) const {
    return all_ || (number > 0 && number < 64 && (set_ & (uint64_t{1} << number)) != 0);
  }
  bool none() const { return !all_ && set_ == 0; }

 private:
  bool all_ = true;
  uint64_t set_ = 0;
};

canopy::v1::JobSpec ToProto(const core::JobSpec& spec, const FieldNumbers& want = FieldNumbers());

// The wire record of a job: its allocation by node name, with the leaf switches it spans.
// Only the fields `want` names (and of the spec, those `want_spec` names).
canopy::v1::Job ToProto(const core::Job& job, const topology::Topology& topology,
                        const FieldNumbers& want = FieldNumbers(),
                        const FieldNumbers& want_spec = FieldNumbers());
// A running srun step, its nodes by name.
canopy::v1::JobStep StepToProto(const core::StepRecord& step, const topology::Topology& topology);
// A record stored by schema 2 (a serialised canopy.v1.Job) as the core's record. A node name the
// topology no longer has is InvalidArgument naming it.
absl::StatusOr<core::Job> FromProto(const canopy::v1::Job& record,
                                    const topology::Topology& topology);

// ---- Requests and answers

lifecycle::SubmitRequest FromProto(const canopy::v1::SubmitJobRequest& request);
lifecycle::CancelRequest FromProto(const canopy::v1::CancelJobRequest& request);
lifecycle::StepRequest FromProto(const canopy::v1::CreateStepRequest& request);
lifecycle::CancelStepRequest FromProto(const canopy::v1::CancelStepRequest& request);
lifecycle::CompleteRequest FromProto(const canopy::v1::CompleteJobRequest& request);
lifecycle::JobActionRequest FromProto(const canopy::v1::HoldJobsRequest& request);
lifecycle::JobActionRequest FromProto(const canopy::v1::ReleaseJobsRequest& request);
lifecycle::JobActionRequest FromProto(const canopy::v1::RequeueJobsRequest& request);
// The TimeLimit part of an UpdateJob request; nullopt when it changes no time limit.
std::optional<lifecycle::TimeLimitChange> TimeLimitFromProto(
    const canopy::v1::UpdateJobRequest& request);
// The Name/Comment/Partition/NumNodes/ExcNodeList/ReqNodeList/Dependency part of an UpdateJob
// request (empty when it changes none). InvalidArgument naming the field for a dependency of
// unknown type or a negative node count.
absl::StatusOr<lifecycle::JobEdit> JobEditFromProto(const canopy::v1::UpdateJobRequest& request);

canopy::v1::SubmitJobResponse ToProto(const lifecycle::SubmitAnswer& answer);
canopy::v1::CancelJobResponse ToProto(const std::vector<lifecycle::CancelAnswer>& answers);
canopy::v1::CreateStepResponse ToProto(const lifecycle::StepAnswer& answer);
canopy::v1::JobActionResponse ToProto(const std::vector<lifecycle::JobActionAnswer>& answers);

// ---- Agents

// nullopt for a phase this build does not know (UNSPECIFIED, or one a newer agent sends): such
// a report must not be taken for a launch confirmation.
std::optional<lifecycle::JobReport> FromProto(const canopy::v1::JobStatus& status);
lifecycle::StepReport FromProto(const canopy::v1::StepStatus& status);
// The jobs a registering agent still has: Register.running_jobs, or, from an agent that sends
// only running_job_ids, those ids with nothing known about what they use.
std::vector<lifecycle::RunningJob> RunningJobsFromProto(const canopy::v1::Register& reg);

// A message for an agent, with what the agent needs from the configuration (cluster name,
// KillWait) and the topology (node names, SLURM_TOPOLOGY_ADDR).
canopy::v1::ControllerMessage ToProto(const lifecycle::AgentMessage& message,
                                      const topology::Topology& topology,
                                      const config::ClusterConfig& config);

}  // namespace canopy::server
