// Timers and limits (timers.h).
#include "scheduler/lifecycle/timers.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/slurm/hostlist.h"
#include "scheduler/lifecycle/dependencies.h"
#include "scheduler/lifecycle/ending.h"
#include "scheduler/lifecycle/launch.h"
#include "scheduler/lifecycle/preemption.h"
#include "scheduler/lifecycle/priorities.h"
#include "scheduler/lifecycle/retention.h"

namespace canopy::lifecycle {
namespace {

// Names of the job's nodes whose flag in `done` is false.
std::string Missing(const LifecycleState& s, const core::Job& job, const std::vector<bool>& done) {
  std::vector<std::string> names;
  for (size_t i = 0; i < done.size() && i < job.allocation.nodes.size(); ++i) {
    if (!done[i]) {
      names.push_back(s.topology->node_name(job.allocation.nodes[i].node));
    }
  }
  return slurm::CompressHostlist(names);
}

void CheckRunning(LifecycleState& s, core::Job& job, LiveJob& live, Effects& effects) {
  const absl::Time now = s.Now();
  if (job.time_limit != absl::InfiniteDuration()) {
    const absl::Time deadline = job.start_time + job.time_limit;
    if (!job.warn_sent && job.spec->warn_signal > 0 && now >= deadline - job.spec->warn_time) {
      job.warn_sent = true;
      s.Touch(job.id, effects);
      s.SendSignal(job, job.spec->warn_signal, job.spec->warn_batch_only, effects);
    }
    if (now >= deadline) {
      job.state_message = "time limit reached";
      BeginCompleting(s, job, core::JobState::kTimeout, "time limit", effects);
      effects.info.push_back(absl::StrCat("job ", job.id.value(), " reached its time limit (",
                                          absl::FormatDuration(job.time_limit), ")"));
      return;
    }
  }
  if (now >= live.lost_batch_since + kLostBatchGrace) {
    LoseJob(s, job,
            absl::StrCat("the agent of ", s.topology->node_name(job.allocation.nodes[0].node),
                         " no longer knows the job (agent restarted?)"),
            effects);
  }
}

}  // namespace

void Tick(LifecycleState& s, Effects& effects) {
  const absl::Time now = s.Now();
  if (now >= s.accounting.next_calc()) {
    Recalculate(s, effects);
  }
  if (now >= s.backfill_due) {
    s.backfill_due = absl::InfiniteFuture();
    effects.schedule = !s.pending.empty();  // the backfill pass a strict one put off
  }
  std::vector<std::pair<core::JobId, core::NodeId>> expired;
  for (const CleanupHold& h : s.holds) {
    if (now >= h.deadline) {
      expired.push_back({h.job, h.share.node});
    }
  }
  for (const auto& [job, node] : expired) {
    effects.warnings.push_back(absl::StrCat("job ", job.value(), ": ", s.topology->node_name(node),
                                            " did not confirm cleanup in time; its share of the "
                                            "node is free again"));
    ReleaseHolds(s, job, node, 0, effects);
  }
  std::vector<core::JobId> due;
  for (auto it = s.deadlines.begin(); it != s.deadlines.end() && it->first <= now; ++it) {
    due.push_back(it->second);
  }
  for (core::JobId id : due) {
    core::Job* job = s.jobs.Find(id);
    LiveJob* live = s.Live(id);
    if (job != nullptr && job->state == core::JobState::kPending) {
      WakePending(s, *job, effects);  // its begin time, or an after:ID+MINUTES item
      s.Rearm(id);
      continue;
    }
    if (job == nullptr || live == nullptr) {
      s.Rearm(id);
      continue;
    }
    if (now >= live->preempt_at) {
      if (job->state == core::JobState::kRunning || job->state == core::JobState::kConfiguring) {
        FinishPreemption(s, *job, effects);  // its GraceTime is up
        s.Rearm(id);
        continue;
      }
      // It went COMPLETING another way in its GraceTime (scancel, its time limit, its end):
      // the preemption has nothing left to do, and the clean-up deadline below must be reached.
      live->preempt_at = absl::InfiniteFuture();
    }
    switch (job->state) {
      case core::JobState::kConfiguring:
        if (now >= live->launch_deadline) {
          AbortLaunch(s, *job,
                      absl::StrCat("launch not confirmed within ",
                                   absl::FormatDuration(s.config->launch_timeout), " by ",
                                   Missing(s, *job, live->confirmed)),
                      effects);
        }
        break;
      case core::JobState::kRunning:
        CheckRunning(s, *job, *live, effects);
        break;
      case core::JobState::kCompleting:
        if (now >= live->cleanup_deadline) {
          effects.warnings.push_back(absl::StrCat("job ", id.value(), ": ",
                                                  Missing(s, *job, live->cleaned),
                                                  " did not confirm cleanup in time; ending the "
                                                  "job anyway"));
          EndNow(s, *job, job->completing_to.value_or(core::JobState::kCompleted), effects);
        }
        break;
      default:
        break;
    }
    s.Rearm(id);
  }
  ForgetFinished(s, effects);
}

absl::Time NextDeadline(const LifecycleState& s) {
  absl::Time next = s.deadlines.empty() ? absl::InfiniteFuture() : s.deadlines.begin()->first;
  next = std::min(next, s.accounting.next_calc());
  next = std::min(next, s.backfill_due);
  next = std::min(next, NextForget(s));
  for (const CleanupHold& h : s.holds) {
    next = std::min(next, h.deadline);
  }
  return next;
}

}  // namespace canopy::lifecycle
