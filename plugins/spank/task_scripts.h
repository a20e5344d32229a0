// TaskProlog and TaskEpilog, as slurmstepd runs them for each task (task.c): as the task's user,
// with the task's environment and SLURM_SCRIPT_CONTEXT=prolog_task / epilog_task. The
// TaskProlog's standard output speaks to the task:
//   export NAME=value   sets NAME in the task's environment
//   unset NAME          removes it
//   print TEXT          writes TEXT to the task's standard output
// Used by canopy-spank-task (spank_task_main.cc), which is single-threaded where it calls them.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace canopy::spank {

// Applies a TaskProlog's output to `env` ("K=V" entries) and returns what it asked to print.
std::string ApplyTaskPrologOutput(const std::string& output, std::vector<std::string>& env);

// Runs `script` (already the user: called from the task's process just before exec) and applies
// its output to `env`. Returns the wait status; a script that cannot start is 127 << 8.
int RunTaskProlog(const std::string& script, std::vector<std::string>& env);

// Runs `script` in a child that first becomes uid/gid/groups (when `uid` >= 0) and returns the
// wait status.
int RunTaskEpilog(const std::string& script, const std::vector<std::string>& env, int uid, int gid,
                  const std::vector<unsigned>& groups);

}  // namespace canopy::spank
