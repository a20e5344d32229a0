#include "agent/runtime/spank_wrapper.h"

#include <fcntl.h>

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "agent/runtime/spawn_report.h"

namespace canopy::agent::runtime {

std::string CpuListText(std::vector<int> cpus) {
  std::sort(cpus.begin(), cpus.end());
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) {
      ++j;
    }
    absl::StrAppend(&out, out.empty() ? "" : ",", cpus[i]);
    if (j > i) {
      absl::StrAppend(&out, "-", cpus[j]);
    }
    i = j + 1;
  }
  return out;
}

std::vector<std::string> SpankJobArgs(const SpankSettings& settings,
                                      const canopy::v1::LaunchJob& launch,
                                      const std::vector<int>& cpus) {
  if (!settings.enabled()) {
    return {};
  }
  const canopy::v1::Job& job = launch.job();
  std::vector<std::string> args = {settings.helper};
  if (!settings.plugstack.empty()) {
    args.push_back(absl::StrCat("--plugstack=", settings.plugstack));
    args.push_back(absl::StrCat("--plugin-dir=", settings.plugin_dirs));
  }
  if (!settings.task_prolog.empty()) {
    args.push_back(absl::StrCat("--task-prolog=", settings.task_prolog));
  }
  if (!settings.task_epilog.empty()) {
    args.push_back(absl::StrCat("--task-epilog=", settings.task_epilog));
  }
  const std::vector<std::string> items = {
      absl::StrCat("--restart-count=", job.restart_count()),
      absl::StrCat("--array-job-id=", job.array_job_id()),
      absl::StrCat("--ncpus=", std::min(launch.cpus(), 65535)),
  };
  args.insert(args.end(), items.begin(), items.end());
  if (job.array_job_id() != 0) {
    args.push_back(absl::StrCat("--array-task-id=", job.array_task_id()));
  }
  if (!cpus.empty()) {
    args.push_back(absl::StrCat("--job-cores=", CpuListText(cpus)));
  }
  const int index = launch.node_index();
  if (index >= 0 && index < job.mem_allocated_mib_size() && job.mem_allocated_mib(index) > 0) {
    args.push_back(absl::StrCat("--job-mem-mb=", job.mem_allocated_mib(index)));
  }
  return args;
}

std::vector<std::string> SpankTaskArgs(std::vector<std::string> job_args, uint32_t job_id,
                                       uint32_t step_id, uint32_t step_nodes, uint32_t step_node_id,
                                       uint32_t total_tasks, const std::vector<int>& ranks,
                                       int local_id) {
  if (job_args.empty()) {
    return {};
  }
  const std::string step = step_id == kBatchScriptStepId ? "batch" : absl::StrCat("step ", step_id);
  job_args.push_back(absl::StrCat("--label=job ", job_id, " ", step, " task ", local_id));
  job_args.push_back(absl::StrCat("--job-id=", job_id));
  job_args.push_back(absl::StrCat("--step-id=", step_id));
  job_args.push_back(absl::StrCat("--nnodes=", step_nodes));
  job_args.push_back(absl::StrCat("--node-id=", step_node_id));
  job_args.push_back(absl::StrCat("--total-tasks=", total_tasks));
  job_args.push_back(absl::StrCat("--local-tasks=", ranks.size()));
  job_args.push_back(absl::StrCat("--global-task-ids=", absl::StrJoin(ranks, ",")));
  job_args.push_back(absl::StrCat("--task-local-id=", local_id));
  return job_args;
}

std::vector<std::string> SpankAllTasksArgs(const std::vector<const SpawnRequest*>& tasks,
                                           std::vector<int>& wrapper_fds) {
  std::vector<std::string> args = {"--all-tasks",
                                   absl::StrCat("--exits-fd=", kWrapperFirstExtraFd)};
  const std::vector<std::string>& env0 = tasks[0]->env;
  const std::set<std::string> env0_set(env0.begin(), env0.end());
  std::set<std::string> env0_names;
  for (const std::string& entry : env0) {
    env0_names.insert(entry.substr(0, entry.find('=')));
  }
  auto stream = [&](const std::string& path, int flags, int fd) {
    if (!path.empty()) {
      return absl::StrCat((flags & O_APPEND) != 0 ? "append:" : "truncate:", path);
    }
    wrapper_fds.push_back(fd);
    return absl::StrCat("fd:", kWrapperFirstExtraFd + static_cast<int>(wrapper_fds.size()) - 1);
  };
  for (size_t i = 1; i < tasks.size(); ++i) {
    const SpawnRequest& task = *tasks[i];
    std::set<std::string> names;
    for (const std::string& entry : task.env) {
      names.insert(entry.substr(0, entry.find('=')));
      if (!env0_set.contains(entry)) {
        args.push_back(absl::StrCat("--task-env=", i, ":", entry));
      }
    }
    for (const std::string& name : env0_names) {
      if (!names.contains(name)) {
        args.push_back(absl::StrCat("--task-unset=", i, ":", name));
      }
    }
    args.push_back(absl::StrCat("--task-stdout=", i, ":",
                                stream(task.stdout_path, task.stdout_flags, task.stdout_fd)));
    if (!task.stderr_path.empty() && task.stderr_path == task.stdout_path) {
      args.push_back(absl::StrCat("--task-stderr=", i, ":stdout"));
    } else {
      args.push_back(absl::StrCat("--task-stderr=", i, ":",
                                  stream(task.stderr_path, task.stderr_flags, task.stderr_fd)));
    }
  }
  return args;
}

}  // namespace canopy::agent::runtime
