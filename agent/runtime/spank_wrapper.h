// How the runtime starts tasks under the site's SPANK plugins: each task's process is the SPANK
// task helper (plugins/spank/spank_task_main.cc, canopy-spank-task) given the job's and the
// task's items, which runs the plugins' remote hooks around the task (SpawnRequest::wrapper).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "agent/runtime/spawn.h"
#include "canopy/v1/agent.pb.h"

namespace canopy::agent::runtime {

struct SpankSettings {
  // canopy-spank-task; empty: tasks are started directly (no plugins, no TaskProlog/Epilog).
  std::string helper;
  std::string plugstack;    // PlugStackConfig, read by the helper at every launch; empty: none
  std::string plugin_dirs;  // PluginDir
  std::string task_prolog;  // TaskProlog / TaskEpilog, which the helper runs around each task
  std::string task_epilog;
  bool enabled() const { return !helper.empty(); }
};

// Slurm's step id of a batch script (SLURM_BATCH_SCRIPT), which S_JOB_STEPID gives there.
inline constexpr uint32_t kBatchScriptStepId = 0xfffffffb;

// The helper's command line up to the task's own items: the helper, the plugin stack and the
// job's items on this node (`cpus`: the CPU ids the job was pinned to, empty if none).
// Empty when `settings` is not enabled.
std::vector<std::string> SpankJobArgs(const SpankSettings& settings,
                                      const canopy::v1::LaunchJob& launch,
                                      const std::vector<int>& cpus);

// Adds one task's items: its step, how the step spreads (`ranks`: the global ids of the tasks
// on this node, `local_id`: this task's index among them) and a label for log lines.
// `job_args` empty: returns empty.
std::vector<std::string> SpankTaskArgs(std::vector<std::string> job_args, uint32_t job_id,
                                       uint32_t step_id, uint32_t step_nodes, uint32_t step_node_id,
                                       uint32_t total_tasks, const std::vector<int>& ranks,
                                       int local_id);

// One slurmstepd for all of a step's tasks on the node: the flags that make the helper
// supervise every task (--all-tasks), given each task's request as it would have been spawned
// alone (`tasks[0]` is the one spawned, with these flags added to its wrapper). The exits pipe
// must already be `wrapper_fds[0]`; the other tasks' stdio descriptors are appended to it.
std::vector<std::string> SpankAllTasksArgs(const std::vector<const SpawnRequest*>& tasks,
                                           std::vector<int>& wrapper_fds);

// "0-3,8,10-11": Slurm's list format of CPU ids (S_JOB_ALLOC_CORES).
std::string CpuListText(std::vector<int> cpus);

}  // namespace canopy::agent::runtime
