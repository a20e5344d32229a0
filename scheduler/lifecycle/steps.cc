// Steps (steps.h).
#include "scheduler/lifecycle/steps.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/strings/str_cat.h"
#include "common/slurm/hostlist.h"
#include "scheduler/lifecycle/submit_limits.h"

namespace canopy::lifecycle {
namespace {

// The accounting record of a step that starts: Slurm names a step after its program.
core::StepRecord StepStarted(const LifecycleState& s, const core::Job& job,
                             const StepLaunch& step) {
  core::StepRecord record;
  record.job = job.id;
  record.attempt = job.restart_count;
  record.step_id = step.step_id;
  const std::string& program = step.request.argv.front();
  const size_t slash = program.rfind('/');
  record.name = slash == std::string::npos ? program : program.substr(slash + 1);
  record.state = core::JobState::kRunning;
  record.start_time = s.Now();
  record.ntasks = step.layout.ntasks;
  record.cpus = step.layout.ntasks * std::max(job.spec->cpus_per_task, 1);
  for (int i = 0; i < step.layout.nodes; ++i) {
    record.nodes.push_back(job.allocation.nodes[i].node);
    record.gpus += job.allocation.nodes[i].gpus;
  }
  record.tasks_per_node = step.layout.tasks_per_node;
  return record;
}

// Slurm's MaxTasksPerNode default: no node starts more tasks of one step (srun -n 2147483647
// would otherwise have every agent sent, and asked to fork, billions of ranks).
constexpr int64_t kMaxTasksPerNode = 512;

absl::Status CheckTaskCounts(const slurm::TaskLayout& layout, int32_t cpus_per_task) {
  const int32_t most =
      layout.tasks_per_node.empty()
          ? 0
          : *std::max_element(layout.tasks_per_node.begin(), layout.tasks_per_node.end());
  if (most > kMaxTasksPerNode) {
    return absl::InvalidArgumentError(
        absl::StrCat("Requested node configuration is not available: ", layout.ntasks, " tasks on ",
                     layout.nodes, " node(s) is ", most,
                     " on one node, more than MaxTasksPerNode (", kMaxTasksPerNode, ")"));
  }
  // The step's CPUs are counted in 32 bits (accounting, squeue): refuse what does not fit.
  const int64_t cpus = int64_t{layout.ntasks} * std::max<int64_t>(cpus_per_task, 1);
  if (cpus > std::numeric_limits<int32_t>::max()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Requested node configuration is not available: ", layout.ntasks, " tasks x ",
                     cpus_per_task, " CPUs per task is more CPUs than any step may have"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<StepAnswer> CreateStep(LifecycleState& s, const StepRequest& request,
                                      const Caller& caller, Effects& effects) {
  absl::StatusOr<core::Job*> found = s.FindControlled(request.job, caller);
  if (!found.ok()) {
    return found.status();
  }
  core::Job& job = **found;
  if (absl::Status sizes = CheckStepSizes("", request.argv, request.environment); !sizes.ok()) {
    return sizes;
  }
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
  if (absl::Status fits = CheckTaskCounts(*layout, job.spec->cpus_per_task); !fits.ok()) {
    return fits;
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
  LiveStep& live_step = live->steps[answer.step_id];
  live_step.record = StepStarted(s, job, *shared);
  live_step.running = std::move(nodes);
  effects.steps.push_back(live_step.record);
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
  LiveStep* step = nullptr;
  if (LiveJob* live = s.Live(request.job); live != nullptr) {
    if (auto it = live->steps.find(request.step_id); it != live->steps.end()) {
      step = &it->second;
    }
  }
  if (step == nullptr) {
    return absl::NotFoundError(absl::StrCat("Invalid job id specified: step ", request.job.value(),
                                            ".", request.step_id, " is not running"));
  }
  // A signal other than a kill leaves the step running; tasks it ends count as cancelled too.
  step->cancelled = true;
  for (core::NodeId node : step->running) {
    effects.Send(node, KillStep{request.job, request.step_id, request.signal});
  }
  return absl::OkStatus();
}

absl::Status NotifyJob(LifecycleState& s, const NotifyRequest& request, const Caller& caller,
                       Effects& effects) {
  absl::StatusOr<core::Job*> found = s.FindControlled(request.job, caller);
  if (!found.ok()) {
    return found.status();
  }
  const core::Job& job = **found;
  LiveJob* live = s.Live(job.id);
  if (job.state == core::JobState::kPending) {
    return absl::FailedPreconditionError("Requested operation is presently disabled");
  }
  if ((job.state != core::JobState::kRunning && job.state != core::JobState::kConfiguring) ||
      live == nullptr) {
    return absl::FailedPreconditionError("Job/step already completing or completed");
  }
  // As Slurm: a batch job's message goes to the script's stderr, on the batch host; that of a
  // job srun allocated to the srun, here through a node of each of its steps (one node's
  // stream reaches srun; steps sharing that node get one message).
  if (!job.allocation_only()) {
    effects.Send(job.allocation.nodes.front().node, JobNotice{job.id, request.message, {}});
    return absl::OkStatus();
  }
  absl::btree_map<core::NodeId, std::vector<uint32_t>> by_node;
  for (const auto& [step_id, step] : live->steps) {
    if (!step.running.empty()) {
      by_node[step.running.front()].push_back(step_id);
    }
  }
  if (by_node.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("Requested operation is presently disabled: job ", job.id.value(),
                     " has no batch script and no running srun step to show the message to"));
  }
  for (auto& [node, step_ids] : by_node) {
    effects.Send(node, JobNotice{job.id, request.message, std::move(step_ids)});
  }
  return absl::OkStatus();
}

absl::StatusOr<StepAnswer> AttachStep(LifecycleState& s, const AttachRequest& request,
                                      const Caller& caller, Effects& effects) {
  absl::StatusOr<core::Job*> found = s.FindControlled(request.job, caller);
  if (!found.ok()) {
    return found.status();
  }
  const LiveStep* step = nullptr;
  if (const LiveJob* live = s.Live(request.job); live != nullptr) {
    if (auto it = live->steps.find(request.step_id); it != live->steps.end()) {
      step = &it->second;
    }
  }
  if (step == nullptr || step->running.empty()) {
    return absl::NotFoundError(absl::StrCat("Job/step already completing or completed: step ",
                                            request.job.value(), ".", request.step_id,
                                            " is not running"));
  }
  StepAnswer answer;
  answer.step_id = request.step_id;
  answer.ntasks = step->record.ntasks;
  for (core::NodeId node : step->record.nodes) {
    answer.nodes.push_back(s.topology->node_name(node));
  }
  answer.tasks_per_node = step->record.tasks_per_node;
  if (!request.io_address.empty()) {  // empty: the layout only (sattach --layout)
    for (core::NodeId node : step->running) {
      effects.Send(node,
                   StepAttach{request.job, request.step_id, request.io_address, request.io_token});
    }
  }
  return answer;
}

void StepReported(LifecycleState& s, core::NodeId node, const StepReport& report,
                  Effects& effects) {
  LiveJob* live = s.Live(report.job);
  if (live == nullptr || !report.exited) {
    return;
  }
  auto it = live->steps.find(report.step_id);
  if (it == live->steps.end()) {
    return;
  }
  LiveStep& step = it->second;
  std::vector<core::NodeId>& nodes = step.running;
  const auto before = nodes.size();
  nodes.erase(std::remove(nodes.begin(), nodes.end(), node), nodes.end());
  if (nodes.size() == before) {
    return;  // a repeated report of a part already counted
  }
  core::StepRecord& record = step.record;
  record.exit_code = std::max(record.exit_code, report.exit_code);
  if (report.exit_signal != 0) {
    record.exit_signal = report.exit_signal;
  }
  if (!nodes.empty()) {
    return;
  }
  // Slurm's step states: a task killed by a signal after scancel is CANCELLED, otherwise a
  // signal or a non-zero exit is FAILED.
  if (record.exit_signal != 0) {
    record.state = step.cancelled ? core::JobState::kCancelled : core::JobState::kFailed;
  } else {
    record.state = record.exit_code == 0 ? core::JobState::kCompleted : core::JobState::kFailed;
  }
  record.end_time = s.Now();
  effects.steps.push_back(std::move(record));
  live->steps.erase(it);
}

}  // namespace canopy::lifecycle
