// scontrol update job Name=/Comment=/Partition=/NumNodes=/ExcNodeList=/ReqNodeList=/Dependency=
// (job_edit.h).
#include "scheduler/lifecycle/job_edit.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "scheduler/lifecycle/admission.h"
#include "scheduler/lifecycle/dependencies.h"
#include "scheduler/lifecycle/qos_limits.h"
#include "scheduler/lifecycle/submit_limits.h"

namespace canopy::lifecycle {
namespace {

// Admission's errors end with sbatch's "Batch job submission failed: <Slurm's words>"; an update
// answers with Slurm's words alone, as scontrol prints them.
absl::Status AsUpdateError(const absl::Status& st) {
  std::string message(st.message());
  absl::StrReplaceAll({{"Batch job submission failed: ", ""}}, &message);
  return absl::Status(st.code(), message);
}

}  // namespace

absl::Status EditJob(LifecycleState& s, core::JobId id, const JobEdit& edit, const Caller& caller,
                     Effects& effects) {
  if (edit.empty()) {
    return absl::InvalidArgumentError("nothing to change");
  }
  absl::StatusOr<core::Job*> found = s.FindControlled(id, caller);
  if (!found.ok()) {
    return found.status();
  }
  core::Job& job = **found;
  if (job.state != core::JobState::kPending && job.state != core::JobState::kConfiguring &&
      job.state != core::JobState::kRunning) {
    return absl::FailedPreconditionError("Job/step already completing or completed");
  }
  if (edit.ChangesPendingOnly() && job.state != core::JobState::kPending) {
    return absl::FailedPreconditionError("Job is no longer pending execution");
  }
  if (edit.name.has_value() && edit.name->empty()) {
    return absl::InvalidArgumentError("Name: a job name must not be empty");
  }
  if (edit.name.has_value()) {
    if (absl::Status st = CheckEditedText("job name", *edit.name); !st.ok()) {
      return st;
    }
  }
  if (edit.comment.has_value()) {
    if (absl::Status st = CheckEditedText("comment", *edit.comment); !st.ok()) {
      return st;
    }
  }

  // Check everything on a copy first, so that a refused edit changes nothing.
  core::Job edited = job;
  core::JobSpec& spec = edited.spec.Mutable();
  if (edit.partition.has_value()) {
    spec.partition = *edit.partition;
  }
  if (edit.min_nodes.has_value()) {
    spec.min_nodes = *edit.min_nodes;
    spec.max_nodes = edit.max_nodes.value_or(0);
  } else if (edit.max_nodes.has_value()) {
    spec.max_nodes = *edit.max_nodes;
  }
  if (edit.excluded_nodes.has_value()) {
    spec.excluded_nodes = *edit.excluded_nodes;
  }
  if (edit.required_nodes.has_value()) {
    spec.required_nodes = *edit.required_nodes;
  }
  const bool placement = edit.partition || edit.min_nodes || edit.max_nodes ||
                         edit.excluded_nodes || edit.required_nodes;
  if (placement) {
    absl::StatusOr<ResolvedSpec> resolved = ResolveSpec(spec, *s.config, *s.topology);
    if (!resolved.ok()) {
      return AsUpdateError(resolved.status());
    }
    edited.resources = resolved->resources;
    edited.partition = resolved->partition->name;
    // A limit the job asked for stays; one it took from its old partition follows the new one.
    edited.time_limit = resolved->time_limit;
    if (absl::Status st = CheckNeverRunnable(s, edited); !st.ok()) {
      return AsUpdateError(st);
    }
  }
  if (edit.dependencies.has_value()) {
    core::JobSpec deps;
    deps.dependencies = *edit.dependencies;
    deps.dependency_any = edit.dependency_any;
    // Checks before it changes anything; the last check that can refuse.
    if (absl::Status st = ReplaceDependencies(s, job, std::move(deps), effects); !st.ok()) {
      return st;
    }
  }

  if (edit.name.has_value()) {
    RenameJob(s, job, *edit.name, effects);
  }
  if (edit.comment.has_value()) {
    job.spec.Mutable().comment = *edit.comment;
  }
  if (placement) {
    job.spec.Mutable().partition = spec.partition;
    job.spec.Mutable().min_nodes = spec.min_nodes;
    job.spec.Mutable().max_nodes = spec.max_nodes;
    job.spec.Mutable().excluded_nodes = spec.excluded_nodes;
    job.spec.Mutable().required_nodes = spec.required_nodes;
    job.resources = edited.resources;
    job.partition = edited.partition;
    job.time_limit = edited.time_limit;
    if (!IsHold(job.reason) && !job.priority_fixed) {
      job.priority = s.accounting.ComputePriority(job, s.Now());  // partition factor and size
    }
    effects.schedule = true;
  }
  s.Touch(id, effects);
  Regate(s, job, effects);  // partition limits of the new partition, or none
  effects.info.push_back(absl::StrCat("job ", id.value(), " updated by ", caller.user_name));
  return absl::OkStatus();
}

}  // namespace canopy::lifecycle
