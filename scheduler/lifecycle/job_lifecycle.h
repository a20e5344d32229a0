// JobLifecycle: everything the scheduling core does with jobs, as commands in and effects out:
// submit, the scheduling pass, gang launch with confirmation, steps, signals, cancel, time
// limits, exits, cleanup, node loss and restart recovery. canopyd's controller and canopy-sim
// drive this same object: the controller with requests from clients and reports from real
// agents, the simulator with a trace and simulated agents.
//
// Owned and driven by one thread (not thread-safe). It never does I/O and reads the time only
// from its Clock: every command returns its Effects (jobs to save, messages for agents), which
// the caller persists before it sends the messages and answers the clients. The work is done by
// units, one concern each (docs/design/job_lifecycle.md): admission.h, dependencies.h,
// job_edit.h, launch.h, ending.h, cancel.h, job_control.h, steps.h, timers.h, agent_reports.h,
// restore.h, priorities.h, over the shared lifecycle_state.h.
//
// The life of a batch job:
//   PENDING --pass--> CONFIGURING: capacity taken, LaunchJob sent to every node
//   CONFIGURING --every node says LAUNCHED--> RUNNING
//   CONFIGURING --a node says LAUNCH_FAILED, or launch_timeout passes--> PENDING (KillJob to all)
//   RUNNING --batch host says EXITED--> COMPLETING (KillJob to all nodes, to clean up)
//   RUNNING --time limit / scancel--> COMPLETING (KillJob: SIGTERM, SIGKILL after KillWait)
//   COMPLETING --every node says CLEANED_UP (or is down)--> COMPLETED / FAILED / CANCELLED /
//                                                             TIMEOUT / OUT_OF_MEMORY
//   CONFIGURING/RUNNING --a node of the job is lost--> REQUEUED -> PENDING (or NODE_FAIL)
//   CONFIGURING/RUNNING --scontrol requeue--> REQUEUED -> PENDING
// A PENDING job waits out of the pass while it is held, its --dependency is not satisfied or
// its --begin time has not come (dependencies.h, job_control.h).
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/config/cluster_config.h"
#include "scheduler/core/clock.h"
#include "scheduler/core/job.h"
#include "scheduler/core/job_history.h"
#include "scheduler/lifecycle/backfill_work.h"
#include "scheduler/lifecycle/caller.h"
#include "scheduler/lifecycle/commands.h"
#include "scheduler/lifecycle/effects.h"
#include "scheduler/lifecycle/lifecycle_state.h"
#include "scheduler/persistence/store.h"
#include "scheduler/state/node_record.h"
#include "scheduler/topology/topology.h"

namespace canopy::lifecycle {

class JobLifecycle {
 public:
  // InvalidArgument for an unknown placement policy or queue sort, or a configuration that
  // does not match the topology. `clock` must outlive the lifecycle.
  static absl::StatusOr<std::unique_ptr<JobLifecycle>> Create(
      std::shared_ptr<const config::ClusterConfig> config,
      std::shared_ptr<const topology::Topology> topology, const core::Clock& clock,
      LifecycleOptions options = {});

  // ---- Start-up (restore.h): RestoreAccounting first, then Restore.
  absl::Status RestoreAccounting(persistence::StoredAccounting stored, Effects& effects);
  absl::Status Restore(persistence::StoredJobs stored, Effects& effects);

  // ---- Nodes and agents (agent_reports.h)
  void NodeChanged(const state::NodeRecord& node, Effects& effects);
  std::vector<uint32_t> NodeRegistered(const state::NodeRecord& node,
                                       const std::vector<RunningJob>& running, Effects& effects);
  void JobReported(core::NodeId node, const JobReport& report, Effects& effects);
  void StepReported(core::NodeId node, const StepReport& report, Effects& effects);

  // ---- Clients (admission.h, cancel.h, steps.h)
  // Takes the request: a spec it holds alone becomes the job's without a copy.
  absl::StatusOr<SubmitAnswer> Submit(SubmitRequest request, const Caller& caller,
                                      Effects& effects);
  absl::StatusOr<WillRunAnswer> TestSubmit(const SubmitRequest& request,
                                           const Caller& caller) const;
  std::vector<CancelAnswer> Cancel(const CancelRequest& request, const Caller& caller,
                                   Effects& effects);
  absl::Status CompleteJob(const CompleteRequest& request, const Caller& caller, Effects& effects);
  absl::StatusOr<StepAnswer> CreateStep(const StepRequest& request, const Caller& caller,
                                        Effects& effects);
  absl::Status CancelStep(const CancelStepRequest& request, const Caller& caller, Effects& effects);
  // scontrol notify and sattach (steps.h).
  absl::Status NotifyJob(const NotifyRequest& request, const Caller& caller, Effects& effects);
  absl::StatusOr<StepAnswer> AttachStep(const AttachRequest& request, const Caller& caller,
                                        Effects& effects);

  // ---- Holds, requeues and time limits (job_control.h)
  std::vector<JobActionAnswer> ControlJobs(const JobActionRequest& request, const Caller& caller,
                                           Effects& effects);
  absl::Status SetJobTimeLimit(core::JobId id, const TimeLimitChange& change, const Caller& caller,
                               Effects& effects);
  // Name, comment, partition, node counts and lists, dependencies (job_edit.h).
  absl::Status EditJob(core::JobId id, const JobEdit& edit, const Caller& caller, Effects& effects);

  // ---- Priorities and accounts (priorities.h)
  absl::Status SetAssociations(fairshare::AssociationTree tree, const Caller& caller,
                               Effects& effects);
  absl::Status SetJobPriority(core::JobId id, uint32_t priority, const Caller& caller,
                              Effects& effects);
  absl::Status SetJobNice(core::JobId id, int32_t nice, const Caller& caller, Effects& effects);
  absl::Status TopJob(core::JobId id, const Caller& caller, Effects& effects);
  // ---- QOS and limits (qos_limits.h)
  absl::Status SetQos(std::vector<limits::QosSpec> specs, const Caller& caller, Effects& effects);
  const limits::QosTable& qos() const { return state_.accounting.qos(); }
  // The tree and the ledger as the store keeps them (after Effects said they changed).
  std::vector<fairshare::AssociationSpec> AssociationsToSave() const;
  persistence::UsageState UsageToSave() const;

  // ---- Time (launch.h, timers.h)
  // One scheduling pass: starts every pending job that fits now, in queue order.
  void Schedule(Effects& effects);
  // canopyd: a due backfill pass is handed out as Effects::backfill_work, to be planned on
  // another thread (PlanBackfill) and given back here (backfill_work.h). Off by default: the
  // simulator and the tests plan inline.
  void set_plan_backfill_elsewhere(bool on) { state_.plan_backfill_elsewhere = on; }
  void BackfillPlanned(BackfillWork& work, Effects& effects);
  // Launch deadlines, time limits, --signal warnings, stuck cleanups, expired cleanup holds,
  // begin times and after:ID+MINUTES dependencies coming due.
  void Tick(Effects& effects);
  // When Tick next has something to do; InfiniteFuture if nothing waits.
  absl::Time NextDeadline() const;

  // ---- Reads
  const core::Job* Find(core::JobId id) const { return state_.jobs.Find(id); }
  const core::JobTable& jobs() const { return state_.jobs; }
  uint32_t next_job_id() const { return state_.next_job_id; }
  const placement::CapacityView& capacity() const { return state_.view; }
  // Changes whenever the capacity view may have changed (jobs started or ended, node facts).
  uint64_t capacity_version() const { return state_.capacity_version; }
  // Pending jobs the pass considers (not held or blocked by a partition limit).
  size_t pending_count() const { return state_.pending.size(); }
  size_t cleanup_holds() const { return state_.holds.size(); }
  const Accounting& accounting() const { return state_.accounting; }
  // Every job's running srun steps, by job id then ascending step id.
  absl::btree_map<uint32_t, std::vector<core::StepRecord>> RunningSteps() const;

 private:
  JobLifecycle(std::shared_ptr<const config::ClusterConfig> config,
               std::shared_ptr<const topology::Topology> topology, const core::Clock& clock,
               placement::CapacityView view, std::unique_ptr<placement::PlacementPolicy> policy,
               std::unique_ptr<queue::QueueSort> sort, plan::PassOptions pass)
      : state_(std::move(config), std::move(topology), clock, std::move(view), std::move(policy),
               std::move(sort), pass) {}

  LifecycleState state_;
};

}  // namespace canopy::lifecycle
