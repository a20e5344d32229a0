#include "scheduler/server/controller.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "common/log/absl_format.h"
#include "common/os/thread_name.h"
#include "scheduler/server/proto_convert.h"
#include "spdlog/spdlog.h"

namespace canopy::server {
namespace {

// How often the owner thread checks node timeouts: often enough that a node is marked down
// within ~10% of node_timeout, never busier than 10 times a second.
absl::Duration TickFor(absl::Duration node_timeout) {
  return std::clamp(node_timeout / 10, absl::Milliseconds(100), absl::Seconds(5));
}

// Scheduling passes run after events that may let a job start, and at least this often.
constexpr absl::Duration kPassInterval = absl::Seconds(5);
// ... but event-driven passes no closer together than this: under a burst of submissions one
// pass covers many batches instead of one pass per batch (Slurm's sched_min_interval idea).
constexpr absl::Duration kMinPassGap = absl::Milliseconds(50);

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
  // Records changed by the restore (jobs that no longer fit) are saved with the first batch, and
  // so are the steps it closed (those of jobs no longer running): left open in the database,
  // sacct would show them RUNNING for good.
  c->unsaved_jobs_ = std::move(restored.dirty);
  c->unsaved_steps_ = std::move(restored.steps);
  c->unsaved_attempts_ = std::move(restored.attempts);
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
  writer_ = std::make_unique<StoreWriter>(store_.get(), metrics_, [this] {
    absl::MutexLock lock(&queue_mu_);
    commit_finished_ = true;
  });
  if (backfill_off_owner_) {
    jobs_->set_plan_backfill_elsewhere(true);
    planner_ =
        std::make_unique<BackfillPlanner>([this](std::shared_ptr<lifecycle::BackfillWork> work) {
          // Dropped once canopyd stops: the lifecycle goes with it.
          (void)Post([this, work = std::move(work)](Batch& batch) {
            const absl::Time apply_start = absl::Now();
            batch.effects.pass.reset();  // another pass of this batch was counted already
            jobs_->BackfillPlanned(*work, batch.effects);
            if (metrics_ != nullptr && batch.effects.pass.has_value()) {
              metrics_->ObservePass(work->planning_time + (absl::Now() - apply_start),
                                    *batch.effects.pass, /*backfill=*/true);
            }
          });
        });
  }
  owner_ = std::thread([this] {
    os::NameThisThread("canopyd-owner");
    RunOwnerLoop();
  });
}

void Controller::Stop() {
  {
    absl::MutexLock lock(&queue_mu_);
    stopping_ = true;
  }
  if (owner_.joinable()) {
    owner_.join();
  }
  planner_.reset();
  writer_.reset();
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
    bool commit_finished = false;
    {
      absl::MutexLock lock(&queue_mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(queue_mu_) {
        return !queue_.empty() || stopping_ || commit_finished_;
      };
      // Wake for the next tick, or for a pass that was put off by kMinPassGap.
      absl::Time wake = next_tick;
      if (schedule_pending_) {
        wake = std::min(wake, last_pass_ + kMinPassGap);
      }
      absl::Duration timeout = std::max(wake - clock_->Now(), absl::ZeroDuration());
      // Unsaved changes after a failed commit: retried in real time, whatever clock_ says.
      if (!in_flight_.has_value() && HasUnsaved()) {
        timeout = std::min(timeout, std::max(retry_commit_at_ - absl::Now(), absl::ZeroDuration()));
      }
      // Callers waiting for a commit hear DEADLINE_EXCEEDED at their deadline (real time).
      timeout = std::min(
          timeout, std::max(pending_answers_.NextDeadline() - absl::Now(), absl::ZeroDuration()));
      queue_mu_.AwaitWithTimeout(absl::Condition(&ready), timeout);
      commands.swap(queue_);
      stopping = stopping_;
      commit_finished = commit_finished_;
      commit_finished_ = false;
      // From the first pass after Stop(), Post() refuses new commands, so the queue drains in a
      // bounded number of passes even while thousands of agents keep sending heartbeats.
      stopped_ = stopping_;
    }
    if (commit_finished) {
      if (std::optional<StoreWriter::Result> result = writer_->TakeResult()) {
        FinishCommit(*std::move(result));
      }
    }
    FoldHeard();
    Batch batch;
    for (Command& command : commands) {
      command(batch);
    }
    const absl::Time now = clock_->Now();
    if (now >= next_tick) {
      FoldHeard();  // what arrived meanwhile, before Tick looks for silent nodes
      Tick(batch);
      next_tick = now + tick_interval_;
    }
    // A pass after every batch that freed capacity or queued work, and at least every few
    // seconds (a --switches wait may run out with nothing else happening).
    schedule_pending_ = schedule_pending_ || batch.effects.schedule;
    if ((schedule_pending_ && now - last_pass_ >= kMinPassGap) || now >= next_pass_) {
      schedule_pending_ = false;
      const absl::Time pass_start = absl::Now();  // wall time, whatever clock_ says
      batch.effects.pass.reset();  // a backfill plan applied in this batch was counted already
      jobs_->Schedule(batch.effects);
      if (metrics_ != nullptr && batch.effects.pass.has_value()) {
        metrics_->ObservePass(absl::Now() - pass_start, *batch.effects.pass,
                              batch.effects.pass_backfilled);
      }
      if (batch.effects.backfill_work != nullptr) {
        planner_->Plan(std::move(batch.effects.backfill_work));
      }
      last_pass_ = now;
      next_pass_ = now + kPassInterval;
    }
    for (const std::string& line : batch.effects.info) {
      spdlog::info("{}", line);
    }
    for (const std::string& line : batch.effects.warnings) {
      spdlog::warn("{}", line);
    }
    SaveOrKeep(batch, now);
    pending_answers_.Expire(absl::Now());
    if (stopping) {
      SaveBeforeStop(now);
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

void Controller::Publish() {
  auto snapshot = std::make_shared<ClusterSnapshot>();
  snapshot->taken = clock_->Now();
  snapshot->next_job_id = jobs_->next_job_id();
  snapshot->config = config_;
  snapshot->topology = topology_;
  // Copying every node record (names, GPUs with their UUIDs) is the costly part of a publish on
  // a big cluster: only when a node's own facts changed. What jobs hold on the nodes changes with
  // every start and end, and is an array of its own.
  const bool rebuilt_nodes = nodes_dirty_ || nodes_snapshot_ == nullptr;
  if (rebuilt_nodes) {
    nodes_snapshot_ = std::make_shared<const std::vector<state::NodeRecord>>(state_.nodes());
    nodes_dirty_ = false;
  }
  snapshot->nodes = nodes_snapshot_;
  if (node_use_snapshot_ == nullptr || jobs_->capacity_version() != published_capacity_version_) {
    const placement::CapacityView& capacity = jobs_->capacity();
    auto use = std::make_shared<std::vector<state::NodeUse>>();
    use->reserve(state_.nodes().size());
    for (const state::NodeRecord& node : state_.nodes()) {
      const placement::NodeCapacity& c = capacity.node(node.id);
      use->push_back({.cpus = c.total_cpus - c.free_cpus,
                      .gpus = c.total_gpus - c.free_gpus,
                      .memory_mib = c.total_mem_mib - c.free_mem_mib});
    }
    node_use_snapshot_ = std::move(use);
    published_capacity_version_ = jobs_->capacity_version();
  }
  snapshot->node_use = node_use_snapshot_;
  if (heard_since_publish_ || rebuilt_nodes || last_heard_snapshot_ == nullptr) {
    auto heard = std::make_shared<std::vector<absl::Time>>();
    heard->reserve(state_.nodes().size());
    for (const state::NodeRecord& node : state_.nodes()) {
      heard->push_back(node.last_heard);
    }
    last_heard_snapshot_ = std::move(heard);
  }
  snapshot->last_heard = last_heard_snapshot_;
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

}  // namespace canopy::server
