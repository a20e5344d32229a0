// JobLifecycle: everything canopyd does with jobs, as plain state and events: submit, the
// scheduling pass, gang launch with confirmation, steps, signals, cancel, time limits, exits,
// cleanup, node loss and restart recovery.
//
// Owned and driven by the controller's owner thread (not thread-safe). It never does I/O: every
// event returns its Effects (jobs to persist, messages for agents) and the controller persists
// them in the batch's transaction and only then sends the messages and answers the callers.
// Time always comes in as an argument, so the same code runs under a FakeClock in tests.
//
// The life of a batch job (docs/design/job_lifecycle.md):
//   PENDING --pass--> CONFIGURING: capacity taken, LaunchJob sent to every node
//   CONFIGURING --every node says LAUNCHED--> RUNNING
//   CONFIGURING --a node says LAUNCH_FAILED, or launch_timeout passes--> PENDING (KillJob to all)
//   RUNNING --batch host says EXITED--> COMPLETING (KillJob to all nodes, to clean up)
//   RUNNING --time limit / scancel--> COMPLETING (KillJob: SIGTERM, SIGKILL after KillWait)
//   COMPLETING --every node says CLEANED_UP (or is down)--> COMPLETED / FAILED / CANCELLED /
//                                                             TIMEOUT / OUT_OF_MEMORY
//   CONFIGURING/RUNNING --a node of the job is lost--> REQUEUED -> PENDING (or NODE_FAIL)
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/container/btree_set.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "canopy/v1/agent.pb.h"
#include "canopy/v1/controller.pb.h"
#include "common/config/cluster_config.h"
#include "scheduler/core/job_table.h"
#include "scheduler/lifecycle/caller.h"
#include "scheduler/lifecycle/effects.h"
#include "scheduler/persistence/store.h"
#include "scheduler/placement/capacity_view.h"
#include "scheduler/placement/policy.h"
#include "scheduler/plan/applier.h"
#include "scheduler/queue/queue_sort.h"
#include "scheduler/state/node_record.h"
#include "scheduler/topology/topology.h"

namespace canopy::lifecycle {

class JobLifecycle {
 public:
  // `policy` is a placement registry name ("placement/canopy").
  static absl::StatusOr<std::unique_ptr<JobLifecycle>> Create(
      std::shared_ptr<const config::ClusterConfig> config,
      std::shared_ptr<const topology::Topology> topology,
      const std::string& policy = "placement/canopy");

  // ---- Start-up
  // Rebuilds the jobs from the database. Jobs that held nodes take their capacity again
  // (CONFIGURING ones get a fresh launch deadline; COMPLETING ones are asked to clean up again
  // once their nodes register). A record that no longer fits the configuration (a removed node
  // or partition) ends its job as CANCELLED, with a warning in `effects`.
  absl::Status Restore(const persistence::JobState& state, absl::Time now, Effects& effects);

  // ---- Nodes (facts from the ClusterState)
  // A node's availability may have changed: placement learns it; a node that went down or
  // whose GPU broke fails the jobs running on it (requeue, or NODE_FAIL with --no-requeue).
  void NodeChanged(const state::NodeRecord& node, absl::Time now, Effects& effects);
  // A node's agent (re)registered, still running `running_job_ids`. Returns the jobs it should
  // kill (unknown or no longer allocated to it); re-sends what a CONFIGURING or COMPLETING job
  // still needs from it.
  std::vector<uint32_t> NodeRegistered(const state::NodeRecord& node,
                                       const std::vector<uint32_t>& running_job_ids, absl::Time now,
                                       Effects& effects);

  // ---- Client requests
  absl::StatusOr<canopy::v1::SubmitJobResponse> Submit(const canopy::v1::SubmitJobRequest& request,
                                                       const Caller& caller, absl::Time now,
                                                       Effects& effects);
  canopy::v1::CancelJobResponse Cancel(const canopy::v1::CancelJobRequest& request,
                                       const Caller& caller, absl::Time now, Effects& effects);
  absl::StatusOr<canopy::v1::CreateStepResponse> CreateStep(
      const canopy::v1::CreateStepRequest& request, const Caller& caller, Effects& effects);
  absl::Status CancelStep(const canopy::v1::CancelStepRequest& request, const Caller& caller,
                          Effects& effects);
  absl::Status CompleteJob(const canopy::v1::CompleteJobRequest& request, const Caller& caller,
                           absl::Time now, Effects& effects);

  // ---- Agent reports. Returns the acknowledgement to send once the effects are committed
  // (for EXITED and CLEANED_UP), or nullopt.
  std::optional<canopy::v1::ControllerMessage> JobStatus(core::NodeId node,
                                                         const canopy::v1::JobStatus& status,
                                                         absl::Time now, Effects& effects);
  void StepStatus(core::NodeId node, const canopy::v1::StepStatus& status, Effects& effects);

  // ---- Time
  // One scheduling pass: starts every pending job that fits now, in queue order.
  void Schedule(absl::Time now, Effects& effects);
  // Launch deadlines, time limits, --signal warnings, stuck cleanups.
  void Tick(absl::Time now, Effects& effects);

  // ---- Reads
  const canopy::v1::Job* Find(core::JobId id) const;
  // The published copy of each job, by id (rebuilt for dirty jobs by Publish).
  const absl::btree_map<uint32_t, std::shared_ptr<const canopy::v1::Job>>& published() const {
    return published_;
  }
  // Refreshes the published copies of `dirty` jobs and returns the serialized rows to save.
  std::vector<persistence::JobRow> Publish(const absl::btree_set<core::JobId>& dirty);
  uint32_t next_job_id() const { return next_job_id_; }
  const placement::CapacityView& capacity() const { return view_; }
  // Changes whenever the capacity view may have changed (jobs started or ended, node facts).
  uint64_t capacity_version() const { return capacity_version_; }
  size_t pending_count() const { return pending_count_; }
  size_t cleanup_holds() const { return holds_.size(); }

 private:
  // What the controller tracks about a job beyond its record; rebuilt at restart.
  struct Entry {
    canopy::v1::Job record;
    std::vector<std::vector<int>> gpu_indexes;  // per allocated node
    std::vector<bool> confirmed;                // CONFIGURING: per node, LAUNCHED seen
    std::vector<bool> cleaned;                  // COMPLETING: per node, CLEANED_UP seen
    absl::Time launch_deadline = absl::InfiniteFuture();
    absl::Time cleanup_deadline = absl::InfiniteFuture();
    absl::Time lost_batch_since = absl::InfiniteFuture();        // batch host forgot the job
    bool warned = false;                                         // --signal sent
    absl::btree_map<uint32_t, std::vector<core::NodeId>> steps;  // live steps: nodes
  };

  // What a job that left its nodes before they cleaned up (requeued, launch aborted, cancelled
  // while starting) still occupies on one node: its processes may live until KillWait runs out,
  // so nobody else gets those GPUs until the node reports CLEANED_UP (or goes down, or the
  // cleanup deadline passes). Not persisted: after a restart the capacity is free again.
  struct CleanupHold {
    core::JobId job;
    uint32_t run_id = 0;
    core::NodeShare share;
    bool exclusive = false;
    std::vector<int> gpus;
    absl::Time deadline = absl::InfiniteFuture();
  };

  JobLifecycle(std::shared_ptr<const config::ClusterConfig> config,
               std::shared_ptr<const topology::Topology> topology, placement::CapacityView view,
               std::unique_ptr<placement::PlacementPolicy> policy,
               std::unique_ptr<queue::QueueSort> sort);

  Entry* FindEntry(core::JobId id);
  // The job and its entry if it exists and `caller` may act on it; NotFound ("Invalid job id
  // specified") or PermissionDenied otherwise.
  absl::StatusOr<std::pair<core::Job*, Entry*>> FindControlled(core::JobId id,
                                                               const Caller& caller);
  void Touch(core::JobId id, Effects& effects) { effects.dirty.insert(id); }
  // Holds for the nodes of `job` that are up, before its allocation is freed.
  std::vector<CleanupHold> HoldsFor(const core::Job& job, const Entry& entry, absl::Time now) const;
  // Takes the capacity and GPU indexes of `holds` again (just freed by the caller).
  void TakeHolds(std::vector<CleanupHold> holds, Effects& effects);
  // Releases the holds of `job` on `node` for `run_id` (0 = every run); all jobs' holds on
  // `node` when `job` is invalid.
  void ReleaseHolds(core::JobId job, core::NodeId node, uint32_t run_id, Effects& effects);
  // The job took its allocation: pick GPU indexes, note its nodes, send LaunchJob everywhere.
  void Launch(core::Job& job, Entry& entry, absl::Time now, Effects& effects);
  canopy::v1::ControllerMessage LaunchMessage(const core::Job& job, const Entry& entry,
                                              size_t node_index) const;
  // Frees what the job held besides capacity (GPU indexes, node -> job index).
  void ForgetAllocation(const core::Job& job, Entry& entry);
  canopy::v1::ControllerMessage KillMessage(core::JobId job, const std::string& reason) const;
  // KillJob (SIGTERM, SIGKILL after KillWait) to every node of the job.
  void SendKill(const core::Job& job, const std::string& reason, Effects& effects);
  // SignalJob to every node, or to the batch host only.
  void SendSignal(const core::Job& job, int signal, bool batch_only, Effects& effects);
  // RUNNING/CONFIGURING -> COMPLETING, ending as `final_state` once every node cleaned up.
  void BeginCompleting(core::Job& job, Entry& entry, core::JobState final_state,
                       const std::string& why, absl::Time now, Effects& effects);
  // A node confirmed the launch; the job runs once every node has.
  void Confirm(core::Job& job, Entry& entry, int node_index, absl::Time now, Effects& effects);
  void FinishIfClean(core::Job& job, Entry& entry, absl::Time now, Effects& effects);
  void EndNow(core::Job& job, Entry& entry, core::JobState final_state, absl::Time now,
              Effects& effects);
  void LoseJob(core::Job& job, Entry& entry, const std::string& why, absl::Time now,
               Effects& effects);
  void AbortLaunchOf(core::Job& job, Entry& entry, const std::string& why, absl::Time now,
                     Effects& effects);
  int NodeIndexIn(const core::Job& job, core::NodeId node) const;
  std::vector<int> PickGpus(core::NodeId node, int count);

  const std::shared_ptr<const config::ClusterConfig> config_;
  const std::shared_ptr<const topology::Topology> topology_;
  placement::CapacityView view_;
  const std::unique_ptr<placement::PlacementPolicy> policy_;
  const std::unique_ptr<queue::QueueSort> sort_;
  const plan::PlanApplier applier_{core::JobState::kConfiguring};

  core::JobTable jobs_;
  absl::btree_map<core::JobId, Entry> entries_;
  absl::btree_map<uint32_t, std::shared_ptr<const canopy::v1::Job>> published_;
  absl::flat_hash_map<std::string, core::JobId> idempotency_;
  std::vector<absl::btree_set<core::JobId>> node_jobs_;  // by NodeId: jobs holding it
  std::vector<uint64_t> gpus_in_use_;                    // by NodeId: bit i = GPU index i taken
  std::vector<std::vector<int>> gpu_indexes_;            // by NodeId: the agent's GPU indexes
  std::vector<bool> node_usable_;                        // by NodeId: as last seen
  std::vector<CleanupHold> holds_;
  uint32_t next_job_id_ = 1;
  uint64_t capacity_version_ = 0;
  bool has_throttled_arrays_ = false;  // some array was submitted with "%N"
  size_t pending_count_ = 0;
};

}  // namespace canopy::lifecycle
