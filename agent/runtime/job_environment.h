// The environment of a job's processes on one node: the batch script's (BuildJobEnvironment) and
// a step task's (BuildStepEnvironment), with the SLURM_* variables sbatch and srun document in
// their "OUTPUT ENVIRONMENT VARIABLES" sections. Pure functions of the controller's messages and
// this node's identity; no I/O; thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "canopy/v1/agent.pb.h"

namespace canopy::agent::runtime {

// Ordered so the envp handed to execve is deterministic (and tests compare whole maps).
using Environment = std::map<std::string, std::string>;

// What the builders need to know about the node they run on.
struct NodeIdentity {
  std::string node_name;  // SLURMD_NODENAME
  // The node's GPUs are AMD's: ROCR_VISIBLE_DEVICES is set instead of CUDA_VISIBLE_DEVICES.
  bool amd_gpus = false;
};

// Slurm's compressed per-node count list: {2,2,2,1} -> "2(x3),1".
std::string CompressCounts(const std::vector<int>& counts);

// Tasks of the job on each node, in allocation order: ntasks_per_node when set, else spec.ntasks
// spread as Slurm's block distribution does (the first nodes get one more), else one per node.
std::vector<int> TasksPerNode(const canopy::v1::Job& job);

// Only the variables the agent computes for the job (SLURM_JOB_ID, ..., CUDA_VISIBLE_DEVICES);
// no spec.environment. Step tasks get these too.
Environment JobVariables(const canopy::v1::LaunchJob& launch, const NodeIdentity& node);

// The batch script's environment: spec.environment (nothing with spec.export_none), then
// JobVariables on top.
Environment BuildJobEnvironment(const canopy::v1::LaunchJob& launch, const NodeIdentity& node);

// A step task's environment: srun's (step.environment), then the job's variables on this node,
// then the step's own (SLURM_STEP_ID, SLURM_PROCID = rank, SLURM_LOCALID = local_id, ...).
Environment BuildStepEnvironment(const canopy::v1::LaunchJob& launch,
                                 const canopy::v1::LaunchStep& step, const NodeIdentity& node,
                                 int rank, int local_id);

// "KEY=VALUE" strings for execve.
std::vector<std::string> EnvironmentStrings(const Environment& env);

}  // namespace canopy::agent::runtime
