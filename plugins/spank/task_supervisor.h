// The remote side of SPANK in canopy-spank-task: supervises this node's tasks of a step (one,
// or with --all-tasks every local task, as one slurmstepd does) under the site's plugins.
//   1. as the user (effective ids): enters the work dir and opens the tasks' stdio files,
//      reporting a failure to the agent exactly as Spawn's own child would; then lets the
//      agent go on and loads plugstack.conf (re-read at every launch, as Slurm does);
//   2. as root: slurm_spank_init, the options the job carries (_SLURM_SPANK_OPTION_*),
//      slurm_spank_init_post_opt; as the user (effective ids): slurm_spank_user_init;
//   3. forks every task: each runs slurm_spank_task_init_privileged as root and becomes the
//      user; the parent runs slurm_spank_task_post_fork for each; then each task runs
//      slurm_spank_task_init, the TaskProlog, and execs the (possibly rewritten) command line;
//   4. as each task ends: TaskEpilog (as the user), slurm_spank_task_exit, and with
//      --all-tasks an "exit I STATUS" line for the agent; at the end slurm_spank_exit.
// With one task it exits as the task did (the same code, or the same signal), so the agent
// sees the task's own status. Each task leads its own process group, reported to the agent
// ("pid I PID" on --exits-fd). This process blocks the job's signals and forwards those the
// agent sends its group to the tasks' groups; what it cannot catch (SIGKILL, SIGSTOP) the agent
// sends the tasks' groups itself, so this process outlives its tasks and runs their exit hooks.
#pragma once

#include "plugins/spank/spank_task_args.h"

namespace canopy::spank {

// Never returns when all goes well (it ends as the task did); returns the exit code otherwise.
int Supervise(SpankTaskArgs& args);

}  // namespace canopy::spank
