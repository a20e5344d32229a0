// Retention (retention.h).
#include "scheduler/lifecycle/retention.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "scheduler/lifecycle/admission.h"

namespace canopy::lifecycle {
namespace {

bool HasHolds(const LifecycleState& s, core::JobId id) {
  return std::any_of(s.holds.begin(), s.holds.end(),
                     [id](const CleanupHold& h) { return h.job == id; });
}

}  // namespace

void ForgetFinished(LifecycleState& s, Effects& effects) {
  const absl::Duration age = s.config->min_job_age;
  if (age <= absl::ZeroDuration()) {
    return;
  }
  const absl::Time now = s.Now();
  std::vector<std::pair<absl::Time, core::JobId>> later;  // still held: try again then
  while (!s.finished.empty() && s.finished.begin()->first + age <= now) {
    const core::JobId id = s.finished.begin()->second;
    s.finished.erase(s.finished.begin());
    const core::Job* job = s.jobs.Find(id);
    if (job == nullptr || !core::IsTerminal(job->state) ||
        job->state == core::JobState::kRequeued) {
      continue;  // gone already, or requeued since (it is listed again when it ends)
    }
    if (HasHolds(s, id)) {
      later.push_back({now, id});
      continue;
    }
    if (!job->idempotency_key.empty()) {
      if (auto it = s.idempotency.find(IdempotencyIndexKey(job->user_id, job->idempotency_key));
          it != s.idempotency.end() && it->second == id) {
        s.idempotency.erase(it);
      }
    }
    s.preempt_tried.erase(id);
    s.live.erase(id);
    (void)s.jobs.Erase(id);
    s.Reindex(id);  // drops whatever index still names it
    effects.dirty.erase(id);
    effects.republish.erase(id);
    effects.forgotten.push_back(id);
  }
  for (const auto& entry : later) {
    s.finished.insert(entry);
  }
}

absl::Time NextForget(const LifecycleState& s) {
  if (s.finished.empty() || s.config->min_job_age <= absl::ZeroDuration()) {
    return absl::InfiniteFuture();
  }
  return s.finished.begin()->first + s.config->min_job_age;
}

}  // namespace canopy::lifecycle
