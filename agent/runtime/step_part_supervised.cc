// StepPart with one supervisor for all its tasks (step_part.h): with SPANK plugins, the task
// helper runs all the step's tasks on this node, as one slurmstepd does, so the plugins'
// per-step hooks (init, user_init, exit) run once. It reports "pid I PID" (each task leads its
// own process group) and "exit I STATUS" lines on a pipe (helper_reports.h) that the I/O thread
// reads; Signal() sends the helper what it can forward and the tasks' groups the rest.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "agent/runtime/spank_wrapper.h"
#include "agent/runtime/step_part.h"

namespace canopy::agent::runtime {

absl::Status StepPart::StartSupervised(std::vector<PreparedTask>& prepared) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  os::UniqueFd exits_read(fds[0]);
  const os::UniqueFd exits_write(fds[1]);
  std::vector<const SpawnRequest*> requests;
  for (const PreparedTask& task : prepared) {
    requests.push_back(&task.req);
  }
  SpawnRequest req = prepared[0].req;
  req.wrapper_fds = {exits_write.get()};
  std::vector<std::string> all = SpankAllTasksArgs(requests, req.wrapper_fds);
  // Before Spawn's own words ("--uid=..."): the helper's flags in any order, then "--".
  req.wrapper.insert(req.wrapper.end(), all.begin(), all.end());
  absl::StatusOr<pid_t> pid =
      Spawn(req, *reaper_, [this](int status) { OnSupervisorExit(status); });
  if (!pid.ok()) {
    return pid.status();
  }
  exits_ = std::move(exits_read);
  absl::MutexLock lock(&mu_);
  supervised_ = true;
  supervisor_pid_ = *pid;
  for (size_t i = 0; i < prepared.size(); ++i) {
    Task& t = tasks_[i];
    t.pid = *pid;  // started; its group comes with its "pid" line
    t.out = std::move(prepared[i].out_read);
    t.err = std::move(prepared[i].err_read);
  }
  if (pending_signal_ != 0) {
    killpg(*pid, pending_signal_);
  }
  return absl::OkStatus();
}

void StepPart::OnSupervisorExit(int wait_status) {
  absl::MutexLock lock(&mu_);  // wake inside the lock (see OnExit)
  supervisor_exited_ = true;
  supervisor_status_ = wait_status;
  Wake();
}

void StepPart::ReadSupervisorExits() {
  char buffer[4096];
  const ssize_t n = read(exits_.get(), buffer, sizeof(buffer));
  if (n < 0 && errno == EINTR) {
    return;
  }
  if (n <= 0) {
    exits_.reset();
    absl::MutexLock lock(&mu_);
    exits_eof_ = true;
    return;
  }
  for (const HelperReport& report : exits_reader_.Feed({buffer, static_cast<size_t>(n)})) {
    absl::MutexLock lock(&mu_);
    if (report.task >= tasks_.size()) {
      continue;
    }
    Task& t = tasks_[report.task];
    if (report.kind == HelperReport::Kind::kPid) {
      t.group = report.value;
      // What could not wait for the helper (SIGKILL, SIGSTOP) reaches a task forked meanwhile.
      if (pending_signal_ != 0 && SignalReachesTasksDirectly(pending_signal_)) {
        killpg(t.group, pending_signal_);
      }
    } else if (!t.exited) {
      t.exited = true;
      t.wait_status = report.value;
      t.exited_at = absl::Now();
    }
  }
}

void StepPart::EndTasksWithSupervisor() {
  // Once the helper is gone and every line it wrote is read, a task it never reported (it was
  // killed, or could not fork it) ends with the helper's own status.
  if (!supervisor_exited_ || !exits_eof_) {
    return;
  }
  for (Task& t : tasks_) {
    if (t.pid > 0 && !t.exited) {
      t.exited = true;
      t.wait_status = supervisor_status_ != 0 ? supervisor_status_ : 1 << 8;
      t.exited_at = absl::Now();
    }
  }
}

}  // namespace canopy::agent::runtime
