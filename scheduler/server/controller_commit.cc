// The controller's side of durability: what each batch must save, handing it to the StoreWriter
// (store_writer.h), and what happens once a commit ends. While a commit is in flight the owner
// thread keeps applying commands; their changes, answers and agent messages wait, as "unsaved",
// for the next commit, which saves everything that arrived meanwhile in one transaction. Callers
// are answered, and agents told, only after the commit that saved their change. A failed commit
// puts its changes back among the unsaved ones, retried kCommitRetryInterval later (real time:
// the database's pace, not the controller's clock).
#include <utility>
#include <vector>

#include "scheduler/server/controller.h"
#include "scheduler/server/proto_convert.h"
#include "spdlog/spdlog.h"

namespace canopy::server {
namespace {

// Heartbeats only move last_heartbeat; publishing a snapshot for each of thousands of them per
// second would be waste, so such changes are published at most this often.
constexpr absl::Duration kHeartbeatPublishInterval = absl::Seconds(1);

// While the database refuses commits, the owner retries this often.
constexpr absl::Duration kCommitRetryInterval = absl::Milliseconds(500);

template <typename T>
void Prepend(std::vector<T>& to, std::vector<T>&& items) {
  to.insert(to.begin(), std::make_move_iterator(items.begin()),
            std::make_move_iterator(items.end()));
}

}  // namespace

bool Controller::HasUnsaved() const {
  return !unsaved_jobs_.empty() || !unsaved_final_records_.empty() || !unsaved_admin_.empty() ||
         !unsaved_attempts_.empty() || !unsaved_steps_.empty() || !unsaved_forgets_.empty() ||
         unsaved_purge_ != absl::InfinitePast() || next_id_unsaved_ || drop_legacy_jobs_ ||
         !waiting_for_commit_.empty() || !undelivered_.empty() || save_associations_ ||
         save_usage_ || save_qos_;
}

void Controller::SaveOrKeep(Batch& batch, absl::Time now) {
  const bool commit_now = !in_flight_.has_value() && absl::Now() >= retry_commit_at_;
  for (core::JobId id : batch.effects.dirty) {
    unsaved_jobs_.insert(id);
    unpublished_jobs_.insert(id);
  }
  unpublished_jobs_.insert(batch.effects.republish.begin(), batch.effects.republish.end());
  if (!unpublished_jobs_.empty() || jobs_->accounting().version != published_accounting_version_) {
    batch.visible_change = true;
  }
  PublishJobs();
  persistence::Mutations& m = batch.mutations;
  if (commit_now) {
    m.job_upserts = RecordsToSave();
  }
  steps_dirty_ = steps_dirty_ || !batch.effects.steps.empty();
  TakeHistory(batch, now);
  NoteAccounting(batch.effects);
  // Whole tables: copied only for a commit that starts now (the flags keep them for a later one).
  if (commit_now && save_associations_) {
    m.associations = jobs_->AssociationsToSave();
  }
  if (commit_now && save_usage_) {
    m.usage = jobs_->UsageToSave();
  }
  if (commit_now && save_qos_) {
    m.qos = jobs_->qos().specs();
  }
  m.drop_legacy_jobs = drop_legacy_jobs_;
  if (batch.effects.next_id_changed || next_id_unsaved_ || !m.job_upserts.empty()) {
    m.next_job_id = jobs_->next_job_id();
  }
  // Node rows of earlier unsaved batches go first, so later rows for the same node win.
  Prepend(m.node_admin_upserts, std::move(unsaved_admin_));
  unsaved_admin_.clear();

  if (!commit_now) {
    // Saved by the next commit, once the one in flight (or the failing database) lets it.
    unsaved_admin_ = std::move(m.node_admin_upserts);
    next_id_unsaved_ = next_id_unsaved_ || batch.effects.next_id_changed;
    KeepHistory(m);
    for (auto& done : batch.after_commit) {
      waiting_for_commit_.push_back(std::move(done));
    }
    for (lifecycle::OutgoingMessage& message : batch.effects.messages) {
      undelivered_.push_back(std::move(message));
    }
    unpublished_change_ = unpublished_change_ || batch.visible_change;
    return;
  }

  InFlight flight;
  flight.callbacks = std::move(waiting_for_commit_);
  waiting_for_commit_.clear();
  for (auto& done : batch.after_commit) {
    flight.callbacks.push_back(std::move(done));
  }
  flight.messages = std::move(undelivered_);
  undelivered_.clear();
  for (lifecycle::OutgoingMessage& message : batch.effects.messages) {
    flight.messages.push_back(std::move(message));
  }
  flight.visible_change = batch.visible_change || unpublished_change_;
  // What the commit carries is no longer unsaved; FinishCommit puts it back if it fails.
  unsaved_jobs_.clear();
  unsaved_final_records_.clear();
  save_associations_ = false;
  save_usage_ = false;
  save_qos_ = false;
  drop_legacy_jobs_ = false;
  next_id_unsaved_ = false;
  unpublished_change_ = false;
  if (m.empty()) {
    // Nothing to write (reads, heartbeats): answered at once.
    in_flight_ = std::move(flight);
    FinishCommit(StoreWriter::Result{absl::OkStatus(), persistence::Mutations()});
    return;
  }
  in_flight_ = std::move(flight);
  writer_->Start(std::move(m));
}

void Controller::FinishCommit(StoreWriter::Result result) {
  InFlight flight = std::move(*in_flight_);
  in_flight_.reset();
  const absl::Time now = clock_->Now();
  if (!result.status.ok()) {
    // Nothing of it is durable: its changes, answers and messages wait for a later commit. A
    // caller told "failed" now would be lied to once that commit succeeds (a retried submit
    // would queue a second job).
    persistence::Mutations& m = result.mutations;
    std::vector<std::shared_ptr<const core::Job>> forgotten_meanwhile;
    for (std::shared_ptr<const core::Job>& record : m.job_upserts) {
      if (jobs_->Find(record->id) != nullptr) {
        unsaved_jobs_.insert(record->id);
      } else {
        forgotten_meanwhile.push_back(std::move(record));
      }
    }
    // Before the final records taken while this commit was in flight: they are newer, and of
    // two records of one job the store keeps the last.
    Prepend(unsaved_final_records_, std::move(forgotten_meanwhile));
    Prepend(unsaved_admin_, std::move(m.node_admin_upserts));
    Prepend(unsaved_attempts_, std::move(m.attempts));
    Prepend(unsaved_steps_, std::move(m.steps));
    Prepend(unsaved_forgets_, std::move(m.forget_jobs));
    unsaved_purge_ = std::max(unsaved_purge_, m.purge_before);
    save_associations_ = save_associations_ || m.associations.has_value();
    save_usage_ = save_usage_ || m.usage.has_value();
    save_qos_ = save_qos_ || m.qos.has_value();
    drop_legacy_jobs_ = drop_legacy_jobs_ || m.drop_legacy_jobs;
    next_id_unsaved_ = next_id_unsaved_ || m.next_job_id != 0;
    Prepend(waiting_for_commit_, std::move(flight.callbacks));
    Prepend(undelivered_, std::move(flight.messages));
    unpublished_change_ = unpublished_change_ || flight.visible_change;
    retry_commit_at_ = absl::Now() + kCommitRetryInterval;
    return;
  }
  retry_commit_at_ = absl::InfinitePast();
  // Publish before answering, so a caller that reads right after its write sees it.
  if (flight.visible_change || !flight.callbacks.empty() ||
      (heard_since_publish_ && now - last_publish_ >= kHeartbeatPublishInterval)) {
    Publish();
  }
  for (auto& done : flight.callbacks) {
    done(absl::OkStatus());
  }
  for (lifecycle::OutgoingMessage& message : flight.messages) {
    // A node without a stream gets what it needs again when it registers.
    if (const std::shared_ptr<AgentOutbox>& outbox = sessions_[message.node.value()]) {
      outbox->Send(ToProto(message.message, *topology_, *config_));
    }
  }
}

void Controller::SaveBeforeStop(absl::Time now) {
  // The commit in flight, then one more for what waited for it; a database that fails is not
  // waited for again (what it refused is answered UNAVAILABLE).
  for (int round = 0; round < 2; ++round) {
    if (std::optional<StoreWriter::Result> result = writer_->WaitResult()) {
      FinishCommit(*std::move(result));
    }
    if (round == 0 && HasUnsaved()) {
      // One last try even right after a failure: the database may be back, and what it would
      // not take is answered UNAVAILABLE either way.
      retry_commit_at_ = absl::InfinitePast();
      Batch batch;
      SaveOrKeep(batch, now);
    }
  }
}

void Controller::PublishJobs() {
  for (core::JobId id : unpublished_jobs_) {
    if (const core::Job* job = jobs_->Find(id); job != nullptr) {
      published_[id.value()] = std::make_shared<const core::Job>(*job);
      dirty_chunks_.insert(id.value() / kJobChunkSize);
    }
  }
  unpublished_jobs_.clear();
}

std::vector<std::shared_ptr<const core::Job>> Controller::RecordsToSave() const {
  std::vector<std::shared_ptr<const core::Job>> records;
  records.reserve(unsaved_jobs_.size());
  for (core::JobId id : unsaved_jobs_) {
    if (jobs_->Find(id) == nullptr) {
      continue;  // forgotten in this batch: TakeHistory saves its last record
    }
    // Published just before: the copy is the record as it is now.
    if (auto it = published_.find(id.value()); it != published_.end()) {
      records.push_back(it->second);
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
}  // namespace canopy::server
