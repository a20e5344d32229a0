#include "agent/runtime/job_environment.h"

#include <algorithm>
#include <utility>

#include "absl/strings/match.h"

namespace canopy::agent::runtime {

slurm::JobEnvironmentInput JobEnvironmentInputOf(const canopy::v1::LaunchJob& launch,
                                                 const NodeIdentity& node) {
  const canopy::v1::Job& job = launch.job();
  const canopy::v1::JobSpec& spec = job.spec();
  slurm::JobEnvironmentInput in;
  in.job_id = job.job_id();
  in.job_name = spec.name();
  in.nodes.assign(job.nodes().begin(), job.nodes().end());
  in.ntasks = spec.ntasks();
  in.ntasks_per_node = spec.ntasks_per_node();
  in.partition = job.partition().empty() ? spec.partition() : job.partition();
  in.account = spec.account();
  in.qos = job.qos();
  in.user_name = job.user_name();
  in.user_id = job.user_id();
  in.group_id = job.group_id();
  in.submit_dir = spec.submit_dir();
  in.submit_host = spec.submit_host();
  in.cluster_name = launch.cluster_name();
  in.restart_count = job.restart_count();
  in.array_job_id = job.array_job_id();
  in.array_task_id = job.array_task_id();
  in.node_name = node.node_name;
  in.node_index = launch.node_index();
  in.cpus = launch.cpus();
  in.gpu_indexes.assign(launch.gpu_indexes().begin(), launch.gpu_indexes().end());
  in.amd_gpus = node.amd_gpus;
  in.gpus_confined = node.gpus_confined;
  in.topology_addr = launch.topology_addr();
  in.topology_addr_pattern = launch.topology_addr_pattern();
  return in;
}

Environment BuildJobEnvironment(const canopy::v1::LaunchJob& launch, const NodeIdentity& node,
                                const Environment* login) {
  Environment env;
  if (login != nullptr) {
    env = *login;  // underneath: what the job brought wins
  }
  for (const auto& [key, value] : launch.job().spec().environment()) {
    // SPANK plugins' options travel with the job whatever --export says (the task helper takes
    // them out before the task starts); their job control variables are the prolog's only.
    if (absl::StartsWith(key, slurm::kSpankJobEnvPrefix)) {
      continue;
    }
    // --export=NONE still carries the submitter's SLURM_* variables (sbatch(1)).
    if (!launch.job().spec().export_none() || absl::StartsWith(key, "SLURM_") ||
        absl::StartsWith(key, slurm::kSpankOptionPrefix)) {
      env[key] = value;
    }
  }
  for (auto& [key, value] : slurm::JobVariables(JobEnvironmentInputOf(launch, node))) {
    env[key] = std::move(value);
  }
  return env;
}

Environment BuildStepEnvironment(const canopy::v1::LaunchJob& launch,
                                 const canopy::v1::LaunchStep& step, const NodeIdentity& node,
                                 int rank, int local_id) {
  Environment env(step.environment().begin(), step.environment().end());
  slurm::StepEnvironmentInput s;
  s.step_id = step.step_id();
  s.node_index = step.node_index();
  s.ntasks = step.ntasks();
  s.nodelist = step.step_nodelist();
  s.num_nodes = step.step_num_nodes();
  s.tasks_per_node = step.tasks_per_node();
  s.task_ranks.assign(step.task_ranks().begin(), step.task_ranks().end());
  for (auto& [key, value] :
       slurm::StepVariables(JobEnvironmentInputOf(launch, node), s, rank, local_id)) {
    env[key] = std::move(value);
  }
  return env;
}

bool WantsLoginEnvironment(const canopy::v1::LaunchJob& launch) {
  const auto& env = launch.job().spec().environment();
  auto it = env.find("SLURM_GET_USER_ENV");
  return it != env.end() && it->second == "1";
}

std::optional<mode_t> TakeUmask(std::vector<std::string>& env) {
  auto it = std::find_if(env.begin(), env.end(), [](const std::string& entry) {
    return absl::StartsWith(entry, "SLURM_UMASK=");
  });
  if (it == env.end()) {
    return std::nullopt;
  }
  const std::string value = it->substr(sizeof("SLURM_UMASK=") - 1);
  env.erase(it);
  if (value.empty() || value.size() > 4) {
    return std::nullopt;
  }
  mode_t mask = 0;
  for (char c : value) {
    if (c < '0' || c > '7') {
      return std::nullopt;
    }
    mask = mask * 8 + static_cast<mode_t>(c - '0');
  }
  return mask <= 0777 ? std::optional<mode_t>(mask) : std::nullopt;
}

}  // namespace canopy::agent::runtime
