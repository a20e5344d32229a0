// InMemoryStore: a Store kept in memory, for tests. It can be told to fail
// its next commits, to check that callers never acknowledge what was not stored.
// Thread-compatible (the controller's owner thread is its only caller).
#pragma once

#include <atomic>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "scheduler/persistence/store.h"

namespace canopy::persistence {

class InMemoryStore final : public Store {
 public:
  absl::Status Commit(const Mutations& mutations) override {
    if (absl::Status fail = FailWith(); !fail.ok()) {
      ++failed_commits_;
      return fail;
    }
    for (const NodeAdminRow& row : mutations.node_admin_upserts) {
      nodes_[row.name] = row;
    }
    for (const std::shared_ptr<const core::Job>& job : mutations.job_upserts) {
      jobs_[job->id.value()] = *job;
    }
    // Accounting is not kept, but for the steps still open (StoredJobs::open_steps).
    for (const core::StepRecord& step : mutations.steps) {
      const auto key = std::make_tuple(step.job.value(), step.attempt, step.step_id);
      if (step.end_time == absl::InfinitePast()) {
        open_steps_[key] = step;
      } else {
        open_steps_.erase(key);
      }
    }
    // Forgotten jobs are simply not loaded again.
    for (core::JobId id : mutations.forget_jobs) {
      jobs_.erase(id.value());
    }
    if (mutations.next_job_id != 0) {
      next_job_id_ = mutations.next_job_id;
    }
    if (mutations.associations.has_value()) {
      accounting_.associations = mutations.associations;
    }
    if (mutations.usage.has_value()) {
      accounting_.usage = mutations.usage;
    }
    if (mutations.qos.has_value()) {
      accounting_.qos = mutations.qos;
    }
    ++commits_;
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<NodeAdminRow>> LoadNodeAdminState() override {
    std::vector<NodeAdminRow> rows;
    for (const auto& [name, row] : nodes_) {
      rows.push_back(row);
    }
    return rows;
  }

  absl::StatusOr<StoredJobs> LoadJobs() override {
    StoredJobs stored;
    for (const auto& [id, job] : jobs_) {
      stored.jobs.push_back(job);
      stored.jobs.back().resources = {};  // derived, not stored (as in SqliteStore)
    }
    stored.next_job_id = next_job_id_;
    for (const auto& [key, step] : open_steps_) {
      if (jobs_.contains(step.job.value())) {
        stored.open_steps.push_back(step);
      }
    }
    return stored;
  }

  absl::StatusOr<StoredAccounting> LoadAccounting() override { return accounting_; }

  // Every Commit() fails with `status` until it is set back to OK.
  // Thread-safe: a test may flip it while the controller's owner thread commits.
  void FailCommitsWith(absl::Status status) {
    absl::MutexLock lock(&fail_mu_);
    fail_with_ = std::move(status);
  }
  int commits() const { return commits_.load(); }
  int failed_commits() const { return failed_commits_.load(); }

 private:
  std::map<std::string, NodeAdminRow> nodes_;
  std::map<uint32_t, core::Job> jobs_;
  std::map<std::tuple<uint32_t, int32_t, uint32_t>, core::StepRecord> open_steps_;
  uint32_t next_job_id_ = 0;
  StoredAccounting accounting_;
  absl::Status FailWith() {
    absl::MutexLock lock(&fail_mu_);
    return fail_with_;
  }

  absl::Mutex fail_mu_;
  absl::Status fail_with_ ABSL_GUARDED_BY(fail_mu_);
  std::atomic<int> commits_{0};
  std::atomic<int> failed_commits_{0};
};

}  // namespace canopy::persistence
