// Agent reports and node loss (agent_reports.h).
#include "scheduler/lifecycle/agent_reports.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/container/btree_set.h"
#include "absl/strings/str_cat.h"
#include "scheduler/lifecycle/ending.h"
#include "scheduler/lifecycle/launch.h"
#include "scheduler/lifecycle/preemption.h"
#include "scheduler/lifecycle/steps.h"
#include "scheduler/state/capacity_builder.h"

namespace canopy::lifecycle {
namespace {

uint64_t GpuBits(const std::vector<int>& indexes) {
  uint64_t bits = 0;
  for (int g : indexes) {
    if (g >= 0 && g < 64) {
      bits |= uint64_t{1} << g;
    }
  }
  return bits;
}

// What a job the node should not have still uses there stays held until the node reports it
// CLEANED_UP (or the hold's deadline passes), unless a hold for it is already kept.
void HoldLeftover(LifecycleState& s, core::NodeId node, const RunningJob& r, Effects& effects) {
  for (const CleanupHold& h : s.holds) {
    if (h.job == r.job && h.share.node == node) {
      return;
    }
  }
  CleanupHold hold;
  hold.job = r.job;
  hold.run_id = r.run_id;
  hold.share.node = node;
  // Only GPUs nobody holds now: releasing the hold must not free another job's.
  const uint64_t in_use = s.gpus_in_use[node.value()];
  for (int g : r.gpu_indexes) {
    if (g >= 0 && g < 64 && (in_use & (uint64_t{1} << g)) == 0) {
      hold.share.gpu_indexes.push_back(g);
    }
  }
  hold.share.gpus = static_cast<int32_t>(hold.share.gpu_indexes.size());
  hold.share.cpus = r.cpus;
  hold.deadline = s.Now() + s.config->kill_wait + kCleanupGrace;
  std::vector<CleanupHold> holds;
  holds.push_back(std::move(hold));
  TakeHolds(s, std::move(holds), effects);
}

// The node, not the job, failed the run (its spool, fork or cgroup at launch, its SPANK plugins
// in the batch script's set-up): as Slurm does, the node is drained and the job goes back to
// the queue, held ("launch failed requeued held") until its owner or an operator releases it.
// Without the hold, a job that breaks every node it lands on (or a failure wrongly put down to
// the node) would drain the cluster node by node. `cleaned_node`: as LeaveNodesHeld's.
void RequeueHeldForNodeFault(LifecycleState& s, core::Job& job, core::NodeId node,
                             const JobReport& report, const std::string& what, Effects& effects,
                             int cleaned_node = -1) {
  const std::string& node_name = s.topology->node_name(node);
  effects.drains.push_back({node, report.drain_reason.empty()
                                      ? std::string(kLaunchFailureDrainReason)
                                      : report.drain_reason});
  effects.warnings.push_back(absl::StrCat("job ", job.id.value(), ": ", what, " on ", node_name,
                                          " for a reason of the node: ", report.message,
                                          "; draining ", node_name, ", the job requeued held"));
  const std::string why =
      absl::StrCat(what, " on ", node_name, report.message.empty() ? "" : ": ", report.message);
  LoseJob(s, job, why, effects, cleaned_node);
  if (job.state == core::JobState::kPending) {
    job.reason = core::JobReason::kJobHeldUser;
    job.priority = 0;
    job.state_message = absl::StrCat(kLaunchFailedHeld, ": ", why);
    s.Touch(job.id, effects);
  }
}

// The batch script ended on the batch host.
void Exited(LifecycleState& s, core::Job& job, const JobReport& report, Effects& effects) {
  if (job.state == core::JobState::kConfiguring) {
    (void)core::TransitionTo(job, core::JobState::kRunning, s.Now());
  }
  if (const LiveJob* live = s.Live(job.id);
      job.state == core::JobState::kRunning && live != nullptr && live->preempted_by.valid()) {
    // A preemption victim that ended in its GraceTime (the SIGTERM did it, or it saved its work
    // and exited): it is requeued or cancelled as preempted, whatever its exit status. A batch
    // host that cleaned up with the script's end needs no KillJob here either.
    job.exit_code = report.exit_code;
    job.exit_signal = report.exit_signal;
    FinishPreemption(s, job, effects, report.cleaned_up ? 0 : -1);
    return;
  }
  if (job.state == core::JobState::kRunning) {
    job.exit_code = report.exit_code;
    job.exit_signal = report.exit_signal;
    const core::JobState final_state = report.out_of_memory ? core::JobState::kOutOfMemory
                                       : (report.exit_code == 0 && report.exit_signal == 0)
                                           ? core::JobState::kCompleted
                                           : core::JobState::kFailed;
    // A batch host that cleaned up with the script's end needs no KillJob (JobReported then
    // applies the clean-up).
    BeginCompleting(s, job, final_state, "batch script ended", effects, report.cleaned_up ? 0 : -1);
  } else if (job.state == core::JobState::kCompleting) {
    // Ended by a cancel or the time limit: keep that outcome, record how the script died.
    job.exit_code = report.exit_code;
    job.exit_signal = report.exit_signal;
    s.Touch(job.id, effects);
  }
}

// What the report changes (JobReported acknowledges it afterwards).
void ApplyReport(LifecycleState& s, core::NodeId node, const JobReport& report, Effects& effects) {
  if (report.phase == JobPhase::kCleanedUp && !s.holds.empty()) {
    ReleaseHolds(s, report.job, node, report.run_id, effects);
  }
  core::Job* job = s.jobs.Find(report.job);
  if (job == nullptr || !HoldsNodes(job->state)) {
    return;
  }
  const int idx = LifecycleState::NodeIndexIn(*job, node);
  if (idx < 0) {
    return;  // a report from an earlier run of the job on other nodes
  }
  if (report.run_id != 0 && report.run_id != job->run_id) {
    return;  // about an earlier run of the job on this node (requeued or relaunched since)
  }
  const std::string& node_name = s.topology->node_name(node);
  if (report.fenced &&
      (job->state == core::JobState::kConfiguring || job->state == core::JobState::kRunning)) {
    // The node lost the controller and killed this run itself: the run is lost as on a failed
    // node (requeued, or NODE_FAIL with --no-requeue), whatever its exit status says. A batch
    // host whose EXITED says it cleaned up too needs no KillJob.
    const bool cleaned = report.phase == JobPhase::kExited && report.cleaned_up;
    LoseJob(s, *job,
            absl::StrCat("node ", node_name,
                         " lost the controller for longer than its node timeout allows and killed "
                         "the job (fenced)"),
            effects, cleaned ? idx : -1);
    return;
  }
  switch (report.phase) {
    case JobPhase::kLaunched:
      Confirm(s, *job, idx, effects);
      break;
    case JobPhase::kLaunchFailed:
      if (report.node_fault &&
          (job->state == core::JobState::kConfiguring || job->state == core::JobState::kRunning)) {
        RequeueHeldForNodeFault(s, *job, node, report, "launch failed", effects);
      } else if (job->state == core::JobState::kConfiguring ||
                 job->state == core::JobState::kRunning) {
        // A launch that fails for a reason of the job's own (a missing work directory, an
        // unwritable output file) would fail again anywhere: the job fails, as in Slurm.
        job->exit_code = 1;
        job->state_message = absl::StrCat("launch failed on ", node_name, ": ", report.message);
        if (job->state == core::JobState::kConfiguring) {
          (void)core::TransitionTo(*job, core::JobState::kRunning, s.Now());
        }
        BeginCompleting(s, *job, core::JobState::kFailed, "launch failed", effects);
        effects.warnings.push_back(absl::StrCat("job ", job->id.value(), ": launch failed on ",
                                                node_name, ": ", report.message));
      }
      break;
    case JobPhase::kExited:
      if (idx == 0 && report.node_fault &&
          (job->state == core::JobState::kRunning || job->state == core::JobState::kConfiguring)) {
        // The script never ran: the node's SPANK plugins failed its set-up (possibly before
        // every node of the gang confirmed its launch). A batch host that cleaned up with the
        // report needs no KillJob.
        RequeueHeldForNodeFault(s, *job, node, report, "batch job set-up failed", effects,
                                report.cleaned_up ? 0 : -1);
      } else if (idx == 0) {  // only the batch host runs the script
        Exited(s, *job, report, effects);
      }
      break;
    case JobPhase::kCleanedUp:
      if (!report.drain_reason.empty()) {
        // As slurmctld on an epilog failure: the job ends as it did, the node is drained.
        effects.drains.push_back({node, report.drain_reason});
        effects.warnings.push_back(absl::StrCat("job ", job->id.value(), ": ", report.drain_reason,
                                                " on ", node_name, ", draining the node"));
      }
      if (LiveJob* live = s.Live(job->id);
          job->state == core::JobState::kCompleting && live != nullptr) {
        live->cleaned[idx] = true;
        FinishIfClean(s, *job, effects);
      }
      break;
  }
}

}  // namespace

void JobReported(LifecycleState& s, core::NodeId node, const JobReport& report, Effects& effects) {
  ApplyReport(s, node, report, effects);
  if (report.phase == JobPhase::kExited && report.cleaned_up) {
    // The node's CLEANED_UP, sent along (JobStatus.cleaned_up): what the end left to wait for
    // (a COMPLETING job's other nodes, holds of a requeued run) treats this node as clean.
    JobReport cleaned = report;
    cleaned.phase = JobPhase::kCleanedUp;
    cleaned.node_fault = false;
    cleaned.drain_reason.clear();  // an EXITED's reason is not an epilog's
    ApplyReport(s, node, cleaned, effects);
  }
  if (report.phase == JobPhase::kExited || report.phase == JobPhase::kCleanedUp) {
    // After the messages the report caused, as the controller always sent them.
    effects.Send(node, JobReportAck{report.job, report.phase, report.run_id});
  }
}

void NodeChanged(LifecycleState& s, const state::NodeRecord& node, Effects& effects) {
  const int i = node.id.value();
  placement::NodeCapacity c = s.view.node(node.id);
  state::ApplyAvailability(node, c);
  if (!node.registration.gpus.empty()) {
    std::vector<int> indexes;
    for (const state::GpuStatus& g : node.registration.gpus) {
      indexes.push_back(g.index);
    }
    std::sort(indexes.begin(), indexes.end());
    s.gpu_indexes[i] = std::move(indexes);
  }
  (void)s.view.UpdateNode(node.id, c);
  ++s.capacity_version;
  const bool usable = c.usable();
  if (usable && !s.node_usable[i]) {
    effects.schedule = true;
  }
  s.node_usable[i] = usable;

  uint64_t broken = 0;  // GPU indexes of this node that are broken now
  for (const state::GpuStatus& g : node.registration.gpus) {
    if (!g.healthy && g.index >= 0 && g.index < 64) {
      broken |= uint64_t{1} << g.index;
    }
  }
  const bool down = !c.up;
  if (down && !s.holds.empty()) {
    ReleaseHolds(s, core::JobId(), node.id, 0, effects);
  }
  if (!down && broken == 0) {
    return;
  }
  // Copy: losing a job edits node_jobs.
  const std::vector<core::JobId> held(s.node_jobs[i].begin(), s.node_jobs[i].end());
  for (core::JobId id : held) {
    core::Job* job = s.jobs.Find(id);
    const int idx = job == nullptr ? -1 : LifecycleState::NodeIndexIn(*job, node.id);
    if (idx < 0) {
      continue;
    }
    if (job->state == core::JobState::kCompleting) {
      if (LiveJob* live = s.Live(id); down && live != nullptr) {
        live->cleaned[idx] = true;  // a down node's processes count as gone
        FinishIfClean(s, *job, effects);
      }
      continue;
    }
    if (down) {
      LoseJob(s, *job,
              absl::StrCat("node ", node.name, " is down",
                           node.reason.empty() ? "" : absl::StrCat(": ", node.reason)),
              effects);
    } else if ((GpuBits(job->allocation.nodes[idx].gpu_indexes) & broken) != 0) {
      LoseJob(s, *job, absl::StrCat("a GPU of node ", node.name, " used by the job failed"),
              effects);
    }
  }
}

std::vector<uint32_t> NodeRegistered(LifecycleState& s, const state::NodeRecord& node,
                                     const std::vector<RunningJob>& running_jobs,
                                     Effects& effects) {
  std::vector<uint32_t> kill;
  const absl::btree_set<core::JobId>& held = s.node_jobs[node.id.value()];
  // The run of each job the node lists (0: an agent that does not say).
  absl::btree_map<core::JobId, uint32_t> running;
  for (const RunningJob& r : running_jobs) {
    running[r.job] = r.run_id;
    if (!held.contains(r.job)) {
      kill.push_back(r.job.value());
      effects.warnings.push_back(absl::StrCat("node ", node.name, " still runs job ", r.job.value(),
                                              ", which does not hold it: killing it"));
      HoldLeftover(s, node.id, r, effects);
    }
  }
  const std::vector<core::JobId> jobs(held.begin(), held.end());
  for (core::JobId id : jobs) {
    core::Job* job = s.jobs.Find(id);
    LiveJob* live = s.Live(id);
    const int idx = job == nullptr ? -1 : LifecycleState::NodeIndexIn(*job, node.id);
    if (idx < 0 || live == nullptr) {
      continue;
    }
    // An older run the node is still killing is not the job's current run: that one never
    // reached the node (its LaunchJob was lost with the stream or with canopyd), so it is sent
    // again, and the agent starts it once the old run is cleaned up.
    auto listed = running.find(id);
    const bool runs_it =
        listed != running.end() && (listed->second == 0 || listed->second == job->run_id);
    switch (job->state) {
      case core::JobState::kConfiguring:
        if (runs_it) {
          Confirm(s, *job, idx, effects);
        } else {
          ResendLaunch(*job, idx, effects);
        }
        break;
      case core::JobState::kRunning:
        if (!runs_it) {
          if (idx == 0) {
            live->lost_batch_since = s.Now();  // unless its exit arrives, the job is lost
            s.Rearm(id);
          } else {
            ResendLaunch(*job, idx, effects);
          }
        }
        break;
      case core::JobState::kCompleting:
        if (!live->cleaned[idx]) {
          effects.Send(node.id, KillJob{id, "job ended"});
        }
        break;
      default:
        break;
    }
  }
  // Step parts that ended while canopyd was not listening (a restart): their ends now. A part
  // already counted is ignored (StepReported). Those of an older run are that run's: step ids
  // start again at 0 in each run.
  for (const RunningJob& r : running_jobs) {
    const core::Job* job = s.jobs.Find(r.job);
    if (held.contains(r.job) && job != nullptr && (r.run_id == 0 || r.run_id == job->run_id)) {
      for (const StepReport& step : r.ended_steps) {
        StepReported(s, node.id, step, effects);
      }
    }
  }
  return kill;
}

}  // namespace canopy::lifecycle
