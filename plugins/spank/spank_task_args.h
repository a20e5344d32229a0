// The command line of canopy-spank-task, the agent's SPANK task helper (spank_task_main.cc):
// what the agent's runtime tells it about the task (SpankWrapperArgv in agent/runtime), then
// what Spawn adds (identity, work dir, stdio; spawn.h SpawnRequest::wrapper), "--" and the
// task's argv. Pure.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "plugins/spank/spank_items.h"

namespace canopy::spank {

struct SpankTaskArgs {
  // --job-script=prolog|epilog: run the plugins' job_prolog/job_epilog (S_CTX_JOB_SCRIPT) and
  // then the command (the Prolog/Epilog script), instead of supervising a task.
  std::string job_script;
  std::string plugstack;    // --plugstack=PATH; empty: no plugins (TaskProlog/TaskEpilog only)
  std::string plugin_dirs;  // --plugin-dir=DIRS (PluginDir)
  std::string label;        // --label=TEXT: "job 12 step 0 task 3", for log lines
  // Whom the task runs as; unset: stay who we are (a non-root agent).
  std::optional<uid_t> uid;
  std::optional<gid_t> gid;
  std::vector<gid_t> groups;
  std::string work_dir;
  std::string stdin_path, stdout_path, stderr_path;  // empty: keep the inherited descriptor
  bool stdout_append = false;
  bool stderr_append = false;
  bool stderr_to_stdout = false;
  int local_id = 0;         // --task-local-id: this task's local id on the node
  std::string task_prolog;  // --task-prolog=PATH: TaskProlog, as the user before the task
  std::string task_epilog;  // --task-epilog=PATH: TaskEpilog, as the user after it
  JobItems items;           // --job-id, --step-id, ... (spank_get_item's answers)

  // --all-tasks: supervise every local task of the step (ids 0 .. --local-tasks - 1), as one
  // slurmstepd does, instead of the one of --task-local-id. Task 0 has the inherited
  // environment and the stdio flags above; the others differ as these say:
  bool all_tasks = false;
  int exits_fd = -1;  // --exits-fd=N: "pid I PID" and "exit I STATUS" lines for the agent
  struct TaskStream {
    int fd = -1;       // I:fd:N (a pipe the agent reads)
    std::string path;  // I:append:PATH or I:truncate:PATH (opened as the user)
    bool append = false;
    bool to_stdout = false;  // stderr only: I:stdout
  };
  struct OtherTask {
    std::vector<std::string> set_env;    // --task-env=I:K=V
    std::vector<std::string> unset_env;  // --task-unset=I:K
    TaskStream out;                      // --task-stdout=I:...
    TaskStream err;                      // --task-stderr=I:...
  };
  std::vector<OtherTask> other_tasks;  // index = local id; [0] unused
  std::vector<std::string> argv;       // after "--"
};

// InvalidArgument naming the flag ("--job-id: expected a number, got 'x'").
absl::StatusOr<SpankTaskArgs> ParseSpankTaskArgs(const std::vector<std::string>& args);

}  // namespace canopy::spank
