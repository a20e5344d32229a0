#include "scheduler/server/store_writer.h"

#include <utility>

#include "common/log/absl_format.h"
#include "common/os/thread_name.h"
#include "spdlog/spdlog.h"

namespace canopy::server {

StoreWriter::StoreWriter(persistence::Store* store, ControllerMetrics* metrics,
                         std::function<void()> finished)
    : store_(store), metrics_(metrics), finished_(std::move(finished)) {
  thread_ = std::thread([this] {
    os::NameThisThread("canopyd-store");
    Run();
  });
}

StoreWriter::~StoreWriter() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  thread_.join();
}

void StoreWriter::Start(persistence::Mutations mutations) {
  absl::MutexLock lock(&mu_);
  busy_ = true;
  pending_ = std::move(mutations);
}

bool StoreWriter::busy() const {
  absl::MutexLock lock(&mu_);
  return busy_;
}

std::optional<StoreWriter::Result> StoreWriter::TakeResult() {
  absl::MutexLock lock(&mu_);
  std::optional<Result> result = std::move(result_);
  result_.reset();
  if (result.has_value()) {
    busy_ = false;
  }
  return result;
}

std::optional<StoreWriter::Result> StoreWriter::WaitResult() {
  absl::MutexLock lock(&mu_);
  auto done = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !busy_ || result_; };
  mu_.Await(absl::Condition(&done));
  std::optional<Result> result = std::move(result_);
  result_.reset();
  busy_ = false;
  return result;
}

void StoreWriter::Run() {
  while (true) {
    persistence::Mutations mutations;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return pending_.has_value() || stopping_;
      };
      mu_.Await(absl::Condition(&ready));
      if (!pending_.has_value()) {
        return;  // stopping, nothing in flight
      }
      mutations = std::move(*pending_);
      pending_.reset();
    }
    absl::Status status = CommitWithRetry(mutations);
    {
      absl::MutexLock lock(&mu_);
      result_ = Result{std::move(status), std::move(mutations)};
    }
    finished_();
  }
}

absl::Status StoreWriter::CommitWithRetry(const persistence::Mutations& mutations) {
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

}  // namespace canopy::server
