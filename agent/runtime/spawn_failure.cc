#include "agent/runtime/spawn_failure.h"

#include <sys/statvfs.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace canopy::agent::runtime {

using Stage = SpawnStage;

std::string DescribeSpawnFailure(const SpawnRequest& request, const SpawnFailure& e) {
  const char* reason = std::strerror(e.error);
  switch (e.stage) {
    case Stage::kCgroup:
      return absl::StrCat("joining the job's cgroup: ", reason);
    case Stage::kSetsid:
      return absl::StrCat("setsid: ", reason);
    case Stage::kStdio:
      return absl::StrCat("redirecting stdio: ", reason);
    case Stage::kChdir:
      return absl::StrCat("chdir to ", request.work_dir, ": ", reason);
    case Stage::kSetgroups:
      return absl::StrCat("setgroups: ", reason);
    case Stage::kSetgid:
      return absl::StrCat("setgid(", request.credentials->gid, "): ", reason);
    case Stage::kSetuid:
      return absl::StrCat("setuid(", request.credentials->uid, "): ", reason);
    case Stage::kExec:
      return absl::StrCat("execve ", request.argv[0], ": ", reason);
    case Stage::kOpenInput:
      return absl::StrCat("open ", request.stdin_path, " for input: ", reason);
    case Stage::kOpenOutput:
      return absl::StrCat("open ", request.stdout_path, " for output: ", reason);
    case Stage::kOpenError:
      return absl::StrCat("open ", request.stderr_path, " for error output: ", reason);
    case Stage::kSpank:
      return "SPANK plugin stack failed";
  }
  return absl::StrCat("child failed: ", reason);
}

bool IsNodeSideFailure(const SpawnRequest& request, const SpawnFailure& e) {
  switch (e.stage) {
    case Stage::kChdir:
    case Stage::kOpenInput:
    case Stage::kOpenOutput:
    case Stage::kOpenError:
      return false;
    case Stage::kSetgroups:
    case Stage::kSetgid:
    case Stage::kSetuid:
      // EAGAIN: the user is at RLIMIT_NPROC, which would be so on any node.
      return e.error != EAGAIN;
    case Stage::kExec: {
      if (e.error == EACCES) {
        // The node's only if the program sits on a noexec file system (the agent's spool);
        // otherwise a script whose interpreter is not executable, which fails anywhere.
        struct statvfs fs;
        return statvfs(request.argv[0].c_str(), &fs) == 0 && (fs.f_flag & ST_NOEXEC) != 0;
      }
      return e.error != ENOENT && e.error != ENOEXEC && e.error != E2BIG && e.error != ENOTDIR &&
             e.error != ELOOP && e.error != ENAMETOOLONG && e.error != EAGAIN;
    }
    default:
      return true;
  }
}

}  // namespace canopy::agent::runtime
