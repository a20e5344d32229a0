// Steps (steps.h).
#include "scheduler/lifecycle/steps.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/slurm/hostlist.h"

namespace canopy::lifecycle {

absl::StatusOr<StepAnswer> CreateStep(LifecycleState& s, const StepRequest& request,
                                      const Caller& caller, Effects& effects) {
  absl::StatusOr<core::Job*> found = s.FindControlled(request.job, caller);
  if (!found.ok()) {
    return found.status();
  }
  core::Job& job = **found;
  const uint32_t id = job.id.value();
  LiveJob* live = s.Live(job.id);
  if ((job.state != core::JobState::kRunning && job.state != core::JobState::kConfiguring) ||
      live == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("Job/step already completing or completed: job ", id, " is ",
                     core::JobStateName(job.state)));
  }
  if (request.argv.empty()) {
    return absl::InvalidArgumentError("argv: no program to run");
  }
  if (request.io_address.empty() && request.stdout_path.empty()) {
    return absl::InvalidArgumentError("io_address: needed unless output goes to files");
  }
  absl::StatusOr<slurm::TaskLayout> layout =
      slurm::LayOutTasks(static_cast<int32_t>(job.allocation.nodes.size()), request.nodes,
                         request.ntasks, request.ntasks_per_node);
  if (!layout.ok()) {
    return layout.status();
  }
  auto step = std::make_shared<StepLaunch>();
  step->request = request;
  step->step_id = job.next_step_id++;
  s.Touch(job.id, effects);
  StepAnswer answer;
  answer.step_id = step->step_id;
  answer.ntasks = layout->ntasks;
  std::vector<core::NodeId> nodes;
  for (int i = 0; i < layout->nodes; ++i) {
    nodes.push_back(job.allocation.nodes[i].node);
    answer.nodes.push_back(s.topology->node_name(nodes.back()));
  }
  answer.tasks_per_node = layout->tasks_per_node;
  step->nodelist = slurm::CompressHostlist(answer.nodes);
  step->layout = *std::move(layout);
  std::shared_ptr<const StepLaunch> shared = std::move(step);
  for (int i = 0; i < shared->layout.nodes; ++i) {
    effects.Send(nodes[i], LaunchStep{shared, i});
  }
  live->steps[answer.step_id] = nodes;
  effects.info.push_back(absl::StrCat("job ", id, " step ", answer.step_id, ": ", answer.ntasks,
                                      " task(s) on ", shared->nodelist));
  return answer;
}

absl::Status CancelStep(LifecycleState& s, const CancelStepRequest& request, const Caller& caller,
                        Effects& effects) {
  absl::StatusOr<core::Job*> found = s.FindControlled(request.job, caller);
  if (!found.ok()) {
    return found.status();
  }
  const std::vector<core::NodeId>* nodes = nullptr;
  if (const LiveJob* live = s.Live(request.job); live != nullptr) {
    if (auto it = live->steps.find(request.step_id); it != live->steps.end()) {
      nodes = &it->second;
    }
  }
  if (nodes == nullptr) {
    return absl::NotFoundError(absl::StrCat("Invalid job id specified: step ", request.job.value(),
                                            ".", request.step_id, " is not running"));
  }
  for (core::NodeId node : *nodes) {
    effects.Send(node, KillStep{request.job, request.step_id, request.signal});
  }
  return absl::OkStatus();
}

void StepReported(LifecycleState& s, core::NodeId node, const StepReport& report) {
  LiveJob* live = s.Live(report.job);
  if (live == nullptr || !report.exited) {
    return;
  }
  auto it = live->steps.find(report.step_id);
  if (it == live->steps.end()) {
    return;
  }
  std::vector<core::NodeId>& nodes = it->second;
  nodes.erase(std::remove(nodes.begin(), nodes.end(), node), nodes.end());
  if (nodes.empty()) {
    live->steps.erase(it);
  }
}

}  // namespace canopy::lifecycle
