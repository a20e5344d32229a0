// Admission: what happens to a job before it waits in the queue. A submitted spec is checked
// against the cluster and resolved (defaults, CPUs per node, node names to ids); arrays become
// one job per task with consecutive ids; a retried submit with the same idempotency key gets
// the first answer again.
//
// ResolveSpec is pure and thread-safe; Submit changes the lifecycle's state (owner thread only).
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "common/config/cluster_config.h"
#include "scheduler/core/job.h"
#include "scheduler/lifecycle/caller.h"
#include "scheduler/lifecycle/commands.h"
#include "scheduler/lifecycle/effects.h"
#include "scheduler/lifecycle/lifecycle_state.h"
#include "scheduler/topology/topology.h"

namespace canopy::lifecycle {

// What a submitted spec resolves to on this cluster.
struct ResolvedSpec {
  core::ResourceRequest resources;
  const config::PartitionConfig* partition = nullptr;
  absl::Duration time_limit = absl::InfiniteDuration();  // effective; infinite = UNLIMITED
  // Set when the job can be queued but can never start as asked (it pends with this reason, as
  // in Slurm: PartitionNodeLimit, PartitionTimeLimit, PartitionDown).
  core::JobReason blocked = core::JobReason::kNone;
};

// Checks `spec` against the cluster and resolves defaults. InvalidArgument with Slurm's words
// for what sbatch refuses outright: "Invalid partition name specified", "Requested node
// configuration is not available" (more GPUs/CPUs/memory per node than any node of the
// partition has, an unknown GPU type), "Invalid node name specified" (-w/-x), and messages
// naming the field for malformed values (negative counts, a bad hostlist, an environment
// variable that execve could not pass). Fewer tasks than nodes cut the node count down to the
// task count, as sbatch does ("can't run 2 processes on 4 nodes, setting nnodes to 2").
absl::StatusOr<ResolvedSpec> ResolveSpec(const core::JobSpec& spec,
                                         const config::ClusterConfig& config,
                                         const topology::Topology& topology);

// The partition limit a job of `min_nodes` nodes and this time limit does not meet
// (PartitionDown, PartitionTimeLimit or PartitionNodeLimit, the last one found winning, as
// ResolveSpec reports them), or kNone.
core::JobReason PartitionLimitReason(const config::PartitionConfig& part, int32_t min_nodes,
                                     absl::Duration time_limit);

// Queues the request's job (or one job per array task) as PENDING, owned by `caller`, waiting
// for its hold, dependency or begin time if it has one (dependencies.h).
// PermissionDenied for an anonymous caller; the errors of ResolveSpec, of the array spec and of
// ResolveDependencies.
absl::StatusOr<SubmitAnswer> Submit(LifecycleState& s, SubmitRequest request, const Caller& caller,
                                    Effects& effects);

// sbatch --test-only: the checks of Submit, then when and where the job would start
// (launch.h WillRun); nothing is queued. FailedPrecondition for a job that would pend for ever
// on a partition limit.
absl::StatusOr<WillRunAnswer> TestSubmit(const LifecycleState& s, const SubmitRequest& request,
                                         const Caller& caller);

// The key under which LifecycleState::idempotency holds a submission's idempotency key: per
// user, so one user's key never answers another user's submit with a job that is not theirs.
std::string IdempotencyIndexKey(uint32_t uid, absl::string_view key);

}  // namespace canopy::lifecycle
