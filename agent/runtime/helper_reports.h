// What the SPANK task helper (canopy-spank-task, plugins/spank/task_supervisor.h) tells the
// agent about its tasks on its exits pipe (--exits-fd): "pid I PID" when task I is forked (PID
// also names the task's process group), "exit I STATUS" (a wait status) when it has ended and
// its exit hooks ran, and "fault I 1" when the node's plugins failed the set-up of a batch
// script (slurm_spank_user_init, task_post_fork), which drains the node as in Slurm.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <cstddef>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace canopy::agent::runtime {

struct HelperReport {
  enum class Kind { kPid, kExit, kNodeFault };
  Kind kind = Kind::kPid;
  size_t task = 0;  // the task's index on this node
  int value = 0;    // its pid (= process group), or its wait status; 1 for a fault
};

// Splits the pipe's bytes into reports; a line cut by a read waits for the rest, a line it
// does not know is skipped.
class HelperReportReader {
 public:
  std::vector<HelperReport> Feed(absl::string_view bytes);

 private:
  std::string partial_;
};

// The signals the helper cannot catch, so cannot forward: the agent sends them to the tasks'
// groups itself (the helper then outlives its tasks and runs their exit hooks). Every other
// signal goes to the helper, which forwards it.
inline bool SignalReachesTasksDirectly(int signal) {
  return signal == SIGKILL || signal == SIGSTOP;
}

}  // namespace canopy::agent::runtime
