#include "ctl/srun/requests.h"

#include "absl/strings/str_cat.h"
#include "common/slurm/option_values.h"

namespace canopy::ctl::srun {

canopy::v1::JobSpec BuildAllocationSpec(const SrunOptions& o, const std::string& cwd,
                                        const std::string& short_hostname) {
  canopy::v1::JobSpec spec;
  const std::string& program = o.command.front();
  spec.set_name(o.job_name.empty() ? program.substr(program.rfind('/') + 1) : o.job_name);
  spec.set_partition(o.partition);
  spec.set_account(o.account);
  spec.set_min_nodes(o.nodes.value_or(0));
  if (o.max_nodes.has_value() && o.max_nodes != o.nodes) {
    spec.set_max_nodes(*o.max_nodes);
  }
  spec.set_ntasks(o.ntasks.value_or(0));
  spec.set_ntasks_per_node(o.ntasks_per_node.value_or(0));
  spec.set_cpus_per_task(o.cpus_per_task.value_or(0));
  spec.set_gpus_per_node(o.gpus_per_node.value_or(0));
  spec.set_gpu_type(o.gpu_type);
  spec.set_exclusive(o.exclusive);
  if (o.time_limit && *o.time_limit != absl::InfiniteDuration()) {
    spec.mutable_time_limit()->set_seconds(absl::ToInt64Seconds(*o.time_limit));
  }
  spec.set_required_nodes(o.nodelist);
  spec.set_excluded_nodes(o.exclude);
  spec.set_work_dir(cwd);
  spec.set_submit_dir(cwd);
  spec.set_submit_host(short_hostname);
  return spec;
}

canopy::v1::CreateStepRequest BuildStepRequest(const SrunOptions& o, uint32_t job_id,
                                               const std::map<std::string, std::string>& env,
                                               const std::string& cwd) {
  canopy::v1::CreateStepRequest request;
  request.set_job_id(job_id);
  request.set_nodes(o.nodes.value_or(0));
  request.set_ntasks(o.ntasks.value_or(0));
  request.set_ntasks_per_node(o.ntasks_per_node.value_or(0));
  for (const std::string& a : o.command) {
    request.add_argv(a);
  }
  const slurm::ExportedEnvironment exported = slurm::ExportEnvironment(o.export_env, env);
  request.mutable_environment()->insert(exported.variables.begin(), exported.variables.end());
  if (o.chdir.empty()) {
    request.set_work_dir(cwd);
  } else {
    request.set_work_dir(o.chdir[0] == '/' ? o.chdir : absl::StrCat(cwd, "/", o.chdir));
  }
  request.set_stdout_path(o.output);
  request.set_stderr_path(o.error);
  request.set_name(o.job_name);
  return request;
}

}  // namespace canopy::ctl::srun
