// StoreWriter: the thread that commits the controller's changes to the Store, so that the owner
// thread never waits on the disk. One commit at a time: while one is in flight the owner keeps
// applying commands, and everything they change goes into the next commit (group commit across
// batches). The owner learns of a finished commit through `finished`, and takes its result with
// TakeResult(); a failed commit's mutations come back with it, to be saved by the next one.
// Thread-safe.
#pragma once

#include <functional>
#include <optional>
#include <thread>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "scheduler/persistence/store.h"
#include "scheduler/server/controller_metrics.h"

namespace canopy::server {

class StoreWriter {
 public:
  struct Result {
    absl::Status status;
    persistence::Mutations mutations;  // what the commit was to save
  };

  // `store` and `metrics` (may be null) must outlive this. `finished` runs on the writer thread
  // after every commit, when its result is ready to take.
  StoreWriter(persistence::Store* store, ControllerMetrics* metrics,
              std::function<void()> finished);
  ~StoreWriter();  // finishes the commit in flight
  StoreWriter(const StoreWriter&) = delete;
  StoreWriter& operator=(const StoreWriter&) = delete;

  // Starts committing `mutations`. Only while no commit is in flight (!busy()).
  void Start(persistence::Mutations mutations);
  // A commit was started and its result not taken yet.
  bool busy() const;
  // The finished commit's result, taking it (busy() is false after); nullopt while it runs.
  std::optional<Result> TakeResult();
  // Waits for the commit in flight and takes its result (nullopt when none was started).
  std::optional<Result> WaitResult();

 private:
  void Run();
  // One commit, retried on UNAVAILABLE (a busy database) up to 3 times; logged when it fails
  // and counted in metrics_.
  absl::Status CommitWithRetry(const persistence::Mutations& mutations);

  persistence::Store* const store_;
  ControllerMetrics* const metrics_;
  const std::function<void()> finished_;

  mutable absl::Mutex mu_;
  std::optional<persistence::Mutations> pending_ ABSL_GUARDED_BY(mu_);
  std::optional<Result> result_ ABSL_GUARDED_BY(mu_);
  bool busy_ ABSL_GUARDED_BY(mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace canopy::server
