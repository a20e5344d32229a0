// LifecycleState: what the job lifecycle knows, shared by its units (admission, launch, ending,
// steps, timers, agent reports, restore): the job records, what is tracked about each job while
// it holds nodes, the capacity placement sees, GPU indexes in use, cleanup holds, and the
// indexes that keep every event O(what it touches) instead of O(all jobs).
//
// Invariants (kept by the helpers below and checked by the tests):
//   * a job has a LiveJob entry exactly while it is CONFIGURING, RUNNING or COMPLETING, and then
//     holds its allocation's capacity and is listed in `node_jobs` for each of its nodes;
//   * `pending` holds exactly the PENDING jobs whose reason does not block them (holds,
//     partition limits); it is brought up to date by Touch, which every change of a job's state
//     or reason goes through (the same call marks the job for saving);
//   * `deadlines` has one entry per job with something for Tick to do, at the earliest time
//     (for a pending job: its begin time, or an after:ID+MINUTES item coming due);
//   * `limit_usage` counts exactly the CONFIGURING and RUNNING jobs;
//   * `finished` holds every job in a terminal state (other than REQUEUED) under its end time;
//   * `deps` lists exactly the pending jobs whose dependency still waits, under every job or
//     array task it names (dependencies.h keeps it).
// Owned by JobLifecycle; not thread-safe; no I/O; time only from `clock`.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/container/btree_set.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "common/config/cluster_config.h"
#include "scheduler/core/clock.h"
#include "scheduler/core/job_table.h"
#include "scheduler/lifecycle/accounting.h"
#include "scheduler/lifecycle/caller.h"
#include "scheduler/lifecycle/dependency_index.h"
#include "scheduler/lifecycle/effects.h"
#include "scheduler/limits/limit_usage.h"
#include "scheduler/placement/capacity_view.h"
#include "scheduler/placement/policy.h"
#include "scheduler/plan/applier.h"
#include "scheduler/plan/pass.h"
#include "scheduler/queue/queue_sort.h"
#include "scheduler/topology/topology.h"

namespace canopy::lifecycle {

// How long a COMPLETING job waits for its nodes to confirm cleanup beyond KillWait before it is
// ended anyway (its nodes are then the admin's problem, as Slurm's "Kill task failed").
inline constexpr absl::Duration kCleanupGrace = absl::Seconds(60);
// How long a RUNNING job's batch host may re-register without the job before the job counts as
// lost: long enough for the agent to re-send an exit it saw while the controller was away.
inline constexpr absl::Duration kLostBatchGrace = absl::Seconds(30);
// A backfill pass planned elsewhere that has not come back after this long is given up (its
// plan is ignored if it still comes), so that scheduling never stops waiting for it.
inline constexpr absl::Duration kBackfillWorkTimeout = absl::Seconds(60);

// A step whose srun still runs: the nodes whose part has not ended, and its accounting record
// (ended and saved once the last part ends, or when the job leaves its nodes). Rebuilt at restart
// from the steps the store has as started and not ended.
struct LiveStep {
  std::vector<core::NodeId> running;
  core::StepRecord record;
  bool cancelled = false;  // scancel of the step: tasks killed by a signal count as CANCELLED
};

// What the controller tracks about a job while it holds nodes; rebuilt at restart.
struct LiveJob {
  std::vector<bool> confirmed;  // CONFIGURING: per node, LAUNCHED seen
  std::vector<bool> cleaned;    // COMPLETING: per node, CLEANED_UP seen
  absl::Time launch_deadline = absl::InfiniteFuture();
  absl::Time cleanup_deadline = absl::InfiniteFuture();
  absl::Time lost_batch_since = absl::InfiniteFuture();  // the batch host forgot the job
  // Chosen as a preemption victim (preemption.h): for whom, and when its GraceTime is up and it
  // is requeued or cancelled. Not stored: after a restart the preemptor plans again.
  core::JobId preempted_by;
  absl::Time preempt_at = absl::InfiniteFuture();
  bool preempt_requeue = false;               // requeued when preempted (else cancelled: PREEMPTED)
  absl::btree_map<uint32_t, LiveStep> steps;  // live steps, by step id
};

// What a job that left its nodes before they cleaned up (requeued, launch aborted, cancelled
// while starting) still occupies on one node: its processes may live until KillWait runs out,
// so nobody else gets those GPUs until the node reports CLEANED_UP (or goes down, or the
// deadline passes). Not persisted: after a restart the nodes tell, as they register, which jobs
// they still have and with what (NodeRegistered holds them again); a node is used by nobody
// before it has registered.
struct CleanupHold {
  core::JobId job;
  uint32_t run_id = 0;
  core::NodeShare share;
  bool exclusive = false;
  absl::Time deadline = absl::InfiniteFuture();
};

struct LifecycleOptions {
  std::string placement_policy = "placement/canopy";  // a placement registry name
  // queue/priority (Slurm's order: PriorityTier, priority, submit time) or queue/age.
  std::string queue_sort = "queue/priority";
  // Backfill and strict order come from the config's SchedulerType and SchedulerParameters;
  // the rest as given.
  plan::PassOptions pass;
};

// Reasons that keep a pending job out of the pass until something other than capacity changes.
bool BlocksScheduling(core::JobReason reason);
// CONFIGURING, RUNNING or COMPLETING.
bool HoldsNodes(core::JobState state);

struct LifecycleState {
  LifecycleState(std::shared_ptr<const config::ClusterConfig> config,
                 std::shared_ptr<const topology::Topology> topology, const core::Clock& clock,
                 placement::CapacityView view, std::unique_ptr<placement::PlacementPolicy> policy,
                 std::unique_ptr<queue::QueueSort> sort, plan::PassOptions pass);

  absl::Time Now() const { return clock.Now(); }

  // ---- Records
  core::Job* Find(core::JobId id) { return jobs.Find(id); }
  LiveJob* Live(core::JobId id);
  // The job if it exists and `caller` may act on it; NotFound ("Invalid job id specified") or
  // PermissionDenied otherwise.
  absl::StatusOr<core::Job*> FindControlled(core::JobId id, const Caller& caller);
  // The jobs a requested id names: the job itself or, for an array's id, every task of it (in
  // task order); none for an unknown id.
  std::vector<core::JobId> Named(uint32_t raw) const;
  // The job's record changed: save it with this batch, bring the indexes up to date, start or
  // stop charging it for its usage, and re-evaluate the jobs whose dependencies name it.
  void Touch(core::JobId id, Effects& effects);
  // Moves what accounting needs saved (tree, ledger) into `effects`.
  void CollectAccounting(Effects& effects);
  // Brings the job's entries in `pending` and `deadlines` up to date.
  void Reindex(core::JobId id);
  // Re-computes the job's entry in `deadlines` (after a LiveJob field changed).
  void Rearm(core::JobId id);
  // Index of `node` in the job's allocation, or -1.
  static int NodeIndexIn(const core::Job& job, core::NodeId node);

  // ---- Nodes and GPUs
  // The job took its allocation: chooses its GPU indexes on every node, lists it on its nodes
  // and starts its LiveJob.
  void TakeNodes(core::Job& job);
  // The job no longer holds the nodes of `allocation` (its capacity was just freed): frees its
  // GPU indexes there, unlists it and drops its LiveJob; steps still running end CANCELLED in
  // accounting.
  void LeaveNodes(core::JobId job, const core::Allocation& allocation, Effects& effects);
  // Marks the GPU indexes of a share as used / free on its node.
  void MarkGpus(const core::NodeShare& share, bool used);

  // ---- Messages
  // KillJob to every node of the job but the one at index `skip` in its allocation (-1: none).
  void SendKill(const core::Job& job, const std::string& reason, Effects& effects,
                int skip = -1) const;
  void SendSignal(const core::Job& job, int signal, bool batch_only, Effects& effects) const;

  const std::shared_ptr<const config::ClusterConfig> config;
  const std::shared_ptr<const topology::Topology> topology;
  const core::Clock& clock;
  placement::CapacityView view;
  const std::unique_ptr<placement::PlacementPolicy> policy;
  const std::unique_ptr<queue::QueueSort> sort;
  const plan::PassOptions pass_options;
  const plan::PlanApplier applier{core::JobState::kConfiguring};
  Accounting accounting;
  // What CONFIGURING and RUNNING jobs hold against QOS and association limits (Reindex keeps
  // it), under the rules of qos_limits.h.
  limits::LimitUsage limit_usage;

  core::JobTable jobs;
  absl::btree_map<core::JobId, LiveJob> live;
  absl::btree_map<core::JobId, core::Job*> pending;  // the records, so a pass needs no lookups
  // PENDING jobs kept out of the pass (held, or over a partition limit): they still get a
  // priority at every recalculation.
  absl::btree_map<core::JobId, core::Job*> blocked;
  absl::btree_set<std::pair<absl::Time, core::JobId>> deadlines;
  // Finished jobs by end time: each leaves memory MinJobAge after it ended (retention.h).
  absl::btree_set<std::pair<absl::Time, core::JobId>> finished;
  DependencyIndex deps;
  absl::flat_hash_map<core::JobId, absl::Time> deadline_of;  // lookups only
  // By IdempotencyIndexKey (admission.h): uid and key. Lookups only.
  absl::flat_hash_map<std::string, core::JobId> idempotency;
  std::vector<absl::btree_set<core::JobId>> node_jobs;  // by NodeId: jobs holding it
  std::vector<uint64_t> gpus_in_use;                    // by NodeId: bit i = GPU index i taken
  std::vector<std::vector<int>> gpu_indexes;            // by NodeId: the agent's GPU indexes
  std::vector<bool> node_usable;                        // by NodeId: as last seen
  std::vector<CleanupHold> holds;
  std::vector<core::JobId> reserved;  // jobs given a backfill reservation by the last pass
  // sched/backfill: the last pass that backfilled, and when a deferred one is due (a pass in
  // between keeps strict order, as Slurm's main scheduler between backfill cycles).
  absl::Time last_backfill = absl::InfinitePast();
  absl::Time backfill_due = absl::InfiniteFuture();
  // canopyd: a due backfill pass is planned on another thread (backfill_work.h). While one is
  // out (backfill_in_flight, its work's id), no pass runs; one out longer than
  // kBackfillWorkTimeout counts as lost.
  bool plan_backfill_elsewhere = false;
  uint64_t backfill_in_flight = 0;
  absl::Time backfill_sent = absl::InfinitePast();
  uint64_t last_backfill_work = 0;
  // Immutable copies of pending jobs for those works, made at a job's first work and dropped
  // when the job is touched (every change that is saved goes through Touch), so that a work of
  // 10,000 jobs copies only the few that changed since the last one.
  absl::flat_hash_map<core::JobId, std::shared_ptr<const core::Job>> frozen;
  // Jobs touched while a work was out: its plan holds nothing for them (backfill_work.h).
  absl::flat_hash_set<core::JobId> touched_while_planning;
  uint32_t next_job_id = 1;
  uint64_t capacity_version = 0;
  // Preemptors that found no victims at this capacity_version (preemption.h): not searched
  // again until capacity changes. Lookups only.
  absl::flat_hash_map<core::JobId, uint64_t> preempt_tried;
  // Pending jobs whose victims are on their way out, and until when they wait for them: they go
  // first in every pass (what the victims free is theirs) and do not preempt again.
  absl::btree_map<core::JobId, absl::Time> preemptors;
  bool has_throttled_arrays = false;  // some array was submitted with "%N"
};

}  // namespace canopy::lifecycle
