// Controller: canopyd's state owner. One thread (the owner) applies every change to the
// ClusterState; a second (StoreWriter) commits them to the Store, one transaction holding every
// change made while the previous one was being written (group commit), so the owner never waits
// on the disk. Once a commit ends, the owner publishes a new ClusterSnapshot, then answers the
// callers and sends the agents the messages whose changes it saved (controller_commit.cc).
//
// gRPC handlers and agent streams call the public methods from any thread: each posts a
// command to the owner's queue. Methods that return a result block until that result is
// durable. Reads go to Snapshot(), which never waits for the owner. Thread-safe.
#pragma once

#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/container/btree_set.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/config/cluster_config.h"
#include "scheduler/core/clock.h"
#include "scheduler/fairshare/association_edit.h"
#include "scheduler/lifecycle/caller.h"
#include "scheduler/lifecycle/job_lifecycle.h"
#include "scheduler/persistence/store.h"
#include "scheduler/server/agent_outbox.h"
#include "scheduler/server/backfill_planner.h"
#include "scheduler/server/controller_metrics.h"
#include "scheduler/server/pending_answers.h"
#include "scheduler/server/qos_edit.h"
#include "scheduler/server/snapshot.h"
#include "scheduler/server/store_writer.h"
#include "scheduler/state/cluster_state.h"
#include "scheduler/topology/topology.h"

namespace canopy::server {

class Controller {
 public:
  // Loads what the store remembers (node drain/down state, jobs) into a fresh ClusterState.
  static absl::StatusOr<std::unique_ptr<Controller>> Create(
      std::shared_ptr<const config::ClusterConfig> config,
      std::shared_ptr<const topology::Topology> topology, std::unique_ptr<persistence::Store> store,
      const core::Clock* clock);
  ~Controller();

  // Starts / stops the owner thread. Stop() finishes the commands already queued.
  void Start();
  void Stop();

  // How long a caller waits for its change to be saved before it is answered DEADLINE_EXCEEDED
  // (the change is kept, and saved once the database accepts it). Call before Start().
  // Shorter than the 10 s the command-line clients wait, so they hear why.
  static constexpr absl::Duration kDefaultAnswerTimeout = absl::Seconds(8);
  void set_answer_timeout(absl::Duration timeout) { answer_timeout_ = timeout; }
  // Where the owner thread reports its passes and commits (Prometheus); null: nowhere. Call
  // before Start(); `metrics` must outlive the controller's owner thread.
  void set_metrics(ControllerMetrics* metrics) { metrics_ = metrics; }
  // Plan backfill passes on a thread of their own (BackfillPlanner), so that the owner thread
  // keeps answering while one runs; off: on the owner thread, as canopy-sim does. On by default.
  // Call before Start().
  void set_backfill_off_owner(bool on) { backfill_off_owner_ = on; }

  std::shared_ptr<const ClusterSnapshot> Snapshot() const;
  // The latest snapshot once it is another than `seen`, or after `timeout` whatever it is
  // (WatchJobs and WatchNodes wait here instead of polling). Never waits on the owner thread.
  std::shared_ptr<const ClusterSnapshot> NextSnapshot(const ClusterSnapshot* seen,
                                                      absl::Duration timeout) const;
  // True once Stop() was called: no more snapshots will come.
  bool Stopping() const;
  // True when the owner thread runs a command within `timeout`: the systemd watchdog's probe,
  // so that a controller whose owner thread is stuck stops looking alive.
  bool OwnerResponds(absl::Duration timeout);
  const config::ClusterConfig& config() const { return *config_; }
  absl::Time start_time() const { return start_time_; }
  // The controller's clock (the only one the server reads).
  absl::Time Now() const { return clock_->Now(); }

  // scontrol update NodeName=... State=DRAIN|DOWN|RESUME. Returns the changed nodes once the
  // change is committed.
  absl::StatusOr<std::vector<std::string>> UpdateNodes(std::vector<std::string> names,
                                                       state::NodeAdminAction action,
                                                       std::string reason, std::string user);

  // ---- Jobs (errors carry Slurm's words). All but submissions block until the change is
  // committed. Submissions answer through a callback, so that gRPC's callback handlers need no
  // thread of their own while the commit runs: `done` runs once, on the owner thread after the
  // commit (or at answer_timeout, DEADLINE_EXCEEDED), or at once on the caller's thread when
  // canopyd is stopping. `done` must not block: it runs between the owner's batches.
  template <typename T>
  using AnswerCallback = std::function<void(absl::StatusOr<T>)>;
  // sbatch --test-only, on the owner thread; changes nothing.
  void TestSubmit(lifecycle::SubmitRequest request, lifecycle::Caller caller,
                  AnswerCallback<lifecycle::WillRunAnswer> done);
  void SubmitJob(lifecycle::SubmitRequest request, lifecycle::Caller caller,
                 AnswerCallback<lifecycle::SubmitAnswer> done);
  // Many submissions in one command and one commit: an answer per request, in order, each as
  // SubmitJob would give it; the call fails only when the commit does.
  void SubmitJobs(std::vector<std::pair<lifecycle::SubmitRequest, lifecycle::Caller>> requests,
                  AnswerCallback<std::vector<absl::StatusOr<lifecycle::SubmitAnswer>>> done);
  absl::StatusOr<std::vector<lifecycle::CancelAnswer>> CancelJob(lifecycle::CancelRequest request,
                                                                 lifecycle::Caller caller);
  absl::StatusOr<lifecycle::StepAnswer> CreateStep(lifecycle::StepRequest request,
                                                   lifecycle::Caller caller);
  absl::Status CancelStep(lifecycle::CancelStepRequest request, lifecycle::Caller caller);
  absl::Status CompleteJob(lifecycle::CompleteRequest request, lifecycle::Caller caller);
  // scontrol notify; sattach (lifecycle/steps.h). Nothing is stored: answered once the messages
  // are handed to the agents' streams.
  absl::Status NotifyJob(lifecycle::NotifyRequest request, lifecycle::Caller caller);
  absl::StatusOr<lifecycle::StepAnswer> AttachStep(lifecycle::AttachRequest request,
                                                   lifecycle::Caller caller);
  // scontrol update job Priority=/Nice=/TimeLimit=/Name=/Partition=/... and scontrol top
  // (lifecycle/priorities.h, lifecycle/job_control.h, lifecycle/job_edit.h), all in one batch.
  absl::Status UpdateJob(core::JobId id, std::optional<uint32_t> priority,
                         std::optional<int32_t> nice,
                         std::optional<lifecycle::TimeLimitChange> time_limit, bool top,
                         lifecycle::JobEdit edit, lifecycle::Caller caller);
  // scontrol hold/uhold/release/requeue/requeuehold (lifecycle/job_control.h).
  absl::StatusOr<std::vector<lifecycle::JobActionAnswer>> ControlJobs(
      lifecycle::JobActionRequest request, lifecycle::Caller caller);
  // sacctmgr's changes: the edited tree replaces the current one once stored. Returns what
  // changed, one line per association (controller_accounts.cc).
  absl::StatusOr<std::vector<std::string>> UpdateAssociations(
      fairshare::AssociationEdit edit, std::vector<fairshare::AssociationSpec> specs,
      bool set_shares, lifecycle::Caller caller);
  // sacctmgr add/modify/delete qos: the edited table replaces the current one once stored.
  // Returns the QOS that changed, by name (controller_qos.cc; errors in qos_edit.h and
  // JobLifecycle::SetQos).
  absl::StatusOr<std::vector<std::string>> UpdateQos(
      QosEdit edit, std::vector<std::string> names,
      std::vector<std::pair<std::string, std::string>> options, lifecycle::Caller caller);

  // ---- Agent stream events (called from gRPC threads; return at once).
  // A Register arrived. `done` runs on the owner thread with the node's id and the jobs the agent
  // must kill, or with the error to close the stream with. It runs before any message the
  // registration causes is sent down the stream.
  struct Registered {
    core::NodeId node;
    std::vector<uint32_t> kill_job_ids;
  };
  void AgentRegistered(std::string node_name, state::NodeRegistration registration,
                       std::vector<lifecycle::RunningJob> running,
                       std::shared_ptr<AgentOutbox> outbox,
                       std::function<void(absl::StatusOr<Registered>)> done);
  void AgentJobStatus(lifecycle::JobReport report, std::shared_ptr<AgentOutbox> outbox);
  void AgentStepStatus(lifecycle::StepReport report, std::shared_ptr<AgentOutbox> outbox);
  // Events on a stream are keyed by its outbox: the owner thread maps it to the node, and drops
  // events from streams that never registered or were replaced by a newer one.
  // A message proving the agent alive; a heartbeat's `sequence` (non-zero) is acknowledged to the
  // agent once recorded (HeartbeatAck: the agent fences its jobs when acks stop). Not a command:
  // recorded on the caller's thread for the owner to fold in at its next batch (FoldHeard), so
  // that thousands of heartbeats a second do not wake the owner thread one by one.
  void AgentHeard(std::shared_ptr<AgentOutbox> outbox, uint64_t heartbeat_sequence = 0);
  void AgentGpuHealth(std::vector<state::GpuStatus> gpus, std::shared_ptr<AgentOutbox> outbox);
  void AgentStreamClosed(std::shared_ptr<AgentOutbox> outbox);

 private:
  // What one drained batch of commands produced.
  struct Batch {
    persistence::Mutations mutations;
    lifecycle::Effects effects;
    std::vector<std::function<void(const absl::Status&)>> after_commit;
    bool visible_change = false;  // something a reader can see changed: publish a snapshot
  };
  using Command = std::function<void(Batch&)>;

  Controller(std::shared_ptr<const config::ClusterConfig> config,
             std::shared_ptr<const topology::Topology> topology,
             std::unique_ptr<persistence::Store> store, const core::Clock* clock);

  // Queues a command for the owner thread; false once the owner has stopped for good.
  bool Post(Command command);
  void RunOwnerLoop();
  void Tick(Batch& batch);
  void Publish();
  // Applies the proofs of life AgentHeard recorded since the last batch.
  void FoldHeard();
  // The answers and agent messages that a commit in flight saves.
  struct InFlight {
    std::vector<std::function<void(const absl::Status&)>> callbacks;
    std::vector<lifecycle::OutgoingMessage> messages;
    bool visible_change = false;
  };
  // Works out what the batch changed and hands it, with everything unsaved so far, to the
  // writer; while a commit is in flight (or after a failed one, until kCommitRetryInterval),
  // keeps it all for the next (controller_commit.cc).
  void SaveOrKeep(Batch& batch, absl::Time now);
  // A commit ended: publish, answer and send; or, when it failed, keep its changes for the next.
  void FinishCommit(StoreWriter::Result result);
  // At Stop(): the commit in flight and one more for what waited for it.
  void SaveBeforeStop(absl::Time now);
  // Changes, answers or messages wait for a commit.
  bool HasUnsaved() const;
  void SaveAdminState(core::NodeId id, Batch& batch);
  // Drains the nodes the lifecycle asked for (Effects::drains), as canopyd's user, and saves it.
  void ApplyDrains(Batch& batch);
  // Tells the job lifecycle a node's facts may have changed.
  void NodeTouched(core::NodeId id, Batch& batch);
  // Copies the records of `unpublished_jobs_` into `published_` (the copies the snapshot and
  // the store take), once per change: a job kept unsaved across several batches while a commit
  // was in flight is not copied again at each.
  void PublishJobs();
  // The published records of `unsaved_jobs_`: what the next commit saves.
  std::vector<std::shared_ptr<const core::Job>> RecordsToSave() const;
  // Folds a batch's (or the restore's) effects on accounting into what the next commit saves.
  void NoteAccounting(const lifecycle::Effects& effects);
  // Moves the batch's accounting records (earlier runs, steps), the jobs that left memory and,
  // when due, the retention purge into its mutations; unpublishes the forgotten jobs.
  void TakeHistory(Batch& batch, absl::Time now);
  // When the batch is not committed now: keeps what TakeHistory moved for the next commit.
  void KeepHistory(persistence::Mutations& mutations);
  // Runs `fn` on the owner thread and gives `done` its result once the batch is committed, or
  // DEADLINE_EXCEEDED once answer_timeout_ has passed without a commit (controller_command.h).
  template <typename T>
  void PostJobCommand(std::function<absl::StatusOr<T>(Batch&)> fn, AnswerCallback<T> done);
  // PostJobCommand for a caller that blocks until the answer.
  template <typename T>
  absl::StatusOr<T> RunJobCommand(std::function<absl::StatusOr<T>(Batch&)> fn);
  // The answer of a command, or DEADLINE_EXCEEDED once answer_timeout_ has passed without it:
  // an RPC thread never waits forever on a database that keeps failing.
  template <typename T>
  absl::StatusOr<T> AwaitAnswer(std::future<absl::StatusOr<T>>& answer) const;
  // The node whose current stream is `outbox`; invalid for unregistered or replaced streams.
  core::NodeId SessionNode(const std::shared_ptr<AgentOutbox>& outbox) const;

  const std::shared_ptr<const config::ClusterConfig> config_;
  const std::shared_ptr<const topology::Topology> topology_;
  const std::unique_ptr<persistence::Store> store_;
  const core::Clock* const clock_;
  const absl::Time start_time_;
  absl::Duration answer_timeout_ = kDefaultAnswerTimeout;
  const absl::Duration tick_interval_;

  // Owned by the owner thread once Start() ran.
  state::ClusterState state_;
  std::unique_ptr<lifecycle::JobLifecycle> jobs_;
  bool backfill_off_owner_ = true;
  // Job changes not saved yet (a commit was in flight, or failed): saved by the next commit;
  // their messages wait for it.
  absl::btree_set<core::JobId> unsaved_jobs_;
  // Jobs whose published copy is stale: every unsaved change, and derived values that are
  // published but not saved (a recomputed priority, an expected start).
  absl::btree_set<core::JobId> unpublished_jobs_;
  // The association tree / usage ledger changed and is not saved yet.
  bool save_associations_ = false;
  bool save_usage_ = false;
  bool save_qos_ = false;  // the QOS table changed and is not saved yet
  // The snapshot's copy of the fair-share state, and the version it was copied at.
  std::shared_ptr<const lifecycle::Accounting> accounting_snapshot_;
  uint64_t published_accounting_version_ = 0;
  // Running steps as last published; rebuilt when a step started or ended, or jobs' use of
  // nodes changed (a job ending ends its steps).
  std::shared_ptr<const absl::btree_map<uint32_t, std::vector<core::StepRecord>>> steps_snapshot_;
  bool steps_dirty_ = true;
  uint64_t steps_capacity_version_ = 0;
  // The published copy of each job, by id (replaced for changed jobs at every batch).
  absl::btree_map<uint32_t, std::shared_ptr<const core::Job>> published_;
  // Schema 2 records were converted at start-up: drop them with the commit that saves them.
  bool drop_legacy_jobs_ = false;
  std::vector<lifecycle::OutgoingMessage> undelivered_;
  std::vector<persistence::NodeAdminRow> unsaved_admin_;
  // Accounting not saved yet (a commit failed): retried with the next batch, in order.
  std::vector<core::JobAttempt> unsaved_attempts_;
  std::vector<core::StepRecord> unsaved_steps_;
  std::vector<core::JobId> unsaved_forgets_;
  // Last records of forgotten jobs that were not saved yet: saved with every batch until one
  // commits (the job is no longer in the lifecycle to copy it from).
  std::vector<std::shared_ptr<const core::Job>> unsaved_final_records_;
  absl::Time unsaved_purge_ = absl::InfinitePast();
  absl::Time next_purge_ = absl::InfinitePast();  // PurgeJobAfter runs hourly
  std::vector<std::function<void(const absl::Status&)>> waiting_for_commit_;
  bool next_id_unsaved_ = false;       // the next job id changed and is not saved yet
  bool unpublished_change_ = false;    // a kept batch changed what readers see
  std::optional<InFlight> in_flight_;  // the commit the writer is on
  // Deadlines of the answers that wait for a commit (PostJobCommand).
  PendingAnswers pending_answers_;
  // Proofs of life (stream, controller time) recorded by AgentHeard, folded in by FoldHeard.
  absl::Mutex heard_mu_;
  std::vector<std::pair<std::shared_ptr<AgentOutbox>, absl::Time>> heard_
      ABSL_GUARDED_BY(heard_mu_);
  absl::Time retry_commit_at_ = absl::InfinitePast();  // after a failed commit (absl::Now())
  std::unique_ptr<StoreWriter> writer_;                // from Start()
  bool schedule_pending_ = true;
  absl::Time last_pass_ = absl::InfinitePast();
  ControllerMetrics* metrics_ = nullptr;
  // The snapshot's node records, rebuilt only when a node's own facts changed, and what jobs hold
  // on each, rebuilt when the capacity did.
  std::shared_ptr<const std::vector<state::NodeRecord>> nodes_snapshot_;
  bool nodes_dirty_ = true;
  std::shared_ptr<const std::vector<state::NodeUse>> node_use_snapshot_;
  uint64_t published_capacity_version_ = 0;
  // The snapshot's job chunks, and those to rebuild at the next publish.
  std::vector<std::shared_ptr<const JobChunk>> job_chunks_;
  absl::btree_set<uint32_t> dirty_chunks_;
  absl::Time next_pass_ = absl::InfinitePast();
  std::vector<std::shared_ptr<AgentOutbox>> sessions_;  // by NodeId; null when none
  absl::flat_hash_map<const AgentOutbox*, core::NodeId> session_nodes_;  // reverse of sessions_
  absl::Time last_publish_ = absl::InfinitePast();
  bool heard_since_publish_ = false;
  // The snapshot's copy of every node's last_heard (heartbeats change nothing else).
  std::shared_ptr<const std::vector<absl::Time>> last_heard_snapshot_;

  mutable absl::Mutex queue_mu_;
  std::deque<Command> queue_ ABSL_GUARDED_BY(queue_mu_);
  bool stopping_ ABSL_GUARDED_BY(queue_mu_) = false;
  bool stopped_ ABSL_GUARDED_BY(queue_mu_) = false;          // the owner has exited; Post() refuses
  bool commit_finished_ ABSL_GUARDED_BY(queue_mu_) = false;  // the writer has a result

  mutable absl::Mutex snapshot_mu_;
  std::shared_ptr<const ClusterSnapshot> snapshot_ ABSL_GUARDED_BY(snapshot_mu_);

  std::thread owner_;
  // From Start() with backfill_off_owner_; after jobs_, so it stops before the lifecycle whose
  // placement policy it uses goes.
  std::unique_ptr<BackfillPlanner> planner_;
};

}  // namespace canopy::server
