// The SLURM_* environment of a job's processes on one node: the batch script's variables and a
// step task's, as sbatch(1) and srun(1) document them in "OUTPUT ENVIRONMENT VARIABLES".
//
// The inputs are plain facts (the agent fills them from the controller's LaunchJob and
// LaunchStep); the outputs are ordered maps, so the envp handed to execve is deterministic and
// tests can compare whole maps. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace canopy::slurm {

// Variables sbatch, salloc and srun put in a job's environment for the site's SPANK plugins, which
// the agent takes out before any task starts: the options given to plugins (Slurm's own names)
// and the plugins' job control environment (spank_job_control_setenv; Slurm's spank_job_env,
// which only the Prolog and Epilog see, as SPANK_NAME).
inline constexpr char kSpankOptionPrefix[] = "_SLURM_SPANK_OPTION_";
inline constexpr char kSpankJobEnvPrefix[] = "_CANOPY_SPANK_JOB_ENV_";

// A task's own pid (the batch script's, or a step task's), which only the process that starts it
// knows: the agent's spawn, or the SPANK task helper, sets it as the task starts.
inline constexpr char kTaskPidVariable[] = "SLURM_TASK_PID";

using Environment = std::map<std::string, std::string>;

// What the job variables are made of, for one node of the job.
struct JobEnvironmentInput {
  uint32_t job_id = 0;
  std::string job_name;
  std::vector<std::string> nodes;  // the allocation, first = batch host
  // -n and --ntasks-per-node as asked; 0 = unset. SLURM_NTASKS is set only when one of them
  // was (Slurm leaves it out otherwise, and srun then runs a task per node).
  int32_t ntasks = 0;
  int32_t ntasks_per_node = 0;
  std::string partition;
  std::string account;  // empty: SLURM_JOB_ACCOUNT is left out
  std::string qos;      // SLURM_JOB_QOS; empty: left out
  std::string user_name;
  uint32_t user_id = 0;
  uint32_t group_id = 0;
  std::string submit_dir;
  std::string submit_host;
  std::string cluster_name;
  int32_t restart_count = 0;  // SLURM_RESTART_COUNT, set only once the job has restarted
  uint32_t array_job_id = 0;  // 0 = not an array task
  uint32_t array_task_id = 0;

  // This node.
  std::string node_name;             // SLURMD_NODENAME
  int32_t node_index = 0;            // SLURM_NODEID
  int32_t cpus = 0;                  // CPUs given to the job here (SLURM_CPUS_ON_NODE)
  std::vector<int32_t> gpu_indexes;  // GPUs given to the job here
  bool amd_gpus = false;             // ROCR_VISIBLE_DEVICES instead of CUDA_VISIBLE_DEVICES
  // The job can open only its own GPUs' device files (a cgroup device filter): CUDA and ROCm
  // then see just those and number them from 0, so *_VISIBLE_DEVICES does too, as under
  // Slurm's ConstrainDevices. SLURM_JOB_GPUS keeps the node's numbers.
  bool gpus_confined = false;
  std::string topology_addr;
  std::string topology_addr_pattern;
};

// A step's part on one node.
struct StepEnvironmentInput {
  uint32_t step_id = 0;
  int32_t node_index = 0;  // within the step
  int32_t ntasks = 0;
  std::string nodelist;  // compressed hostlist
  int32_t num_nodes = 0;
  std::string tasks_per_node;       // compressed counts, e.g. "2(x4)"
  std::vector<int32_t> task_ranks;  // the ranks of the step's tasks on this node (SLURM_GTIDS)
};

// The options sbatch and salloc put in the job's environment themselves, as Slurm's do
// (SLURM_CPUS_PER_TASK, SLURM_MEM_PER_NODE, SLURM_GPUS_PER_NODE, ...): each only where its
// option was given. Srun's own options, inside the allocation, are srun's to set.
struct SubmitOptionsInput {
  std::optional<int64_t> cpus_per_task;     // -c
  std::optional<int64_t> mem_per_node_mib;  // --mem as given (not worked out from --mem-per-gpu)
  std::optional<int64_t> mem_per_gpu_mib;   // --mem-per-gpu
  std::optional<int64_t> cpus_per_gpu;      // --cpus-per-gpu
  // -G/--gpus, --gpus-per-node (not --gres) and --gpus-per-task as written ("2", "h100:2");
  // empty: not given.
  std::string gpus;
  std::string gpus_per_node;
  std::string gpus_per_task;
  bool overcommit = false;   // -O: SLURM_OVERCOMMIT=1
  std::string distribution;  // -m, as Slurm prints it
};

// The variables that describe the allocation as a whole, with nothing of one node: what salloc
// gives the command it runs on the submit host (SLURM_JOB_ID, SLURM_JOB_NODELIST,
// SLURM_JOB_NUM_NODES, SLURM_TASKS_PER_NODE, SLURM_JOB_CPUS_PER_NODE from `cpus`, ...).
Environment AllocationVariables(const JobEnvironmentInput& job);

// The variables a job's batch script (and every step task) gets on this node: SLURM_JOB_ID,
// SLURM_JOB_NODELIST, SLURM_TASKS_PER_NODE, SLURM_CPUS_ON_NODE, CUDA_VISIBLE_DEVICES, ...
// The batch script is task 0 of the batch step (SLURM_PROCID = SLURM_LOCALID = 0).
Environment JobVariables(const JobEnvironmentInput& job);

// The job's variables with a step task's own on top (SLURM_STEP_ID, SLURM_PROCID = rank,
// SLURM_LOCALID = local_id, SLURM_NTASKS of the step, ...).
Environment StepVariables(const JobEnvironmentInput& job, const StepEnvironmentInput& step,
                          int rank, int local_id);

// SLURM_CPUS_PER_TASK, SLURM_MEM_PER_NODE, SLURM_MEM_PER_GPU, SLURM_CPUS_PER_GPU, SLURM_GPUS,
// SLURM_GPUS_PER_NODE, SLURM_GPUS_PER_TASK, SLURM_OVERCOMMIT, SLURM_DISTRIBUTION: those of
// `options` that were given.
Environment SubmitOptionVariables(const SubmitOptionsInput& options);

// Whether `name` is one of the variables a job gets from its own submission or allocation, and
// only sometimes (SubmitOptionVariables', SLURM_JOB_DEPENDENCY, SLURM_ARRAY_*, SLURM_NTASKS,
// SLURM_RESTART_COUNT, SLURM_JOB_ACCOUNT, ...): a value of an enclosing job's in the submitter's
// environment (sbatch or salloc run inside a job) is dropped rather than passed on as this
// job's, so `sbatch -N2` inside an `-n 8` job does not have srun run 8 tasks.
bool IsJobOwnVariable(std::string_view name);

// "KEY=VALUE" strings for execve.
std::vector<std::string> EnvironmentStrings(const Environment& env);

}  // namespace canopy::slurm
