#include "agent/runtime/job_scripts.h"

#include <sys/wait.h>
#include <unistd.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "agent/runtime/spawn.h"
#include "common/slurm/hostlist.h"
#include "common/slurm/job_environment.h"

namespace canopy::agent::runtime {

std::vector<std::string> JobScriptEnvironment(const canopy::v1::LaunchJob& launch,
                                              const std::string& node_name,
                                              const JobScriptSettings& settings, JobScript which) {
  const canopy::v1::Job& job = launch.job();
  const canopy::v1::JobSpec& spec = job.spec();
  std::vector<std::string> env;
  auto add = [&env](absl::string_view name, const auto& value) {
    env.push_back(absl::StrCat(name, "=", value));
  };
  // SPANK job control variables first (as Slurm puts the spank_job_env first), SPANK_ in front.
  for (const auto& [key, value] : spec.environment()) {
    if (absl::StartsWith(key, slurm::kSpankJobEnvPrefix)) {
      const std::string name = key.substr(sizeof(slurm::kSpankJobEnvPrefix) - 1);
      add(absl::StartsWith(name, "SPANK_") ? name : absl::StrCat("SPANK_", name), value);
    }
  }
  add("SLURMD_NODENAME", node_name);
  if (!settings.config_path.empty()) {
    add("SLURM_CONF", settings.config_path);
  }
  add("SLURM_CLUSTER_NAME",
      launch.cluster_name().empty() ? settings.cluster_name : launch.cluster_name());
  add("SLURM_JOB_ID", job.job_id());
  add("SLURM_JOBID", job.job_id());
  add("SLURM_JOB_UID", job.user_id());
  add("SLURM_UID", job.user_id());
  add("SLURM_JOB_GID", job.group_id());
  add("SLURM_JOB_USER", job.user_name());
  add("SLURM_JOB_WORK_DIR", spec.work_dir().empty() ? spec.submit_dir() : spec.work_dir());
  add("SLURM_NODELIST",
      slurm::CompressHostlist(std::vector<std::string>(job.nodes().begin(), job.nodes().end())));
  add("SLURM_JOB_PARTITION", job.partition());
  add("SLURM_JOB_ACCOUNT", spec.account());
  if (!spec.comment().empty()) {
    add("SLURM_JOB_COMMENT", spec.comment());
  }
  add("SLURM_JOB_NUM_NODES", job.nodes_size());
  add("SLURM_JOB_CPUS_PER_NODE", launch.cpus());
  add("SLURM_JOB_RESTART_COUNT", job.restart_count());
  add("SLURM_SCRIPT_CONTEXT", which == JobScript::kProlog ? "prolog_slurmd" : "epilog_slurmd");
  return env;
}

absl::StatusOr<pid_t> StartJobScript(JobScript which, const canopy::v1::LaunchJob& launch,
                                     const std::string& node_name,
                                     const JobScriptSettings& settings, const SpankSettings& spank,
                                     int log_fd, ChildReaper& reaper,
                                     ChildReaper::ExitCallback on_exit) {
  const bool prolog = which == JobScript::kProlog;
  const std::string& script = prolog ? settings.prolog : settings.epilog;
  const bool spank_hooks = prolog ? settings.spank_job_prolog : settings.spank_job_epilog;
  SpawnRequest req;
  req.env = JobScriptEnvironment(launch, node_name, settings, which);
  req.work_dir = "/";
  req.stdin_path = "/dev/null";
  req.stdout_fd = log_fd;
  req.stderr_fd = log_fd;
  if (spank_hooks && spank.enabled()) {
    // The helper runs the plugins' hooks, then the script (if any), in a fresh process each time
    // as Slurm's "slurmstepd spank prolog|epilog" does.
    req.wrapper = {
        spank.helper,
        absl::StrCat("--job-script=", prolog ? "prolog" : "epilog"),
        absl::StrCat("--plugstack=", spank.plugstack),
        absl::StrCat("--plugin-dir=", spank.plugin_dirs),
        absl::StrCat("--label=job ", launch.job().job_id(), prolog ? " prolog" : " epilog"),
        absl::StrCat("--job-id=", launch.job().job_id()),
        absl::StrCat("--job-uid=", launch.job().user_id()),
        absl::StrCat("--job-gid=", launch.job().group_id())};
    req.wrapper_log_fd = log_fd;
  }
  if (!script.empty()) {
    req.argv = {script};
  } else {
    req.argv = {"/bin/true"};  // the hooks alone
  }
  return Spawn(req, reaper, std::move(on_exit));
}

std::string DescribeScriptFailure(JobScript which, int wait_status) {
  const int code = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 0;
  const int sig = WIFSIGNALED(wait_status) ? WTERMSIG(wait_status) : 0;
  return absl::StrCat(which == JobScript::kProlog ? "prolog" : "epilog", " failed status=", code,
                      ":", sig);
}

}  // namespace canopy::agent::runtime
