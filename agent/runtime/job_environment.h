// The environment of a job's processes on one node: the batch script's (BuildJobEnvironment) and
// a step task's (BuildStepEnvironment). The SLURM_* variables come from common/slurm's builder
// (job_environment.h there); this file turns the controller's messages into its inputs and puts
// the user's exported environment underneath. Pure functions; no I/O; thread-safe.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "canopy/v1/agent.pb.h"
#include "common/slurm/job_environment.h"

namespace canopy::agent::runtime {

using slurm::Environment;
using slurm::EnvironmentStrings;

// What the builders need to know about the node they run on.
struct NodeIdentity {
  std::string node_name;  // SLURMD_NODENAME
  // The node's GPUs are AMD's: ROCR_VISIBLE_DEVICES is set instead of CUDA_VISIBLE_DEVICES.
  bool amd_gpus = false;
  // This job's cgroup refuses the other GPUs' device files (JobEnvironmentInput::gpus_confined).
  bool gpus_confined = false;
};

// The facts of a LaunchJob on this node, for the SLURM_* builders.
slurm::JobEnvironmentInput JobEnvironmentInputOf(const canopy::v1::LaunchJob& launch,
                                                 const NodeIdentity& node);

// The batch script's environment: the user's login environment when the job asked for it and
// the node loaded it (`login`, may be null), then spec.environment (only its SLURM_* variables
// with spec.export_none), then the job's SLURM_* variables on top.
Environment BuildJobEnvironment(const canopy::v1::LaunchJob& launch, const NodeIdentity& node,
                                const Environment* login = nullptr);

// The job asks the node for the user's login environment (SLURM_GET_USER_ENV=1: sbatch
// --get-user-env, --export=NONE or a list).
bool WantsLoginEnvironment(const canopy::v1::LaunchJob& launch);

// A step task's environment: srun's (step.environment), then the job's variables on this node,
// then the step's own (SLURM_STEP_ID, SLURM_PROCID = rank, SLURM_LOCALID = local_id, ...).
Environment BuildStepEnvironment(const canopy::v1::LaunchJob& launch,
                                 const canopy::v1::LaunchStep& step, const NodeIdentity& node,
                                 int rank, int local_id);

// The file-creation mask a job's processes run with: SLURM_UMASK in `env` ("KEY=VALUE"
// entries), the octal mask sbatch and srun pass on from their caller, as Slurm's do. The entry
// is taken out of `env`, as slurmstepd unsets it once applied. nullopt when unset or not an
// octal mask (0-0777): the agent's own then applies.
std::optional<mode_t> TakeUmask(std::vector<std::string>& env);

}  // namespace canopy::agent::runtime
