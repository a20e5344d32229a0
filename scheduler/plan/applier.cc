// PlanApplier and lifecycle commits (applier.h).
#include "scheduler/plan/applier.h"

#include "absl/strings/str_cat.h"

namespace canopy::plan {
namespace {

using placement::CapacityView;
using placement::NodeCapacity;

// Why `view` can no longer give `share` to a job, or "" if it can.
std::string RecheckNode(const CapacityView& view, const core::NodeShare& share, bool exclusive) {
  if (!share.node.valid() || share.node.value() >= view.node_count()) {
    return absl::StrCat("node ", share.node.value(), " unknown");
  }
  const NodeCapacity& n = view.node(share.node);
  const std::string& name = view.topology().node_name(share.node);
  if (!n.usable()) {
    return absl::StrCat(name, " is not usable");
  }
  if (n.exclusive) {
    return absl::StrCat(name, " is held by an exclusive job");
  }
  if (exclusive && n.jobs > 0) {
    return absl::StrCat(name, " is not idle");
  }
  if (n.free_gpus < share.gpus || n.free_cpus < share.cpus || n.free_mem_mib < share.mem_mib) {
    return absl::StrCat(name, " lacks free GPUs, CPUs or memory");
  }
  return "";
}

std::vector<placement::NodeUse> UsesOf(const core::Allocation& a) {
  std::vector<placement::NodeUse> uses;
  uses.reserve(a.nodes.size());
  for (const core::NodeShare& s : a.nodes) {
    uses.push_back({s.node, s.gpus, s.cpus, s.mem_mib});
  }
  return uses;
}

// Frees the job's capacity. A job that goes back to the queue forgets its nodes; one that ends
// keeps them as the record of where it ran (`keep_record`).
absl::Status Release(CapacityView& view, core::Job& job, bool keep_record) {
  if (job.allocation.empty()) {
    return absl::OkStatus();
  }
  absl::Status s = view.ApplyJob(UsesOf(job.allocation), job.allocation.exclusive, false);
  if (!s.ok()) {
    return absl::InternalError(
        absl::StrCat("job ", job.id.value(), ": freeing its allocation: ", s.message()));
  }
  if (!keep_record) {
    job.allocation = {};
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ApplyReport> PlanApplier::Apply(const Plan& plan, CapacityView& view,
                                               core::JobTable& jobs, absl::Time now) const {
  ApplyReport report;
  for (const PlannedStart& start : plan.starts) {
    core::Job* job = jobs.Find(start.job);
    if (job == nullptr || job->state != core::JobState::kPending) {
      report.refused.push_back({start.job, "job is no longer pending"});
      continue;
    }
    std::string why;
    for (const core::NodeShare& share : start.nodes) {
      why = RecheckNode(view, share, start.exclusive);
      if (!why.empty()) {
        break;
      }
    }
    if (why.empty() && start.nodes.empty()) {
      why = "plan gives the job no nodes";
    }
    core::Allocation alloc;
    alloc.nodes = start.nodes;
    alloc.exclusive = start.exclusive;
    if (why.empty()) {
      // All-or-nothing: ApplyJob changes nothing if any node would go below zero.
      absl::Status s = view.ApplyJob(UsesOf(alloc), alloc.exclusive, /*start=*/true);
      if (!s.ok()) {
        why = std::string(s.message());
      }
    }
    if (!why.empty()) {
      job->reason = core::JobReason::kResources;
      report.refused.push_back({start.job, std::move(why)});
      continue;
    }
    absl::Status t = core::TransitionTo(*job, start_state_, now);
    if (!t.ok()) {
      return absl::InternalError(t.message());
    }
    job->allocation = std::move(alloc);
    report.started.push_back(start.job);
  }
  for (const PendingNote& note : plan.pending) {
    core::Job* job = jobs.Find(note.job);
    if (job != nullptr && job->state == core::JobState::kPending) {
      job->reason = note.reason;
    }
  }
  return report;
}

absl::Status EndJob(CapacityView& view, core::Job& job, core::JobState final_state,
                    absl::Time now) {
  if (!core::IsLegalTransition(job.state, final_state)) {
    return core::TransitionTo(job, final_state, now);  // the FailedPrecondition
  }
  if (absl::Status s = Release(view, job, /*keep_record=*/true); !s.ok()) {
    return s;
  }
  return core::TransitionTo(job, final_state, now);
}

absl::Status AbortLaunch(CapacityView& view, core::Job& job, core::JobReason reason,
                         absl::Time now) {
  if (job.state != core::JobState::kConfiguring) {
    return absl::FailedPreconditionError(absl::StrCat(
        "job ", job.id.value(), " is ", core::JobStateName(job.state), ", not configuring"));
  }
  if (absl::Status s = Release(view, job, /*keep_record=*/false); !s.ok()) {
    return s;
  }
  if (absl::Status s = core::TransitionTo(job, core::JobState::kPending, now); !s.ok()) {
    return s;
  }
  job.reason = reason;
  return absl::OkStatus();
}

absl::Status RestoreAllocation(CapacityView& view, const core::Job& job) {
  if (job.allocation.empty()) {
    return absl::OkStatus();
  }
  absl::Status s = view.ApplyJob(UsesOf(job.allocation), job.allocation.exclusive, true);
  if (!s.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("job ", job.id.value(), ": restoring its allocation: ", s.message()));
  }
  return absl::OkStatus();
}

absl::Status FailJobOnNodeLoss(CapacityView& view, core::Job& job, absl::Time now) {
  if (job.state != core::JobState::kRunning && job.state != core::JobState::kConfiguring) {
    return absl::FailedPreconditionError(absl::StrCat(
        "job ", job.id.value(), " is ", core::JobStateName(job.state), ", not running"));
  }
  if (absl::Status s = Release(view, job, /*keep_record=*/!job.spec->requeue); !s.ok()) {
    return s;
  }
  if (!job.spec->requeue) {
    return core::TransitionTo(job, core::JobState::kNodeFail, now);
  }
  if (absl::Status s = core::TransitionTo(job, core::JobState::kRequeued, now); !s.ok()) {
    return s;
  }
  return core::TransitionTo(job, core::JobState::kPending, now);
}

}  // namespace canopy::plan
