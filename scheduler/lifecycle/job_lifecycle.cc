// JobLifecycle: the facade over the lifecycle's units (job_lifecycle.h).
#include "scheduler/lifecycle/job_lifecycle.h"

#include <utility>

#include "scheduler/lifecycle/admission.h"
#include "scheduler/lifecycle/agent_reports.h"
#include "scheduler/lifecycle/cancel.h"
#include "scheduler/lifecycle/job_control.h"
#include "scheduler/lifecycle/job_edit.h"
#include "scheduler/lifecycle/launch.h"
#include "scheduler/lifecycle/priorities.h"
#include "scheduler/lifecycle/qos_limits.h"
#include "scheduler/lifecycle/restore.h"
#include "scheduler/lifecycle/steps.h"
#include "scheduler/lifecycle/timers.h"
#include "scheduler/placement/registry.h"
#include "scheduler/state/capacity_builder.h"

namespace canopy::lifecycle {

absl::StatusOr<std::unique_ptr<JobLifecycle>> JobLifecycle::Create(
    std::shared_ptr<const config::ClusterConfig> config,
    std::shared_ptr<const topology::Topology> topology, const core::Clock& clock,
    LifecycleOptions options) {
  absl::StatusOr<placement::CapacityView> view = state::BuildIdleCapacity(*config, *topology);
  if (!view.ok()) {
    return view.status();
  }
  absl::StatusOr<std::unique_ptr<placement::PlacementPolicy>> policy =
      placement::MakePlacementPolicy(options.placement_policy);
  if (!policy.ok()) {
    return policy.status();
  }
  // SchedulerType and SchedulerParameters decide how the pass treats the queue's order.
  const config::SchedulerConfig& scheduler = config->scheduling.scheduler;
  options.pass.backfill.enabled = scheduler.backfill;
  options.pass.backfill.window = scheduler.parameters.bf_window;
  options.pass.backfill.resolution = scheduler.parameters.bf_resolution;
  options.pass.backfill.max_job_test = scheduler.parameters.bf_max_job_test;
  options.pass.strict_order = !scheduler.backfill;
  queue::PartitionTiers tiers;
  for (const config::PartitionConfig& p : config->partitions) {
    tiers[p.name] = p.policy.priority_tier;
  }
  absl::StatusOr<std::unique_ptr<queue::QueueSort>> sort =
      queue::MakeQueueSort(options.queue_sort, std::move(tiers));
  if (!sort.ok()) {
    return sort.status();
  }
  return std::unique_ptr<JobLifecycle>(new JobLifecycle(std::move(config), std::move(topology),
                                                        clock, *std::move(view), *std::move(policy),
                                                        *std::move(sort), options.pass));
}

absl::Status JobLifecycle::RestoreAccounting(persistence::StoredAccounting stored,
                                             Effects& effects) {
  return lifecycle::RestoreAccounting(state_, std::move(stored), effects);
}

absl::Status JobLifecycle::SetAssociations(fairshare::AssociationTree tree, const Caller& caller,
                                           Effects& effects) {
  return lifecycle::SetAssociations(state_, std::move(tree), caller, effects);
}

absl::Status JobLifecycle::SetQos(std::vector<limits::QosSpec> specs, const Caller& caller,
                                  Effects& effects) {
  return lifecycle::SetQos(state_, std::move(specs), caller, effects);
}

absl::Status JobLifecycle::SetJobPriority(core::JobId id, uint32_t priority, const Caller& caller,
                                          Effects& effects) {
  return lifecycle::SetJobPriority(state_, id, priority, caller, effects);
}

absl::Status JobLifecycle::SetJobNice(core::JobId id, int32_t nice, const Caller& caller,
                                      Effects& effects) {
  return lifecycle::SetJobNice(state_, id, nice, caller, effects);
}

absl::Status JobLifecycle::EditJob(core::JobId id, const JobEdit& edit, const Caller& caller,
                                   Effects& effects) {
  return lifecycle::EditJob(state_, id, edit, caller, effects);
}

absl::Status JobLifecycle::TopJob(core::JobId id, const Caller& caller, Effects& effects) {
  return lifecycle::TopJob(state_, id, caller, effects);
}

std::vector<fairshare::AssociationSpec> JobLifecycle::AssociationsToSave() const {
  return state_.accounting.tree().Specs();
}

absl::btree_map<uint32_t, std::vector<core::StepRecord>> JobLifecycle::RunningSteps() const {
  absl::btree_map<uint32_t, std::vector<core::StepRecord>> out;
  for (const auto& [id, live] : state_.live) {
    for (const auto& [step_id, step] : live.steps) {
      out[id.value()].push_back(step.record);
    }
  }
  return out;
}

persistence::UsageState JobLifecycle::UsageToSave() const {
  return state_.accounting.SaveUsage(state_.Now());
}

absl::Status JobLifecycle::Restore(persistence::StoredJobs stored, Effects& effects) {
  return lifecycle::Restore(state_, std::move(stored), effects);
}

void JobLifecycle::NodeChanged(const state::NodeRecord& node, Effects& effects) {
  lifecycle::NodeChanged(state_, node, effects);
}

std::vector<uint32_t> JobLifecycle::NodeRegistered(const state::NodeRecord& node,
                                                   const std::vector<RunningJob>& running,
                                                   Effects& effects) {
  return lifecycle::NodeRegistered(state_, node, running, effects);
}

void JobLifecycle::JobReported(core::NodeId node, const JobReport& report, Effects& effects) {
  lifecycle::JobReported(state_, node, report, effects);
}

void JobLifecycle::StepReported(core::NodeId node, const StepReport& report, Effects& effects) {
  lifecycle::StepReported(state_, node, report, effects);
}

absl::StatusOr<SubmitAnswer> JobLifecycle::Submit(SubmitRequest request, const Caller& caller,
                                                  Effects& effects) {
  return lifecycle::Submit(state_, std::move(request), caller, effects);
}

absl::StatusOr<WillRunAnswer> JobLifecycle::TestSubmit(const SubmitRequest& request,
                                                       const Caller& caller) const {
  return lifecycle::TestSubmit(state_, request, caller);
}

std::vector<CancelAnswer> JobLifecycle::Cancel(const CancelRequest& request, const Caller& caller,
                                               Effects& effects) {
  return lifecycle::Cancel(state_, request, caller, effects);
}

absl::Status JobLifecycle::CompleteJob(const CompleteRequest& request, const Caller& caller,
                                       Effects& effects) {
  return lifecycle::CompleteJob(state_, request, caller, effects);
}

absl::StatusOr<StepAnswer> JobLifecycle::CreateStep(const StepRequest& request,
                                                    const Caller& caller, Effects& effects) {
  return lifecycle::CreateStep(state_, request, caller, effects);
}

absl::Status JobLifecycle::NotifyJob(const NotifyRequest& request, const Caller& caller,
                                     Effects& effects) {
  return lifecycle::NotifyJob(state_, request, caller, effects);
}

absl::StatusOr<StepAnswer> JobLifecycle::AttachStep(const AttachRequest& request,
                                                    const Caller& caller, Effects& effects) {
  return lifecycle::AttachStep(state_, request, caller, effects);
}

absl::Status JobLifecycle::CancelStep(const CancelStepRequest& request, const Caller& caller,
                                      Effects& effects) {
  return lifecycle::CancelStep(state_, request, caller, effects);
}

std::vector<JobActionAnswer> JobLifecycle::ControlJobs(const JobActionRequest& request,
                                                       const Caller& caller, Effects& effects) {
  return lifecycle::ControlJobs(state_, request, caller, effects);
}

absl::Status JobLifecycle::SetJobTimeLimit(core::JobId id, const TimeLimitChange& change,
                                           const Caller& caller, Effects& effects) {
  return lifecycle::SetTimeLimit(state_, id, change, caller, effects);
}

void JobLifecycle::Schedule(Effects& effects) { lifecycle::Schedule(state_, effects); }
void JobLifecycle::BackfillPlanned(BackfillWork& work, Effects& effects) {
  lifecycle::BackfillPlanned(state_, work, effects);
}

void JobLifecycle::Tick(Effects& effects) { lifecycle::Tick(state_, effects); }

absl::Time JobLifecycle::NextDeadline() const { return lifecycle::NextDeadline(state_); }

}  // namespace canopy::lifecycle
