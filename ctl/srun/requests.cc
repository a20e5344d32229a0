#include "ctl/srun/requests.h"

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/slurm/option_values.h"
#include "common/slurm/recorded_option_values.h"

namespace canopy::ctl::srun {
namespace {

// The options the allocation records for scontrol and sacct (types.proto), and GPU requests per
// task folded into per-node ones as sbatch does (ctl/sbatch/job_spec.h).
void RecordOptions(const SrunOptions& o, canopy::v1::JobSpec& spec) {
  spec.set_comment(o.comment);
  spec.set_wckey(o.wckey);
  if (o.mail_type) {
    spec.set_mail_type(slurm::MailTypeString(*o.mail_type));
  }
  spec.set_mail_user(o.mail_user);
  spec.set_reservation(o.reservation);
  if (o.deadline) {
    spec.mutable_deadline()->set_seconds(absl::ToUnixSeconds(*o.deadline));
  }
  if (o.delay_boot && *o.delay_boot != absl::InfiniteDuration()) {
    spec.mutable_delay_boot()->set_seconds(absl::ToInt64Seconds(*o.delay_boot));
  }
  spec.set_container(o.container);
  if (o.gpus_per_task) {
    spec.set_gpus_per_task(*o.gpus_per_task);
    if (spec.gpus_per_node() == 0) {
      auto widen = [](std::optional<int> n) {
        return n ? std::optional<int64_t>(*n) : std::nullopt;
      };
      spec.set_gpus_per_node(static_cast<int32_t>(slurm::GpusPerNodeForTasks(
          *o.gpus_per_task, widen(o.ntasks), widen(o.ntasks_per_node), o.nodes.value_or(1))));
    }
  }
  spec.set_cpus_per_gpu(o.cpus_per_gpu.value_or(0));
  if (o.mem_per_gpu_mib) {
    spec.set_mem_per_gpu_mib(*o.mem_per_gpu_mib);
    spec.set_mem_per_node_mib(*o.mem_per_gpu_mib * spec.gpus_per_node());
  }
  spec.set_gpu_bind(o.gpu_bind);
  spec.set_overcommit(o.overcommit);
  spec.set_exclusive_mode(std::string(slurm::ExclusiveModeName(o.exclusive_mode)));
  if (o.run_as_uid) {
    spec.set_run_as_uid(*o.run_as_uid);
  }
  if (o.run_as_gid) {
    spec.set_run_as_gid(*o.run_as_gid);
  }
}

}  // namespace

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
  spec.set_gpus_per_node_requested(o.gpus_per_node.has_value());
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
  RecordOptions(o, spec);
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
  if (o.cpus_per_task) {
    // srun's own -c, over what the batch script had (Slurm 22.05's srun does the same; its
    // other options leave the job's variables as they are).
    (*request.mutable_environment())["SLURM_CPUS_PER_TASK"] = absl::StrCat(*o.cpus_per_task);
  }
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
