// JobRuntime::Fence (job_runtime.h): the node kills its jobs when it has lost the controller.
#include <signal.h>

#include <vector>

#include "agent/runtime/job_runtime.h"
#include "common/log/absl_format.h"
#include "spdlog/spdlog.h"

namespace canopy::agent::runtime {

int JobRuntime::Fence(absl::string_view why) {
  std::vector<uint32_t> to_check;
  int fenced = 0;
  {
    absl::MutexLock lock(&mu_);
    ++fences_;
    for (auto& [id, job] : jobs_) {
      if (job->fenced) {
        continue;
      }
      ++fenced;
      job->fenced = true;
      if (job->next_launch.has_value()) {
        // The controller will requeue the job: the run that waited here must not start.
        job->cancelled_run = job->next_launch->job().run_id();
        job->next_launch.reset();
      }
      spdlog::warn("{}: fencing job {} (run {}): {}", options_.node_name, id, job->run_id(), why);
      if (!job->killing) {
        to_check.push_back(id);  // a job already being killed has its CheckKill chain
      }
      job->killing = true;
      job->kill_deadline = absl::Now();
      SendSigkill(*job, options_.helper_exit_grace);
    }
  }
  for (uint32_t job_id : to_check) {
    timer_.Schedule(absl::Now(), [this, job_id] { CheckKill(job_id); });
  }
  return fenced;
}

}  // namespace canopy::agent::runtime
