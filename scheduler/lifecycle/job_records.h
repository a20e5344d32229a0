// Conversions between the wire/database record of a job (canopy.v1.Job, the whole truth about a
// job, persisted as is) and the scheduler core's Job (what placement and the state machine
// need). Pure functions of the configuration; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "canopy/v1/types.pb.h"
#include "common/config/cluster_config.h"
#include "scheduler/core/job.h"
#include "scheduler/topology/topology.h"

namespace canopy::lifecycle {

// What a submitted spec resolves to on this cluster.
struct ResolvedSpec {
  core::JobSpec core;
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
// naming the field for malformed values (negative counts, a bad hostlist).
absl::StatusOr<ResolvedSpec> ResolveSpec(const canopy::v1::JobSpec& spec,
                                         const config::ClusterConfig& config,
                                         const topology::Topology& topology);

// The proto enum for a core state and back.
canopy::v1::JobState ToProtoState(core::JobState state);
core::JobState FromProtoState(canopy::v1::JobState state);

// Copies the core job's state, reason, times, exit status, restart count and allocation (node
// names, GPUs/CPUs/memory per node) into `record`. `gpu_indexes` gives, per allocated node, the
// GPU indexes the job holds there.
void SyncRecord(const core::Job& job, const topology::Topology& topology,
                const std::vector<std::vector<int>>& gpu_indexes, canopy::v1::Job& record);

// The allocation stored in a record (after a restart), or InvalidArgument if it names unknown
// nodes or its per-node lists disagree.
absl::StatusOr<core::Allocation> AllocationFromRecord(const canopy::v1::Job& record,
                                                      const topology::Topology& topology);

// Per allocated node, the GPU indexes of a record ("0,1,2" each).
std::vector<std::vector<int>> GpuIndexesFromRecord(const canopy::v1::Job& record);

// Slurm's reason names back to the enum ("Resources" -> kResources); kNone if unknown.
core::JobReason ReasonFromName(absl::string_view name);

}  // namespace canopy::lifecycle
