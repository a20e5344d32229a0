#include "agent/runtime/job_environment.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/slurm/hostlist.h"

namespace canopy::agent::runtime {
namespace {

std::string GpuList(const canopy::v1::LaunchJob& launch) {
  return absl::StrJoin(launch.gpu_indexes(), ",");
}

int NumNodes(const canopy::v1::Job& job) { return std::max(1, job.nodes_size()); }

}  // namespace

std::string CompressCounts(const std::vector<int>& counts) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < counts.size();) {
    size_t j = i;
    while (j < counts.size() && counts[j] == counts[i]) {
      ++j;
    }
    const size_t run = j - i;
    parts.push_back(run == 1 ? absl::StrCat(counts[i]) : absl::StrCat(counts[i], "(x", run, ")"));
    i = j;
  }
  return absl::StrJoin(parts, ",");
}

std::vector<int> TasksPerNode(const canopy::v1::Job& job) {
  const int nodes = NumNodes(job);
  const canopy::v1::JobSpec& spec = job.spec();
  if (spec.ntasks_per_node() > 0) {
    return std::vector<int>(nodes, spec.ntasks_per_node());
  }
  if (spec.ntasks() > 0) {
    std::vector<int> counts(nodes, spec.ntasks() / nodes);
    for (int i = 0; i < spec.ntasks() % nodes; ++i) {
      ++counts[i];
    }
    return counts;
  }
  return std::vector<int>(nodes, 1);
}

Environment JobVariables(const canopy::v1::LaunchJob& launch, const NodeIdentity& node) {
  const canopy::v1::Job& job = launch.job();
  const canopy::v1::JobSpec& spec = job.spec();
  const int nodes = NumNodes(job);
  const std::vector<std::string> node_names(job.nodes().begin(), job.nodes().end());
  const std::string nodelist = slurm::CompressHostlist(node_names);
  int ntasks = spec.ntasks();
  if (ntasks <= 0) {
    ntasks = spec.ntasks_per_node() > 0 ? nodes * spec.ntasks_per_node() : nodes;
  }

  Environment env;
  const std::string job_id = absl::StrCat(job.job_id());
  env["SLURM_JOB_ID"] = job_id;
  env["SLURM_JOBID"] = job_id;
  env["SLURM_JOB_NAME"] = spec.name();
  env["SLURM_JOB_NODELIST"] = nodelist;
  env["SLURM_NODELIST"] = nodelist;
  env["SLURM_JOB_NUM_NODES"] = absl::StrCat(nodes);
  env["SLURM_NNODES"] = absl::StrCat(nodes);
  env["SLURM_NTASKS"] = absl::StrCat(ntasks);
  env["SLURM_NPROCS"] = absl::StrCat(ntasks);
  if (spec.ntasks_per_node() > 0) {
    env["SLURM_NTASKS_PER_NODE"] = absl::StrCat(spec.ntasks_per_node());
  }
  env["SLURM_TASKS_PER_NODE"] = CompressCounts(TasksPerNode(job));
  env["SLURM_CPUS_ON_NODE"] = absl::StrCat(launch.cpus());
  // The Job message carries no per-node CPU counts: the allocation is taken as uniform, with
  // this node's count on every node.
  env["SLURM_JOB_CPUS_PER_NODE"] = CompressCounts(std::vector<int>(nodes, launch.cpus()));
  env["SLURM_JOB_PARTITION"] = job.partition().empty() ? spec.partition() : job.partition();
  env["SLURM_JOB_ACCOUNT"] = spec.account();
  env["SLURM_JOB_USER"] = job.user_name();
  env["SLURM_JOB_UID"] = absl::StrCat(job.user_id());
  env["SLURM_JOB_GID"] = absl::StrCat(job.group_id());
  env["SLURM_SUBMIT_DIR"] = spec.submit_dir();
  env["SLURM_SUBMIT_HOST"] = spec.submit_host();
  env["SLURM_CLUSTER_NAME"] = launch.cluster_name();
  env["SLURM_RESTART_COUNT"] = absl::StrCat(job.restart_count());
  env["SLURMD_NODENAME"] = node.node_name;
  env["SLURM_NODEID"] = absl::StrCat(launch.node_index());
  // The batch script is task 0 of the batch step, as in Slurm; a step's tasks override these.
  env["SLURM_PROCID"] = "0";
  env["SLURM_LOCALID"] = "0";
  env["SLURM_TOPOLOGY_ADDR"] = launch.topology_addr();
  env["SLURM_TOPOLOGY_ADDR_PATTERN"] = launch.topology_addr_pattern();
  if (launch.gpu_indexes_size() > 0) {
    const std::string gpus = GpuList(launch);
    env["SLURM_GPUS_ON_NODE"] = absl::StrCat(launch.gpu_indexes_size());
    env["SLURM_JOB_GPUS"] = gpus;
    env[node.amd_gpus ? "ROCR_VISIBLE_DEVICES" : "CUDA_VISIBLE_DEVICES"] = gpus;
  }
  if (job.array_job_id() != 0) {
    env["SLURM_ARRAY_JOB_ID"] = absl::StrCat(job.array_job_id());
    env["SLURM_ARRAY_TASK_ID"] = absl::StrCat(job.array_task_id());
  }
  return env;
}

Environment BuildJobEnvironment(const canopy::v1::LaunchJob& launch, const NodeIdentity& node) {
  Environment env;
  if (!launch.job().spec().export_none()) {
    env.insert(launch.job().spec().environment().begin(), launch.job().spec().environment().end());
  }
  for (auto& [key, value] : JobVariables(launch, node)) {
    env[key] = std::move(value);
  }
  return env;
}

Environment BuildStepEnvironment(const canopy::v1::LaunchJob& launch,
                                 const canopy::v1::LaunchStep& step, const NodeIdentity& node,
                                 int rank, int local_id) {
  Environment env(step.environment().begin(), step.environment().end());
  for (auto& [key, value] : JobVariables(launch, node)) {
    env[key] = std::move(value);
  }
  const std::string step_id = absl::StrCat(step.step_id());
  env["SLURM_STEP_ID"] = step_id;
  env["SLURM_STEPID"] = step_id;
  env["SLURM_PROCID"] = absl::StrCat(rank);
  env["SLURM_LOCALID"] = absl::StrCat(local_id);
  env["SLURM_NODEID"] = absl::StrCat(step.node_index());
  env["SLURM_NTASKS"] = absl::StrCat(step.ntasks());
  env["SLURM_NPROCS"] = absl::StrCat(step.ntasks());
  env["SLURM_STEP_NUM_TASKS"] = absl::StrCat(step.ntasks());
  env["SLURM_STEP_NODELIST"] = step.step_nodelist();
  env["SLURM_STEP_NUM_NODES"] = absl::StrCat(step.step_num_nodes());
  env["SLURM_STEP_TASKS_PER_NODE"] = step.tasks_per_node();
  env["SLURM_TASKS_PER_NODE"] = step.tasks_per_node();
  return env;
}

std::vector<std::string> EnvironmentStrings(const Environment& env) {
  std::vector<std::string> out;
  out.reserve(env.size());
  for (const auto& [key, value] : env) {
    out.push_back(absl::StrCat(key, "=", value));
  }
  return out;
}

}  // namespace canopy::agent::runtime
