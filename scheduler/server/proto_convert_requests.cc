// Client requests and their answers <-> canopy.v1 (proto_convert.h): submit, cancel, holds,
// requeues, time limits, steps and allocation ends.
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "scheduler/server/proto_convert.h"

namespace canopy::server {

using rpc::FromProtoDuration;

lifecycle::SubmitRequest FromProto(const canopy::v1::SubmitJobRequest& request) {
  return {FromProto(request.spec()), request.idempotency_key()};
}

lifecycle::CancelRequest FromProto(const canopy::v1::CancelJobRequest& request) {
  lifecycle::CancelRequest out;
  out.job_ids.assign(request.job_ids().begin(), request.job_ids().end());
  out.signal = request.signal();
  out.batch_only = request.batch_only();
  return out;
}

lifecycle::JobActionRequest FromProto(const canopy::v1::HoldJobsRequest& r) {
  lifecycle::JobActionRequest out;
  out.job_ids.assign(r.job_ids().begin(), r.job_ids().end());
  out.action = r.user_hold() ? lifecycle::JobAction::kUserHold : lifecycle::JobAction::kHold;
  return out;
}

lifecycle::JobActionRequest FromProto(const canopy::v1::ReleaseJobsRequest& r) {
  lifecycle::JobActionRequest out;
  out.job_ids.assign(r.job_ids().begin(), r.job_ids().end());
  out.action = lifecycle::JobAction::kRelease;
  return out;
}

lifecycle::JobActionRequest FromProto(const canopy::v1::RequeueJobsRequest& r) {
  lifecycle::JobActionRequest out;
  out.job_ids.assign(r.job_ids().begin(), r.job_ids().end());
  out.action = r.hold() ? lifecycle::JobAction::kRequeueHold : lifecycle::JobAction::kRequeue;
  return out;
}

std::optional<lifecycle::TimeLimitChange> TimeLimitFromProto(
    const canopy::v1::UpdateJobRequest& r) {
  if (!r.has_time_limit() && !r.time_limit_unlimited() && !r.has_time_limit_change()) {
    return std::nullopt;
  }
  lifecycle::TimeLimitChange out;
  if (r.time_limit_unlimited()) {
    out.set = absl::InfiniteDuration();
  } else if (r.has_time_limit()) {
    out.set = FromProtoDuration(r.time_limit());
  }
  if (r.has_time_limit_change()) {
    out.add = FromProtoDuration(r.time_limit_change());
  }
  return out;
}

canopy::v1::JobActionResponse ToProto(const std::vector<lifecycle::JobActionAnswer>& answers) {
  canopy::v1::JobActionResponse out;
  for (const lifecycle::JobActionAnswer& a : answers) {
    canopy::v1::JobActionResult* r = out.add_results();
    r->set_job_id(a.job_id);
    r->set_ok(a.ok);
    r->set_error(a.error);
  }
  return out;
}

lifecycle::StepRequest FromProto(const canopy::v1::CreateStepRequest& r) {
  lifecycle::StepRequest out;
  out.job = core::JobId(r.job_id());
  out.nodes = r.nodes();
  out.ntasks = r.ntasks();
  out.ntasks_per_node = r.ntasks_per_node();
  out.argv.assign(r.argv().begin(), r.argv().end());
  out.environment.insert(r.environment().begin(), r.environment().end());
  out.work_dir = r.work_dir();
  out.io_address = r.io_address();
  out.io_token = r.io_token();
  out.stdout_path = r.stdout_path();
  out.stderr_path = r.stderr_path();
  return out;
}

lifecycle::CancelStepRequest FromProto(const canopy::v1::CancelStepRequest& r) {
  return {core::JobId(r.job_id()), r.step_id(), r.signal()};
}

lifecycle::CompleteRequest FromProto(const canopy::v1::CompleteJobRequest& r) {
  return {core::JobId(r.job_id()), r.exit_code(), r.exit_signal()};
}

canopy::v1::SubmitJobResponse ToProto(const lifecycle::SubmitAnswer& answer) {
  canopy::v1::SubmitJobResponse out;
  out.set_job_id(answer.job_id.value());
  for (core::JobId id : answer.array_task_job_ids) {
    out.add_array_task_job_ids(id.value());
  }
  return out;
}

canopy::v1::CancelJobResponse ToProto(const std::vector<lifecycle::CancelAnswer>& answers) {
  canopy::v1::CancelJobResponse out;
  for (const lifecycle::CancelAnswer& a : answers) {
    canopy::v1::CancelResult* r = out.add_results();
    r->set_job_id(a.job_id);
    r->set_ok(a.ok);
    r->set_error(a.error);
  }
  return out;
}

canopy::v1::CreateStepResponse ToProto(const lifecycle::StepAnswer& answer) {
  canopy::v1::CreateStepResponse out;
  out.set_step_id(answer.step_id);
  out.set_ntasks(answer.ntasks);
  for (const std::string& node : answer.nodes) {
    out.add_nodes(node);
  }
  for (int32_t n : answer.tasks_per_node) {
    out.add_tasks_per_node(n);
  }
  return out;
}

absl::StatusOr<lifecycle::JobEdit> JobEditFromProto(const canopy::v1::UpdateJobRequest& r) {
  lifecycle::JobEdit edit;
  if (r.has_name()) {
    edit.name = r.name();
  }
  if (r.has_comment()) {
    edit.comment = r.comment();
  }
  if (r.has_partition()) {
    edit.partition = r.partition();
  }
  if (r.has_min_nodes()) {
    if (r.min_nodes() < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("min_nodes: expected at least 1 node, got ", r.min_nodes()));
    }
    edit.min_nodes = r.min_nodes();
  }
  if (r.has_max_nodes()) {
    if (r.max_nodes() < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("max_nodes: expected a node count (0 = min_nodes), got ", r.max_nodes()));
    }
    edit.max_nodes = r.max_nodes();
  }
  if (r.has_excluded_nodes()) {
    edit.excluded_nodes = r.excluded_nodes();
  }
  if (r.has_required_nodes()) {
    edit.required_nodes = r.required_nodes();
  }
  if (r.set_dependencies()) {
    std::vector<core::Dependency> items;
    for (int i = 0; i < r.dependencies_size(); ++i) {
      std::optional<core::Dependency> item = DependencyFromProto(r.dependencies(i));
      if (!item.has_value()) {
        return absl::InvalidArgumentError(absl::StrCat("dependencies[", i,
                                                       "].type: unknown dependency type ",
                                                       static_cast<int>(r.dependencies(i).type())));
      }
      items.push_back(*std::move(item));
    }
    edit.dependencies = std::move(items);
    edit.dependency_any = r.dependency_any();
  }
  return edit;
}

}  // namespace canopy::server
