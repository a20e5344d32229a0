#include "scheduler/server/controller.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "common/log/absl_format.h"
#include "scheduler/server/proto_convert.h"
#include "spdlog/spdlog.h"

namespace canopy::server {
namespace {

// How often the owner thread checks node timeouts: often enough that a node is marked down
// within ~10% of node_timeout, never busier than 10 times a second.
absl::Duration TickFor(absl::Duration node_timeout) {
  return std::clamp(node_timeout / 10, absl::Milliseconds(100), absl::Seconds(5));
}

// Heartbeats only move last_heartbeat; publishing a snapshot for each of thousands of them per
// second would be waste, so such changes are published at most this often.
constexpr absl::Duration kHeartbeatPublishInterval = absl::Seconds(1);

// Scheduling passes run after events that may let a job start, and at least this often.
constexpr absl::Duration kPassInterval = absl::Seconds(5);
// ... but event-driven passes no closer together than this: under a burst of submissions one
// pass covers many batches instead of one pass per batch (Slurm's sched_min_interval idea).
constexpr absl::Duration kMinPassGap = absl::Milliseconds(50);

// While the database refuses commits, the owner retries this often.
constexpr absl::Duration kCommitRetryInterval = absl::Milliseconds(500);

// Decodes schema 2's job records (serialised canopy.v1.Job) into `stored.jobs`, keeping the id
// order; `converted` lists them. A record that cannot be parsed is DataLoss; one naming a node
// that is gone comes without its allocation and with a problem, as the store does.
absl::Status ConvertLegacyJobs(const topology::Topology& topology, persistence::StoredJobs& stored,
                               std::vector<core::JobId>& converted) {
  for (const persistence::LegacyJobRecord& row : stored.legacy) {
    canopy::v1::Job record;
    if (!record.ParseFromString(row.record)) {
      return absl::DataLossError(absl::StrCat("job ", row.id, ": stored record is corrupt"));
    }
    absl::StatusOr<core::Job> job = FromProto(record, topology);
    if (!job.ok()) {
      record.clear_nodes();
      record.clear_gpus_per_node_allocated();
      record.clear_cpus_allocated();
      record.clear_mem_allocated_mib();
      record.clear_node_gpu_indexes();
      stored.problems.push_back({core::JobId(row.id), std::string(job.status().message())});
      job = FromProto(record, topology);
    }
    if (!job.ok()) {
      return absl::DataLossError(job.status().message());
    }
    converted.push_back(job->id);
    stored.jobs.push_back(*std::move(job));
  }
  stored.legacy.clear();
  std::sort(stored.jobs.begin(), stored.jobs.end(),
            [](const core::Job& a, const core::Job& b) { return a.id < b.id; });
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<Controller>> Controller::Create(
    std::shared_ptr<const config::ClusterConfig> config,
    std::shared_ptr<const topology::Topology> topology, std::unique_ptr<persistence::Store> store,
    const core::Clock* clock) {
  absl::StatusOr<std::vector<persistence::NodeAdminRow>> rows = store->LoadNodeAdminState();
  if (!rows.ok()) {
    return absl::Status(rows.status().code(),
                        absl::StrCat("loading node state: ", rows.status().message()));
  }
  absl::StatusOr<persistence::StoredJobs> jobs = store->LoadJobs();
  if (!jobs.ok()) {
    return absl::Status(jobs.status().code(),
                        absl::StrCat("loading jobs: ", jobs.status().message()));
  }
  for (const persistence::JobLoadProblem& q : jobs->quarantined) {
    spdlog::error(
        "job {} is quarantined and not loaded: its stored record cannot be read ({}). The row "
        "stays in the database (jobs.in_memory = -1, reason in quarantined_jobs) for an admin "
        "to repair or delete; the job id is not reused",
        q.job.value(), q.what);
  }
  absl::StatusOr<persistence::StoredAccounting> accounting = store->LoadAccounting();
  if (!accounting.ok()) {
    return absl::Status(accounting.status().code(), absl::StrCat("loading accounts and usage: ",
                                                                 accounting.status().message()));
  }
  std::unique_ptr<Controller> c(
      new Controller(std::move(config), std::move(topology), std::move(store), clock));
  absl::StatusOr<std::unique_ptr<lifecycle::JobLifecycle>> lifecycle =
      lifecycle::JobLifecycle::Create(c->config_, c->topology_, *clock);
  if (!lifecycle.ok()) {
    return lifecycle.status();
  }
  c->jobs_ = *std::move(lifecycle);
  // Records of an older schema are converted here (the store does not read the wire format)
  // and saved in the new one with the first commit, which also drops the old ones.
  std::vector<core::JobId> converted;
  if (absl::Status s = ConvertLegacyJobs(*c->topology_, *jobs, converted); !s.ok()) {
    return s;
  }
  const size_t restored_count = jobs->jobs.size();
  lifecycle::Effects restored;
  if (absl::Status s = c->jobs_->RestoreAccounting(*std::move(accounting), restored); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat("restoring accounts and usage: ", s.message()));
  }
  if (absl::Status s = c->jobs_->Restore(*std::move(jobs), restored); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat("restoring jobs: ", s.message()));
  }
  for (const std::string& line : restored.info) {
    spdlog::info("{}", line);
  }
  for (const std::string& w : restored.warnings) {
    spdlog::warn("{}", w);
  }
  c->NoteAccounting(restored);
  // Records changed by the restore (jobs that no longer fit) are saved with the first batch.
  c->unsaved_jobs_ = std::move(restored.dirty);
  if (!converted.empty()) {
    spdlog::info("converting {} job record(s) of database schema 2 to the current schema",
                 converted.size());
    c->unsaved_jobs_.insert(converted.begin(), converted.end());
    c->drop_legacy_jobs_ = true;
  }
  for (const auto& [id, job] : c->jobs_->jobs().jobs()) {
    c->published_[id.value()] = std::make_shared<const core::Job>(*job);
    c->dirty_chunks_.insert(id.value() / kJobChunkSize);
  }
  if (restored_count > 0) {
    spdlog::info("restored {} job(s) from the database; next job id {}", restored_count,
                 c->jobs_->next_job_id());
  }
  for (persistence::NodeAdminRow& row : *rows) {
    absl::StatusOr<core::NodeId> id = c->state_.FindNode(row.name);
    if (!id.ok()) {
      spdlog::warn("database remembers node {} which is no longer configured; ignoring it",
                   row.name);
      continue;
    }
    c->state_.RestoreAdminState(*id, row.drain, row.admin_down, std::move(row.reason),
                                row.reason_time, std::move(row.reason_user));
  }
  c->Publish();
  return c;
}

Controller::Controller(std::shared_ptr<const config::ClusterConfig> config,
                       std::shared_ptr<const topology::Topology> topology,
                       std::unique_ptr<persistence::Store> store, const core::Clock* clock)
    : config_(std::move(config)),
      topology_(std::move(topology)),
      store_(std::move(store)),
      clock_(clock),
      start_time_(clock->Now()),
      tick_interval_(TickFor(config_->node_timeout)),
      state_(*config_, start_time_),
      sessions_(config_->nodes.size()) {}

Controller::~Controller() { Stop(); }

void Controller::Start() {
  owner_ = std::thread([this] { RunOwnerLoop(); });
}

void Controller::Stop() {
  {
    absl::MutexLock lock(&queue_mu_);
    stopping_ = true;
  }
  if (owner_.joinable()) {
    owner_.join();
  }
}

std::shared_ptr<const ClusterSnapshot> Controller::Snapshot() const {
  absl::MutexLock lock(&snapshot_mu_);
  return snapshot_;
}

std::shared_ptr<const ClusterSnapshot> Controller::NextSnapshot(const ClusterSnapshot* seen,
                                                                absl::Duration timeout) const {
  absl::MutexLock lock(&snapshot_mu_);
  auto changed = [this, seen]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(snapshot_mu_) {
    return snapshot_.get() != seen;
  };
  snapshot_mu_.AwaitWithTimeout(absl::Condition(&changed), timeout);
  return snapshot_;
}

bool Controller::Stopping() const {
  absl::MutexLock lock(&queue_mu_);
  return stopping_;
}

bool Controller::OwnerResponds(absl::Duration timeout) {
  auto ran = std::make_shared<absl::Notification>();
  if (!Post([ran](Batch&) { ran->Notify(); })) {
    return false;
  }
  return ran->WaitForNotificationWithTimeout(timeout);
}

bool Controller::Post(Command command) {
  absl::MutexLock lock(&queue_mu_);
  if (stopped_) {
    return false;
  }
  queue_.push_back(std::move(command));
  return true;
}

void Controller::RunOwnerLoop() {
  absl::Time next_tick = clock_->Now();
  while (true) {
    std::deque<Command> commands;
    bool stopping = false;
    {
      absl::MutexLock lock(&queue_mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(queue_mu_) {
        return !queue_.empty() || stopping_;
      };
      // Wake for the next tick, or for a pass that was put off by kMinPassGap.
      absl::Time wake = next_tick;
      if (schedule_pending_) {
        wake = std::min(wake, last_pass_ + kMinPassGap);
      }
      if (!waiting_for_commit_.empty() || !unsaved_jobs_.empty()) {
        wake = std::min(wake, clock_->Now() + kCommitRetryInterval);
      }
      queue_mu_.AwaitWithTimeout(absl::Condition(&ready),
                                 std::max(wake - clock_->Now(), absl::ZeroDuration()));
      commands.swap(queue_);
      stopping = stopping_;
      // From the first pass after Stop(), Post() refuses new commands, so the queue drains in a
      // bounded number of passes even while thousands of agents keep sending heartbeats.
      stopped_ = stopping_;
    }
    Batch batch;
    for (Command& command : commands) {
      command(batch);
    }
    const absl::Time now = clock_->Now();
    if (now >= next_tick) {
      Tick(batch);
      next_tick = now + tick_interval_;
    }
    // A pass after every batch that freed capacity or queued work, and at least every few
    // seconds (a --switches wait may run out with nothing else happening).
    schedule_pending_ = schedule_pending_ || batch.effects.schedule;
    if ((schedule_pending_ && now - last_pass_ >= kMinPassGap) || now >= next_pass_) {
      schedule_pending_ = false;
      const absl::Time pass_start = absl::Now();  // wall time, whatever clock_ says
      jobs_->Schedule(batch.effects);
      if (metrics_ != nullptr && batch.effects.pass.has_value()) {
        metrics_->ObservePass(absl::Now() - pass_start, *batch.effects.pass,
                              batch.effects.pass_backfilled);
      }
      last_pass_ = now;
      next_pass_ = now + kPassInterval;
    }
    for (core::JobId id : batch.effects.dirty) {
      unsaved_jobs_.insert(id);
    }
    for (core::JobId id : batch.effects.republish) {
      republish_jobs_.insert(id);
    }
    for (core::JobId id : unsaved_jobs_) {
      dirty_chunks_.insert(id.value() / kJobChunkSize);
    }
    for (core::JobId id : republish_jobs_) {
      dirty_chunks_.insert(id.value() / kJobChunkSize);
    }
    batch.mutations.job_upserts = PublishJobs();
    steps_dirty_ = steps_dirty_ || !batch.effects.steps.empty();
    TakeHistory(batch, now);
    NoteAccounting(batch.effects);
    if (save_associations_) {
      batch.mutations.associations = jobs_->AssociationsToSave();
    }
    if (save_usage_) {
      batch.mutations.usage = jobs_->UsageToSave();
    }
    if (save_qos_) {
      batch.mutations.qos = jobs_->qos().specs();
    }
    batch.mutations.drop_legacy_jobs = drop_legacy_jobs_;
    if (batch.effects.next_id_changed || !batch.mutations.job_upserts.empty()) {
      batch.mutations.next_job_id = jobs_->next_job_id();
    }
    if (!unsaved_jobs_.empty() || !republish_jobs_.empty() ||
        jobs_->accounting().version != published_accounting_version_) {
      batch.visible_change = true;
    }
    for (const std::string& line : batch.effects.info) {
      spdlog::info("{}", line);
    }
    for (const std::string& line : batch.effects.warnings) {
      spdlog::warn("{}", line);
    }
    // Node rows of earlier failed commits go first, so later rows for the same node win.
    if (!unsaved_admin_.empty()) {
      batch.mutations.node_admin_upserts.insert(batch.mutations.node_admin_upserts.begin(),
                                                unsaved_admin_.begin(), unsaved_admin_.end());
    }
    const absl::Status committed = CommitWithRetry(batch.mutations);
    if (!committed.ok()) {
      // The change stays in memory and is saved with a later batch: its callers are answered,
      // and its messages sent, only then. Telling them "failed" now would be a lie once a
      // later commit succeeds (a retried submit would queue a second job).
      unsaved_admin_ = std::move(batch.mutations.node_admin_upserts);
      KeepHistory(batch.mutations);
      for (auto& done : batch.after_commit) {
        waiting_for_commit_.push_back(std::move(done));
      }
      Deliver(false, batch);
    } else {
      unsaved_jobs_.clear();
      unsaved_final_records_.clear();
      republish_jobs_.clear();
      unsaved_admin_.clear();
      save_associations_ = false;
      save_usage_ = false;
      save_qos_ = false;
      drop_legacy_jobs_ = false;
      // Publish before answering, so a caller that reads right after its write sees it.
      if (batch.visible_change || !waiting_for_commit_.empty() ||
          (heard_since_publish_ && now - last_publish_ >= kHeartbeatPublishInterval)) {
        Publish();
      }
      for (auto& done : waiting_for_commit_) {
        done(committed);
      }
      waiting_for_commit_.clear();
      for (auto& done : batch.after_commit) {
        done(committed);
      }
      Deliver(true, batch);
    }
    if (stopping) {
      absl::MutexLock lock(&queue_mu_);
      if (queue_.empty()) {
        break;
      }
    }
  }
  for (auto& done : waiting_for_commit_) {
    done(absl::UnavailableError(
        "canopyd stopped before the change could be saved (the database kept failing)"));
  }
  waiting_for_commit_.clear();
  // Close every agent stream so gRPC's shutdown does not wait for agents to hang up.
  for (auto& outbox : sessions_) {
    if (outbox != nullptr) {
      outbox->Close(grpc::Status(grpc::StatusCode::UNAVAILABLE, "controller shutting down"));
    }
  }
}

void Controller::Tick(Batch& batch) {
  for (core::NodeId id : state_.CheckTimeouts(clock_->Now(), config_->node_timeout)) {
    const state::NodeRecord& node = state_.node(id);
    spdlog::warn("node {} not responding for more than {}: marked DOWN", node.name,
                 absl::FormatDuration(config_->node_timeout));
    // A stream still open (a stalled agent, a network cut that may heal) is closed: the node
    // comes back only by registering again, which tells what it still runs and with which GPUs
    // (its cleanup holds were released when it went down).
    if (std::shared_ptr<AgentOutbox>& session = sessions_[id.value()]; session != nullptr) {
      session->Close(grpc::Status(grpc::StatusCode::UNAVAILABLE,
                                  "this node was silent for longer than the node timeout and is "
                                  "DOWN: register again"));
      session_nodes_.erase(session.get());
      session.reset();
      state_.StreamClosed(id, clock_->Now());
    }
    NodeTouched(id, batch);
    batch.visible_change = true;
    nodes_dirty_ = true;
  }
  jobs_->Tick(batch.effects);
}

absl::Status Controller::CommitWithRetry(const persistence::Mutations& mutations) {
  if (mutations.empty()) {
    return absl::OkStatus();
  }
  absl::Status status;
  const absl::Time start = absl::Now();
  for (int attempt = 0; attempt < 3; ++attempt) {
    status = store_->Commit(mutations);
    if (status.ok() || status.code() != absl::StatusCode::kUnavailable) {
      break;
    }
    spdlog::warn("database busy ({}), retrying", status.message());
  }
  if (!status.ok()) {
    spdlog::error("could not save state: {}", status.ToString());
  }
  if (metrics_ != nullptr) {
    metrics_->ObserveCommit(absl::Now() - start, status.ok());
  }
  return status;
}

void Controller::Publish() {
  auto snapshot = std::make_shared<ClusterSnapshot>();
  snapshot->taken = clock_->Now();
  snapshot->next_job_id = jobs_->next_job_id();
  snapshot->config = config_;
  snapshot->topology = topology_;
  // Copying every node record is the costly part of a publish on a big cluster: only when a
  // node or the jobs' use of nodes changed.
  if (nodes_dirty_ || nodes_snapshot_ == nullptr ||
      jobs_->capacity_version() != published_capacity_version_) {
    auto nodes = std::make_shared<std::vector<state::NodeRecord>>(state_.nodes());
    const placement::CapacityView& capacity = jobs_->capacity();
    for (state::NodeRecord& node : *nodes) {
      const placement::NodeCapacity& c = capacity.node(node.id);
      node.alloc_gpus = c.total_gpus - c.free_gpus;
      node.alloc_cpus = c.total_cpus - c.free_cpus;
      node.alloc_memory_mib = c.total_mem_mib - c.free_mem_mib;
    }
    nodes_snapshot_ = std::move(nodes);
    nodes_dirty_ = false;
    published_capacity_version_ = jobs_->capacity_version();
  }
  snapshot->nodes = nodes_snapshot_;
  const auto& published = published_;
  for (uint32_t k : dirty_chunks_) {
    if (k >= job_chunks_.size()) {
      job_chunks_.resize(k + 1);
    }
    auto chunk = std::make_shared<JobChunk>();
    for (auto it = published.lower_bound(k * kJobChunkSize);
         it != published.end() && it->first < (k + 1) * kJobChunkSize; ++it) {
      chunk->jobs.push_back(it->second);
    }
    job_chunks_[k] = std::move(chunk);
  }
  dirty_chunks_.clear();
  snapshot->job_chunks = job_chunks_;
  if (accounting_snapshot_ == nullptr ||
      jobs_->accounting().version != published_accounting_version_) {
    accounting_snapshot_ = std::make_shared<const lifecycle::Accounting>(jobs_->accounting());
    published_accounting_version_ = jobs_->accounting().version;
  }
  snapshot->accounting = accounting_snapshot_;
  if (steps_dirty_ || steps_snapshot_ == nullptr ||
      jobs_->capacity_version() != steps_capacity_version_) {
    steps_snapshot_ =
        std::make_shared<const absl::btree_map<uint32_t, std::vector<core::StepRecord>>>(
            jobs_->RunningSteps());
    steps_dirty_ = false;
    steps_capacity_version_ = jobs_->capacity_version();
  }
  snapshot->steps = steps_snapshot_;
  last_publish_ = snapshot->taken;
  heard_since_publish_ = false;
  absl::MutexLock lock(&snapshot_mu_);
  snapshot_ = std::move(snapshot);
}

void Controller::SaveAdminState(core::NodeId id, Batch& batch) {
  const state::NodeRecord& n = state_.node(id);
  batch.mutations.node_admin_upserts.push_back(persistence::NodeAdminRow{
      .name = n.name,
      .drain = n.drain,
      .admin_down = n.admin_down,
      .reason = n.reason,
      .reason_time = n.reason_time,
      .reason_user = n.reason_user,
  });
}

void Controller::NodeTouched(core::NodeId id, Batch& batch) {
  jobs_->NodeChanged(state_.node(id), batch.effects);
}

std::vector<std::shared_ptr<const core::Job>> Controller::PublishJobs() {
  std::vector<std::shared_ptr<const core::Job>> records;
  records.reserve(unsaved_jobs_.size());
  for (core::JobId id : unsaved_jobs_) {
    const core::Job* job = jobs_->Find(id);
    if (job == nullptr) {
      continue;
    }
    auto record = std::make_shared<const core::Job>(*job);
    published_[id.value()] = record;
    records.push_back(std::move(record));
  }
  for (core::JobId id : republish_jobs_) {
    const core::Job* job = jobs_->Find(id);
    if (job != nullptr && !unsaved_jobs_.contains(id)) {
      published_[id.value()] = std::make_shared<const core::Job>(*job);
    }
  }
  return records;
}

void Controller::TakeHistory(Batch& batch, absl::Time now) {
  lifecycle::Effects& effects = batch.effects;
  persistence::Mutations& m = batch.mutations;
  m.attempts = std::move(unsaved_attempts_);
  m.attempts.insert(m.attempts.end(), std::make_move_iterator(effects.attempts.begin()),
                    std::make_move_iterator(effects.attempts.end()));
  m.steps = std::move(unsaved_steps_);
  m.steps.insert(m.steps.end(), std::make_move_iterator(effects.steps.begin()),
                 std::make_move_iterator(effects.steps.end()));
  m.forget_jobs = std::move(unsaved_forgets_);
  // Final records of forgotten jobs whose last change is not saved yet (a commit failed).
  m.job_upserts.insert(m.job_upserts.end(), unsaved_final_records_.begin(),
                       unsaved_final_records_.end());
  for (core::JobId id : effects.forgotten) {
    m.forget_jobs.push_back(id);
    if (unsaved_jobs_.erase(id) > 0) {
      if (auto it = published_.find(id.value()); it != published_.end()) {
        m.job_upserts.push_back(it->second);  // the record as last published: still current
        unsaved_final_records_.push_back(it->second);
      }
    }
    republish_jobs_.erase(id);
    published_.erase(id.value());
    dirty_chunks_.insert(id.value() / kJobChunkSize);
    batch.visible_change = true;
  }
  m.purge_before = unsaved_purge_;
  const absl::Duration keep = config_->scheduling.accounting.purge_job_after;
  if (keep != absl::InfiniteDuration() && now >= next_purge_) {
    m.purge_before = now - keep;
    next_purge_ = now + absl::Hours(1);
  }
  unsaved_attempts_.clear();
  unsaved_steps_.clear();
  unsaved_forgets_.clear();
  unsaved_purge_ = absl::InfinitePast();
}

void Controller::KeepHistory(persistence::Mutations& mutations) {
  unsaved_attempts_ = std::move(mutations.attempts);
  unsaved_steps_ = std::move(mutations.steps);
  unsaved_forgets_ = std::move(mutations.forget_jobs);
  unsaved_purge_ = mutations.purge_before;
}

void Controller::NoteAccounting(const lifecycle::Effects& effects) {
  save_associations_ = save_associations_ || effects.associations_changed;
  save_usage_ = save_usage_ || effects.usage_changed;
  save_qos_ = save_qos_ || effects.qos_changed;
}

void Controller::Deliver(bool committed, Batch& batch) {
  if (!committed) {
    // Nothing of this batch is durable: its messages wait for the commit that saves it.
    for (lifecycle::OutgoingMessage& m : batch.effects.messages) {
      undelivered_.push_back(std::move(m));
    }
    return;
  }
  auto send = [this](lifecycle::OutgoingMessage& m) {
    const std::shared_ptr<AgentOutbox>& outbox = sessions_[m.node.value()];
    // A node without a stream gets what it needs again when it registers.
    if (outbox != nullptr) {
      outbox->Send(ToProto(m.message, *topology_, *config_));
    }
  };
  for (lifecycle::OutgoingMessage& m : undelivered_) {
    send(m);
  }
  undelivered_.clear();
  for (lifecycle::OutgoingMessage& m : batch.effects.messages) {
    send(m);
  }
}

}  // namespace canopy::server
