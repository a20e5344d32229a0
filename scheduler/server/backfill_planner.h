// BackfillPlanner: the thread that plans canopyd's backfill passes (lifecycle/backfill_work.h),
// so that the owner thread goes on answering submissions and agents while a pass over the whole
// queue is planned. One work at a time: the lifecycle hands out no second one while one is out.
// Thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "scheduler/lifecycle/backfill_work.h"

namespace canopy::server {

class BackfillPlanner {
 public:
  using Planned = std::function<void(std::shared_ptr<lifecycle::BackfillWork>)>;
  // `planned` runs on the planner thread with each work once its plan is made.
  explicit BackfillPlanner(Planned planned);
  ~BackfillPlanner();
  BackfillPlanner(const BackfillPlanner&) = delete;
  BackfillPlanner& operator=(const BackfillPlanner&) = delete;

  void Plan(std::shared_ptr<lifecycle::BackfillWork> work);

 private:
  static constexpr int kPlannerNice = 10;
  void Run();

  const Planned planned_;
  absl::Mutex mu_;
  std::shared_ptr<lifecycle::BackfillWork> next_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;  // last: starts once the rest is set up
};

}  // namespace canopy::server
