// The backfill planner's thread (backfill_planner.h).
#include "scheduler/server/backfill_planner.h"

#include <sys/resource.h>
#include <unistd.h>

#include <utility>

#include "common/os/thread_name.h"

namespace canopy::server {

BackfillPlanner::BackfillPlanner(Planned planned)
    : planned_(std::move(planned)), thread_([this] {
        os::NameThisThread("canopyd-backfil");
        // Planning is background work: on a busy machine the owner thread, which answers every
        // call, runs first (Linux applies a nice value to the thread alone).
        (void)setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), kPlannerNice);
        Run();
      }) {}

BackfillPlanner::~BackfillPlanner() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  thread_.join();  // after the work being planned; one still waiting is dropped
}

void BackfillPlanner::Plan(std::shared_ptr<lifecycle::BackfillWork> work) {
  absl::MutexLock lock(&mu_);
  next_ = std::move(work);
}

void BackfillPlanner::Run() {
  while (true) {
    std::shared_ptr<lifecycle::BackfillWork> work;
    {
      absl::MutexLock lock(&mu_);
      auto ready = [this]()
                       ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return next_ != nullptr || stopping_; };
      mu_.Await(absl::Condition(&ready));
      if (stopping_) {
        return;
      }
      work = std::move(next_);
    }
    lifecycle::PlanBackfill(*work);
    planned_(std::move(work));
  }
}

}  // namespace canopy::server
