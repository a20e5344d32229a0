#include "common/slurm/job_environment.h"

#include <algorithm>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/slurm/hostlist.h"
#include "common/slurm/task_layout.h"

namespace canopy::slurm {

Environment AllocationVariables(const JobEnvironmentInput& job) {
  const int32_t nodes = std::max<int32_t>(1, static_cast<int32_t>(job.nodes.size()));
  const std::string nodelist = CompressHostlist(job.nodes);
  // The same block distribution srun uses for steps (task_layout.h); a job's nodes were already
  // cut down to its task count at submission, so every node gets at least one task.
  absl::StatusOr<TaskLayout> layout = LayOutTasks(nodes, nodes, job.ntasks, job.ntasks_per_node);
  const int32_t ntasks = layout.ok()               ? layout->ntasks
                         : job.ntasks > 0          ? job.ntasks
                         : job.ntasks_per_node > 0 ? nodes * job.ntasks_per_node
                                                   : nodes;

  Environment env;
  const std::string job_id = absl::StrCat(job.job_id);
  env["SLURM_JOB_ID"] = job_id;
  env["SLURM_JOBID"] = job_id;
  env["SLURM_JOB_NAME"] = job.job_name;
  env["SLURM_JOB_NODELIST"] = nodelist;
  env["SLURM_NODELIST"] = nodelist;
  env["SLURM_JOB_NUM_NODES"] = absl::StrCat(nodes);
  env["SLURM_NNODES"] = absl::StrCat(nodes);
  if (job.ntasks > 0 || job.ntasks_per_node > 0) {
    env["SLURM_NTASKS"] = absl::StrCat(ntasks);
    env["SLURM_NPROCS"] = absl::StrCat(ntasks);
  }
  if (job.ntasks_per_node > 0) {
    env["SLURM_NTASKS_PER_NODE"] = absl::StrCat(job.ntasks_per_node);
  }
  env["SLURM_TASKS_PER_NODE"] =
      layout.ok() ? layout->TasksPerNodeString() : CompressCounts(std::vector<int32_t>(nodes, 1));
  // The launch carries this node's CPU count only: the allocation is taken as uniform.
  env["SLURM_JOB_CPUS_PER_NODE"] = CompressCounts(std::vector<int32_t>(nodes, job.cpus));
  env["SLURM_JOB_PARTITION"] = job.partition;
  if (!job.account.empty()) {
    env["SLURM_JOB_ACCOUNT"] = job.account;
  }
  if (!job.qos.empty()) {
    env["SLURM_JOB_QOS"] = job.qos;
  }
  env["SLURM_JOB_USER"] = job.user_name;
  env["SLURM_JOB_UID"] = absl::StrCat(job.user_id);
  env["SLURM_JOB_GID"] = absl::StrCat(job.group_id);
  env["SLURM_SUBMIT_DIR"] = job.submit_dir;
  env["SLURM_SUBMIT_HOST"] = job.submit_host;
  env["SLURM_CLUSTER_NAME"] = job.cluster_name;
  if (job.restart_count > 0) {
    env["SLURM_RESTART_COUNT"] = absl::StrCat(job.restart_count);
  }
  if (job.array_job_id != 0) {
    env["SLURM_ARRAY_JOB_ID"] = absl::StrCat(job.array_job_id);
    env["SLURM_ARRAY_TASK_ID"] = absl::StrCat(job.array_task_id);
  }
  return env;
}

Environment JobVariables(const JobEnvironmentInput& job) {
  Environment env = AllocationVariables(job);
  env["SLURM_CPUS_ON_NODE"] = absl::StrCat(job.cpus);
  env["SLURMD_NODENAME"] = job.node_name;
  env["SLURM_NODEID"] = absl::StrCat(job.node_index);
  env["SLURM_PROCID"] = "0";
  env["SLURM_LOCALID"] = "0";
  env["SLURM_GTIDS"] = "0";
  env["SLURM_TOPOLOGY_ADDR"] = job.topology_addr;
  env["SLURM_TOPOLOGY_ADDR_PATTERN"] = job.topology_addr_pattern;
  if (!job.gpu_indexes.empty()) {
    const std::string gpus = absl::StrJoin(job.gpu_indexes, ",");
    env["SLURM_GPUS_ON_NODE"] = absl::StrCat(job.gpu_indexes.size());
    env["SLURM_JOB_GPUS"] = gpus;
    std::string visible = gpus;
    if (job.gpus_confined) {
      std::vector<int> local(job.gpu_indexes.size());
      std::iota(local.begin(), local.end(), 0);
      visible = absl::StrJoin(local, ",");
    }
    env[job.amd_gpus ? "ROCR_VISIBLE_DEVICES" : "CUDA_VISIBLE_DEVICES"] = visible;
  }
  return env;
}

Environment StepVariables(const JobEnvironmentInput& job, const StepEnvironmentInput& step,
                          int rank, int local_id) {
  Environment env = JobVariables(job);
  const std::string step_id = absl::StrCat(step.step_id);
  env["SLURM_STEP_ID"] = step_id;
  env["SLURM_STEPID"] = step_id;
  env["SLURM_PROCID"] = absl::StrCat(rank);
  env["SLURM_LOCALID"] = absl::StrCat(local_id);
  env["SLURM_NODEID"] = absl::StrCat(step.node_index);
  env["SLURM_NTASKS"] = absl::StrCat(step.ntasks);
  env["SLURM_NPROCS"] = absl::StrCat(step.ntasks);
  env["SLURM_STEP_NUM_TASKS"] = absl::StrCat(step.ntasks);
  env["SLURM_STEP_NODELIST"] = step.nodelist;
  env["SLURM_STEP_NUM_NODES"] = absl::StrCat(step.num_nodes);
  env["SLURM_STEP_TASKS_PER_NODE"] = step.tasks_per_node;
  env["SLURM_TASKS_PER_NODE"] = step.tasks_per_node;
  env["SLURM_GTIDS"] = absl::StrJoin(step.task_ranks, ",");
  return env;
}

Environment SubmitOptionVariables(const SubmitOptionsInput& options) {
  Environment env;
  auto set_count = [&env](const char* name, const std::optional<int64_t>& value) {
    if (value.has_value()) {
      env[name] = absl::StrCat(*value);
    }
  };
  auto set_gpus = [&env](const char* name, const std::string& value) {
    if (!value.empty()) {
      env[name] = value;
    }
  };
  set_count("SLURM_CPUS_PER_TASK", options.cpus_per_task);
  set_count("SLURM_MEM_PER_NODE", options.mem_per_node_mib);
  set_count("SLURM_MEM_PER_GPU", options.mem_per_gpu_mib);
  set_count("SLURM_CPUS_PER_GPU", options.cpus_per_gpu);
  set_gpus("SLURM_GPUS", options.gpus);
  set_gpus("SLURM_GPUS_PER_NODE", options.gpus_per_node);
  set_gpus("SLURM_GPUS_PER_TASK", options.gpus_per_task);
  if (options.overcommit) {
    env["SLURM_OVERCOMMIT"] = "1";
  }
  if (!options.distribution.empty()) {
    env["SLURM_DISTRIBUTION"] = options.distribution;
  }
  return env;
}

bool IsJobOwnVariable(std::string_view name) {
  static constexpr std::string_view kOwn[] = {
      // The options' (sbatch, salloc) and the submission's (sbatch).
      "SLURM_CPUS_PER_TASK", "SLURM_MEM_PER_NODE", "SLURM_MEM_PER_GPU", "SLURM_CPUS_PER_GPU",
      "SLURM_GPUS", "SLURM_GPUS_PER_NODE", "SLURM_GPUS_PER_TASK", "SLURM_OVERCOMMIT",
      "SLURM_DISTRIBUTION", "SLURM_JOB_DEPENDENCY", "SLURM_ARRAY_TASK_COUNT",
      "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_MAX", "SLURM_ARRAY_TASK_STEP",
      // The allocation's, set only where they apply (AllocationVariables, JobVariables).
      "SLURM_NTASKS", "SLURM_NPROCS", "SLURM_NTASKS_PER_NODE", "SLURM_RESTART_COUNT",
      "SLURM_JOB_ACCOUNT", "SLURM_JOB_QOS", "SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID",
      "SLURM_JOB_GPUS", "SLURM_GPUS_ON_NODE"};
  return std::find(std::begin(kOwn), std::end(kOwn), name) != std::end(kOwn);
}

std::vector<std::string> EnvironmentStrings(const Environment& env) {
  std::vector<std::string> out;
  out.reserve(env.size());
  for (const auto& [key, value] : env) {
    out.push_back(absl::StrCat(key, "=", value));
  }
  return out;
}

}  // namespace canopy::slurm
