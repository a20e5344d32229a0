// StepPart: this node's part of one job step (srun): its tasks, their output and their exits.
//
// Life: the runtime constructs it (under its lock, so KillJob can find it at once), then calls
// Run() without the lock, which starts the I/O thread and returns. That thread attaches to
// srun's StepIo server, starts one process per rank (each in its own process group, as the job's
// user, inside the job's cgroup), then streams the tasks' stdout/stderr (or lets them write to
// files when the step names output paths), sends each TaskExited once the task has exited and its
// output is drained, and finally calls `on_done` with the node's StepStatus (highest exit code).
// If srun's stream breaks, every task is SIGKILLed. Signal() may be called from any thread at any
// time. AddAttached() (sattach) adds a stream that gets the output still held, then the same
// output and exits (attached_stream.h: it never makes the part wait); when it breaks, only the
// copy ends. Notify() (scontrol notify) has the I/O thread send srun a notice, which srun prints.
//
// Thread-safe. `on_done` runs once, on the I/O thread; the owner must not destroy the part from
// inside `on_done` (hand it to another thread: the destructor joins the I/O thread).
#pragma once

#include <sys/types.h>

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/functional/any_invocable.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "agent/runtime/attached_stream.h"
#include "agent/runtime/child_reaper.h"
#include "agent/runtime/helper_reports.h"
#include "agent/runtime/job_environment.h"
#include "agent/runtime/spawn.h"
#include "agent/runtime/step_io_stream.h"
#include "canopy/v1/agent.pb.h"
#include "common/os/unique_fd.h"

namespace canopy::agent::runtime {

// What a step needs from the job it belongs to.
struct StepJobContext {
  NodeIdentity node;
  canopy::v1::LaunchJob job_launch;             // the job's LaunchJob on this node
  std::optional<Credentials> credentials;       // nullopt: run as the agent's user
  std::vector<std::string> cgroup_procs_paths;  // the job's cgroups (SpawnRequest); may be empty
  std::vector<std::string> spank_args;          // SpankJobArgs; empty: tasks start without SPANK
};

class StepPart {
 public:
  using DoneCallback = absl::AnyInvocable<void(const canopy::v1::StepStatus& status)>;

  StepPart(canopy::v1::LaunchStep launch, StepJobContext job, ChildReaper* reaper,
           DoneCallback on_done);
  // SIGKILLs tasks still running (not what exited tasks left behind) and joins the I/O thread
  // (which waits for their exits).
  ~StepPart();
  StepPart(const StepPart&) = delete;
  StepPart& operator=(const StepPart&) = delete;

  // Call once. Returns at once: the tasks start on the I/O thread.
  void Run();
  // Sends `signal` to every task's process group (now, and to tasks still being started),
  // including the groups of tasks that exited but left processes behind. With a supervising
  // SPANK helper running, the helper gets the signals it can forward and the tasks the rest
  // (helper_reports.h), so it outlives them and runs their exit hooks.
  void Signal(int signal);
  // The supervising helper is still running (its tasks' exit hooks may be).
  bool SupervisorRunning();
  // SIGKILLs the supervising helper (one stuck in a plugin's exit hook).
  void KillSupervisor();
  // The process groups of the tasks started (each task's pid), but those known to be empty.
  // The owner keeps them once the part is gone, so that kills still reach what the tasks left
  // running in the background.
  std::vector<pid_t> TaskGroups();
  // scontrol notify: `message` to srun, sent by the I/O thread (nothing when the step has no
  // srun stream). Never blocks.
  void Notify(const std::string& message);
  // sattach: a stream to `address` (hello with `token`) that gets the output this part still
  // holds (the latest kReplayBytes) and the exits so far, then everything new. Never blocks.
  // FailedPrecondition once the part has finished or has kMaxAttached streams already.
  absl::Status AddAttached(const std::string& address, const std::string& token);
  static constexpr size_t kReplayBytes = 128 << 10;
  static constexpr size_t kMaxAttached = 8;

  uint32_t step_id() const { return launch_.step_id(); }

 private:
  struct Task {
    int rank = 0;
    int local_id = 0;
    pid_t pid = 0;     // 0: not started; -1: killed before it started; supervised: its helper
    pid_t group = 0;   // its process group (its own pid); 0: a supervised task not reported yet
    os::UniqueFd out;  // pipe read ends; empty when writing to a file
    os::UniqueFd err;
    bool exited = false;
    int wait_status = 0;
    absl::Time exited_at;
    bool reported = false;
    bool group_gone = false;  // exited, and its process group found empty
  };

  // A task's launch, prepared: its request and its output pipes.
  struct PreparedTask {
    SpawnRequest req;
    os::UniqueFd out_read, err_read, out_write, err_write;
  };

  canopy::v1::StepIoHello Hello(const std::string& token) const;
  // With SPANK and several tasks here, one helper supervises them all, as one slurmstepd does
  // (step_part_supervised.cc): the tasks' groups and exits come as lines on a pipe the I/O
  // thread reads.
  absl::Status StartSupervised(std::vector<PreparedTask>& prepared);
  void OnSupervisorExit(int wait_status);
  void ReadSupervisorExits();  // I/O thread
  void EndTasksWithSupervisor() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Sends to srun's stream and queues for every attached one; drops attached streams that
  // broke or fell behind.
  void Broadcast(const canopy::v1::StepIoMessage& message);
  // Run()'s work, on the I/O thread: srun's stream, then the tasks; failure_ if either fails.
  void Start();
  // True, and the ranks from `from` on marked ended by SIGKILL, when a SIGKILL has come before
  // they started.
  bool KilledBeforeStart(size_t from = 0);
  absl::Status StartTasks();
  void OnExit(size_t index, int wait_status);
  void IoLoop();
  void Wake();
  void Finish();

  const canopy::v1::LaunchStep launch_;
  const StepJobContext job_;
  ChildReaper* const reaper_;
  DoneCallback on_done_;
  os::UniqueFd wake_;  // eventfd: a task exited
  std::unique_ptr<StepIoStream> io_;
  std::string failure_;  // set and read by the I/O thread
  std::thread io_thread_;

  absl::Mutex mu_;
  std::vector<Task> tasks_ ABSL_GUARDED_BY(mu_);
  // The last Signal() (a SIGKILL stays), applied to late starters.
  int pending_signal_ ABSL_GUARDED_BY(mu_) = 0;
  bool srun_gone_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::string> notices_ ABSL_GUARDED_BY(mu_);  // for the I/O thread to send srun
  // The supervisor (StartSupervised): its exits pipe (read and closed by the I/O thread) and
  // its own end.
  os::UniqueFd exits_;
  HelperReportReader exits_reader_;
  pid_t supervisor_pid_ ABSL_GUARDED_BY(mu_) = 0;
  bool exits_eof_ ABSL_GUARDED_BY(mu_) = false;
  bool supervised_ ABSL_GUARDED_BY(mu_) = false;  // StartSupervised spawned the helper
  bool supervisor_exited_ ABSL_GUARDED_BY(mu_) = false;
  int supervisor_status_ ABSL_GUARDED_BY(mu_) = 0;

  // sattach streams: added by AddAttached (the controller-stream thread), fed and dropped by
  // the I/O thread. Pushing to them never blocks.
  absl::Mutex attach_mu_;
  std::vector<std::unique_ptr<AttachedStream>> attached_ ABSL_GUARDED_BY(attach_mu_);
  // The latest output (at most kReplayBytes), replayed to a stream that attaches later, as
  // slurmstepd replays its buffer to sattach.
  std::deque<canopy::v1::StepIoMessage> replay_ ABSL_GUARDED_BY(attach_mu_);
  size_t replay_bytes_ ABSL_GUARDED_BY(attach_mu_) = 0;
  // Exits already sent: replayed too, so a late attacher knows which ranks are done.
  std::vector<canopy::v1::StepIoMessage> exits_sent_ ABSL_GUARDED_BY(attach_mu_);
  bool finished_ ABSL_GUARDED_BY(attach_mu_) = false;
};

}  // namespace canopy::agent::runtime
