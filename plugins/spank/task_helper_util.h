// What canopy-spank-task's parts share (spank_task_main.cc, task_supervisor.cc): writing to the
// descriptors the agent gave it, reporting a set-up failure, the user's identity for a while,
// and ending as a task ended. Single-threaded process; not for use elsewhere.
#pragma once

#include <grp.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

#include "agent/runtime/spawn_report.h"
#include "plugins/spank/spank_task_args.h"

namespace canopy::spank::helper {

// The label of log lines ("job 12 step 0 task 3") and whether fd 2 is the task's stderr yet.
std::string& Label();
bool& StdioReady();

void WriteAll(int fd, const std::string& text);

// The task's environment, read once from the memfd the agent passed (kWrapperEnvFd), which is
// then closed. This process's own environment is only a fixed PATH.
const std::vector<std::string>& TaskEnvironment();

// Tells Spawn why the task could not be set up (agent/runtime/spawn_report.h), and ends.
[[noreturn]] void ReportAndExit(agent::runtime::SpawnStage stage, int error,
                                const std::string& message = "");

// The user's identity as effective ids for a while (Slurm's "privileges temporarily dropped"),
// root again when destroyed. Nothing to do without --uid (an agent that is not root).
class AsUser {
 public:
  explicit AsUser(const SpankTaskArgs& args) {
    if (!args.uid.has_value()) {
      return;
    }
    saved_groups_.resize(static_cast<size_t>(std::max(getgroups(0, nullptr), 0)));
    if (getgroups(static_cast<int>(saved_groups_.size()), saved_groups_.data()) < 0) {
      saved_groups_.clear();
    }
    if (setgroups(args.groups.size(), args.groups.data()) != 0) {
      failed_ = agent::runtime::SpawnStage::kSetgroups;
    } else if (setegid(*args.gid) != 0) {
      failed_ = agent::runtime::SpawnStage::kSetgid;
    } else if (seteuid(*args.uid) != 0) {
      failed_ = agent::runtime::SpawnStage::kSetuid;
    }
    error_ = errno;
    active_ = true;
  }
  ~AsUser() {
    // Root again, or nothing more may run here: what follows expects root.
    if (active_ && (seteuid(0) != 0 || setegid(getgid()) != 0 ||
                    setgroups(saved_groups_.size(), saved_groups_.data()) != 0)) {
      abort();
    }
  }
  AsUser(const AsUser&) = delete;
  AsUser& operator=(const AsUser&) = delete;
  // 0 when done, else where it failed (errno in error()).
  agent::runtime::SpawnStage failed() const { return failed_; }
  int error() const { return error_; }

 private:
  bool active_ = false;
  agent::runtime::SpawnStage failed_ = static_cast<agent::runtime::SpawnStage>(0);
  int error_ = 0;
  std::vector<gid_t> saved_groups_;
};

// The work dir and task 0's stdio files, entered and opened with the user's rights; a failure
// is reported to Spawn as its own child would report it.
void SetUpAsUser(const SpankTaskArgs& args);

// A bare program name (a plugin may prepend one) is looked up in the task's PATH.
std::string Program(const std::string& name, const std::vector<std::string>& env);

std::vector<char*> Pointers(std::vector<std::string>& strings);

// Ends this process the way a task ended (the same code, or the same signal).
[[noreturn]] void ExitAs(int status);

}  // namespace canopy::spank::helper
