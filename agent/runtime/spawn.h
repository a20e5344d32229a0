// Spawn: fork and exec one job process (a batch script or a step task) the way slurmstepd
// would: in a new session (its own process group), optionally inside a cgroup, with stdio
// redirected, in the work dir, as the job's user. Everything the child needs is prepared before
// it starts (spawn.cc: clone, sharing the agent's memory until its exec); until its exec the
// child makes only async-signal-safe calls. A failure in the
// child (chdir, setuid, opening a stdio file, execve, ...) comes back to the caller as a Status
// with a message like "chdir to /nope: No such file or directory" or
// "open /etc/shadow for output: Permission denied". Thread-safe.
#pragma once

#include <fcntl.h>
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "agent/runtime/child_reaper.h"
#include "common/os/unique_fd.h"

namespace canopy::agent::runtime {

// Whom the child runs as. Applied only when the agent runs as root.
struct Credentials {
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> supplementary_gids;
};

struct SpawnRequest {
  // argv[0] must be a path ('/' in it; relative to work_dir if not absolute): see ResolveProgram.
  std::vector<std::string> argv;
  std::vector<std::string> env;  // "KEY=VALUE"
  std::string work_dir;
  // Borrowed; dup2'ed onto 0, 1 and 2. Each must be > 2 (the agent's own stdio occupies 0-2).
  // Ignored for a stream whose *_path below is set.
  int stdin_fd = -1;
  int stdout_fd = -1;
  int stderr_fd = -1;
  // Files the child opens itself for 0, 1 and 2, after it has become the job's user and entered
  // work_dir (relative paths resolve there), so the agent never opens, creates or truncates a
  // file on the user's behalf with its own rights. Opens never block (O_NONBLOCK, cleared once
  // open): a FIFO without a peer fails the launch rather than hanging the agent. Outputs are
  // created with mode 0644 (less the umask). A stderr_path equal to stdout_path shares
  // stdout's open file.
  std::string stdin_path;
  std::string stdout_path;
  std::string stderr_path;
  int stdout_flags = O_TRUNC;  // added to O_WRONLY | O_CREAT: O_TRUNC and/or O_APPEND
  int stderr_flags = O_TRUNC;
  // Non-empty ("SLURM_TASK_PID"): the child puts NAME=<its own pid> in its environment in place
  // of any NAME in `env`, as slurmstepd gives each task its pid. A wrapper's task gets it from
  // the wrapper instead.
  std::string pid_variable;
  std::optional<Credentials> credentials;  // nullopt: stay the agent's user
  // The file-creation mask the child sets before it opens its stdio files (so they are created
  // with it) and keeps across exec: the submitter's (SLURM_UMASK). nullopt: the agent's.
  std::optional<mode_t> umask;
  // Borrowed, optional: the child writes itself into each of these cgroup.procs files (the job's
  // v2 leaf, and the v1 directories of its limits on a hybrid host) before anything else.
  std::vector<int> cgroup_procs_fds;
  // A program that starts the task in the child's place (the SPANK task helper): after joining
  // the cgroups, the new session and the borrowed stdio, the child execs
  //   wrapper... [--uid= --gid= --groups=] --work-dir= [--stdin= --stdout= ...] -- argv...
  // as root, with only a fixed PATH as its environment; the task's `env` comes in a memfd, and
  // the report pipe and `wrapper_log_fd` (default: the agent's stderr) are open too
  // (spawn_report.h). The wrapper becomes the user and opens the stdio files itself, reporting
  // failures as the child would, and closes the pipe once the task's set-up is done.
  std::vector<std::string> wrapper;
  int wrapper_log_fd = -1;  // borrowed
  // More descriptors for the wrapper (borrowed): the i-th is open at kWrapperFirstExtraFd + i.
  std::vector<int> wrapper_fds;
};

// Opens each of `paths` write-only (cgroup.procs files, for SpawnRequest::cgroup_procs_fds);
// one that cannot be opened is left out (the job then runs without that cgroup, as without
// cgroups at all).
std::vector<os::UniqueFd> OpenForWriting(const std::vector<std::string>& paths);
std::vector<int> Borrow(const std::vector<os::UniqueFd>& fds);

// Starts the process and has `reaper` watch it. Returns its pid, which is also its process
// group and session id. When the child could not get as far as execve (it is then already
// reaped and `on_exit` is never called), the child's reason as FailedPrecondition if the request
// is at fault (work directory, stdio files, a missing or unexecutable interpreter, the user's
// process limit), or Unavailable if the node is (cgroup, session, credentials, an exec the node
// refused: ETXTBSY, ENOMEM, a noexec spool). Internal when fork or a pipe fails.
absl::StatusOr<pid_t> Spawn(const SpawnRequest& request, ChildReaper& reaper,
                            ChildReaper::ExitCallback on_exit);

// Finds `program` the way execvp would, but in the task's PATH (`path_env`, empty means
// "/usr/bin:/bin") rather than the agent's. A name with a '/' is returned unchanged (relative
// names resolve against the work dir the child enters). NotFound: "<program>: command not found".
absl::StatusOr<std::string> ResolveProgram(const std::string& program, const std::string& path_env,
                                           const std::string& work_dir);

}  // namespace canopy::agent::runtime
