// Launch: the pass, gang launch with confirmation, aborted launches, cleanup holds (launch.h).
#include "scheduler/lifecycle/launch.h"

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "common/slurm/array_spec.h"
#include "common/slurm/hostlist.h"
#include "scheduler/lifecycle/backfill_work.h"
#include "scheduler/lifecycle/preemption.h"

namespace canopy::lifecycle {
namespace {

// Array throttles ("%N"): tasks beyond the limit wait this pass, with Slurm's reason for it
// (JobArrayTaskLimit) in place of one that only said how the last pass went. Tasks already
// holding nodes count, and so does every task let through here, even if it then does not fit.
void ApplyArrayThrottles(LifecycleState& s, std::vector<const core::Job*>& pending,
                         Effects& effects) {
  absl::flat_hash_map<uint32_t, int> running;  // array job id -> tasks holding nodes
  for (const auto& [id, live] : s.live) {
    const core::Job* job = s.jobs.Find(id);
    if (job != nullptr && job->array_job_id != 0) {
      ++running[job->array_job_id];
    }
  }
  absl::flat_hash_map<uint32_t, int> limits;
  std::vector<const core::Job*> allowed;
  allowed.reserve(pending.size());
  for (const core::Job* job : pending) {
    if (job->array_job_id == 0) {
      allowed.push_back(job);
      continue;
    }
    auto [it, inserted] = limits.try_emplace(job->array_job_id, 0);
    if (inserted) {
      it->second = slurm::ArrayThrottle(job->spec->array_spec);
    }
    int& n = running[job->array_job_id];
    if (it->second == 0 || n < it->second) {
      ++n;
      allowed.push_back(job);
      continue;
    }
    // Looked up to change only when it says something else: a long throttled array's waiting
    // tasks cost each pass no more than before.
    if (job->reason == core::JobReason::kNone || job->reason == core::JobReason::kPriority ||
        job->reason == core::JobReason::kResources) {
      s.jobs.Find(job->id)->reason = core::JobReason::kJobArrayTaskLimit;
      effects.republish.insert(job->id);
    }
  }
  pending.swap(allowed);
}

// The job took its allocation in the pass: GPU indexes, its nodes' lists, LaunchJob everywhere.
void Launch(LifecycleState& s, core::Job& job, Effects& effects) {
  s.TakeNodes(job);
  LiveJob& live = *s.Live(job.id);
  live.confirmed.assign(job.allocation.nodes.size(), false);
  live.launch_deadline = s.Now() + s.config->launch_timeout;
  // state_message stays: after a requeue it still says why the job had to start again.
  job.completing_to.reset();
  job.exit_code = 0;
  job.exit_signal = 0;
  job.warn_sent = false;
  ++job.run_id;
  auto record = std::make_shared<const core::Job>(job);
  for (size_t i = 0; i < job.allocation.nodes.size(); ++i) {
    effects.Send(job.allocation.nodes[i].node, LaunchJob{record, static_cast<int32_t>(i)});
  }
  s.Touch(job.id, effects);
  std::vector<std::string> names;
  for (const core::NodeShare& share : job.allocation.nodes) {
    names.push_back(s.topology->node_name(share.node));
  }
  effects.info.push_back(absl::StrCat("job ", job.id.value(), " starting on ",
                                      slurm::CompressHostlist(names), " (",
                                      job.placement_explanation, ")"));
}

// SchedulerParameters default_queue_depth's default: how many jobs the main scheduler (the passes
// between backfill cycles) looks at.
constexpr size_t kMainQueueDepth = 100;

// Records each reserved job's expected start and nodes (squeue --start), and clears those of
// jobs no longer reserved. Derived values: republished, not saved.
void NoteReservations(LifecycleState& s, const plan::Plan& plan, Effects& effects) {
  absl::flat_hash_set<core::JobId> reserved;
  for (const plan::PlannedReservation& r : plan.reservations) {
    core::Job* job = s.jobs.Find(r.job);
    if (job == nullptr) {
      continue;
    }
    reserved.insert(r.job);
    std::vector<core::NodeId> nodes;
    nodes.reserve(r.nodes.size());
    for (const core::NodeShare& share : r.nodes) {
      nodes.push_back(share.node);
    }
    if (job->expected_start != r.start || job->expected_nodes != nodes) {
      job->expected_start = r.start;
      job->expected_nodes = std::move(nodes);
      effects.republish.insert(r.job);
    }
  }
  for (core::JobId id : s.reserved) {
    core::Job* job = s.jobs.Find(id);
    if (!reserved.contains(id) && job != nullptr) {
      job->expected_start = absl::InfinitePast();
      job->expected_nodes.clear();
      effects.republish.insert(id);
    }
  }
  s.reserved.assign(reserved.begin(), reserved.end());
}

// Whether a pass's change of a waiting job's reason is saved (ApplyPass): one that takes the job
// out of the passes or back, and the finding that no node can ever hold it (canopy-sim, and any
// reader of the saved records, learn of it from the change).
bool SavedReason(core::JobReason reason) {
  return BlocksScheduling(reason) || reason == core::JobReason::kBadConstraints;
}

// Applies a pass's plan: starts, reasons, reservations (backfill), then preemption for the jobs
// in `pending` (queue order) that are still waiting.
void ApplyPass(LifecycleState& s, const plan::Plan& plan,
               absl::Span<const core::Job* const> pending, bool backfill, Effects& effects) {
  const absl::Time now = s.Now();
  effects.pass = plan.stats;
  effects.pass_backfilled = backfill;
  if (backfill) {
    NoteReservations(s, plan, effects);
  }
  // The applier sets the reasons of jobs still pending. A changed reason is shown at once but
  // not saved: it is the pass's finding, found again by every pass (and by the first after a
  // restart), and the top of a long queue goes between Priority (behind a job that cannot
  // start, in a main pass) and Resources (reserved for, in a backfill pass) from one pass to
  // the next: saving it rewrote some 130 whole job rows per pass, and the commits and copies
  // that took were the slowest moments of every submission made meanwhile
  // (docs/performance.md). A reason that takes the job out of the passes or back in, or says it
  // can never run, is saved (SavedReason). The explanation of a waiting job is neither.
  std::vector<core::JobReason> old_reasons;
  old_reasons.reserve(plan.pending.size());
  for (const plan::PendingNote& note : plan.pending) {
    const core::Job* job = s.jobs.Find(note.job);
    old_reasons.push_back(job != nullptr ? job->reason : note.reason);
  }
  absl::StatusOr<plan::ApplyReport> report = s.applier.Apply(plan, s.view, s.jobs, now);
  if (!report.ok()) {
    effects.warnings.push_back(absl::StrCat("scheduling pass failed: ", report.status().message()));
    return;
  }
  size_t next = 0;  // report->started is a subsequence of plan.starts
  for (const plan::PlannedStart& start : plan.starts) {
    if (next >= report->started.size() || report->started[next] != start.job) {
      continue;
    }
    ++next;
    core::Job& job = *s.jobs.Find(start.job);
    job.placement_explanation = start.explanation.ToString();
    Launch(s, job, effects);
    effects.started.push_back({start.job, start.min_units_possible});
  }
  for (size_t i = 0; i < plan.pending.size(); ++i) {
    const plan::PendingNote& note = plan.pending[i];
    core::Job* job = s.jobs.Find(note.job);
    if (job == nullptr || job->state != core::JobState::kPending) {
      continue;
    }
    if (job->placement_explanation != note.detail) {
      job->placement_explanation = note.detail;
    }
    if (job->reason == old_reasons[i]) {
      continue;
    }
    if (SavedReason(job->reason) || SavedReason(old_reasons[i])) {
      s.Touch(note.job, effects);
    } else {
      effects.republish.insert(note.job);
    }
  }
  for (const auto& [job, why] : report->refused) {
    s.Touch(job, effects);  // back to reason Resources
  }
  Preempt(s, pending, effects);
}

}  // namespace

std::vector<plan::RunningJob> RunningJobs(const LifecycleState& s, absl::Time now) {
  // When the capacity held now comes back: running jobs at the end of their time limits,
  // cleanup holds at their deadlines.
  std::vector<plan::RunningJob> running;
  running.reserve(s.live.size() + s.holds.size());
  for (const auto& [id, live] : s.live) {
    if (const core::Job* job = s.jobs.Find(id); job != nullptr) {
      running.push_back(plan::RunningJobOf(*job, now));
    }
  }
  for (const CleanupHold& h : s.holds) {
    running.push_back(plan::RunningJob{h.job, {&h.share, 1}, h.exclusive, h.deadline});
  }
  return running;
}

absl::StatusOr<WillRunAnswer> WillRun(const LifecycleState& s, const core::Job& job) {
  const absl::Time now = s.Now();
  std::vector<const core::Job*> pending;
  pending.reserve(s.pending.size() + 1);
  for (const auto& [id, other] : s.pending) {
    pending.push_back(other);
  }
  pending.push_back(&job);
  s.sort->Sort(pending, now);
  // Whatever SchedulerType says, the answer needs backfill's look into the future.
  plan::PassOptions options = s.pass_options;
  options.limits = &s.limit_usage;
  options.backfill.enabled = true;
  options.compute_min_units = false;
  const std::vector<plan::RunningJob> running = RunningJobs(s, now);
  const plan::Plan plan = plan::RunPass(s.view, running, pending, now, *s.policy, options);
  WillRunAnswer answer;
  answer.job = job.id;
  answer.partition = job.partition;
  auto take = [&](absl::Time start, const std::vector<core::NodeShare>& nodes) {
    answer.start = start;
    for (const core::NodeShare& share : nodes) {
      answer.nodes.push_back(share.node);
      answer.cpus += share.cpus;
    }
    return answer;
  };
  for (const plan::PlannedStart& start : plan.starts) {
    if (start.job == job.id) {
      return take(now, start.nodes);
    }
  }
  for (const plan::PlannedReservation& r : plan.reservations) {
    if (r.job == job.id) {
      return take(r.start, r.nodes);
    }
  }
  for (const plan::PendingNote& note : plan.pending) {
    if (note.job == job.id && note.infeasible) {
      return absl::FailedPreconditionError(
          "Job can never run on this cluster as configured (Requested node configuration is "
          "not available)");
    }
  }
  return absl::FailedPreconditionError(
      absl::StrCat("Job can not be scheduled within the backfill window (bf_window=",
                   absl::ToInt64Minutes(s.pass_options.backfill.window),
                   " minutes) behind the jobs queued "
                   "before it"));
}

namespace {

// Whether some node is up, healthy, not drained and not held whole by an exclusive job.
bool AnyNodeOpen(const placement::CapacityView& view) {
  for (int root : view.domains().roots()) {
    if (view.stats(root).open > 0) {
      return true;
    }
  }
  return false;
}

}  // namespace

void Schedule(LifecycleState& s, Effects& effects) {
  if (s.pending.empty()) {
    return;
  }
  const absl::Time now = s.Now();
  bool plan_here = !s.plan_backfill_elsewhere;
  if (s.backfill_in_flight != 0) {
    if (now - s.backfill_sent < kBackfillWorkTimeout) {
      return;  // BackfillPlanned asks for the next pass
    }
    // A planner this slow would be given up on again and again, and no job would start: this
    // pass is planned here, whatever it costs the calls waiting meanwhile.
    effects.warnings.push_back(absl::StrCat("the backfill pass planned since ",
                                            absl::FormatTime(s.backfill_sent),
                                            " did not come back: planning this one inline"));
    s.backfill_in_flight = 0;
    plan_here = true;
  }
  // Backfill searches the future for up to bf_max_job_test jobs: as Slurm, at most once per
  // bf_interval. Passes in between start jobs in strict priority order only, which cannot take
  // what the last backfill pass reserved for a job before them; the backfill pass they put off
  // is due at the end of the interval (Tick asks for it).
  plan::PassOptions options = s.pass_options;
  options.limits = &s.limit_usage;
  const bool backfill =
      options.backfill.enabled &&
      (s.last_backfill == absl::InfinitePast() ||
       now >= s.last_backfill + s.config->scheduling.scheduler.parameters.bf_interval);
  if (options.backfill.enabled && !backfill) {
    s.backfill_due = std::min(
        s.backfill_due, s.last_backfill + s.config->scheduling.scheduler.parameters.bf_interval);
  }
  if (!backfill && s.config->scheduling.preempt.type == slurm::PreemptType::kNone &&
      !AnyNodeOpen(s.view)) {
    // No node could take any job (all down, drained or held whole by exclusive jobs: a full GPU
    // cluster, or one whose agents have not registered yet), so a main pass would start nothing
    // and only sort the queue: with 200,000 queued jobs that was a third of the owner's time
    // while a portal submitted (docs/performance.md). The backfill pass still runs when due.
    return;
  }
  std::vector<const core::Job*> pending;
  pending.reserve(s.pending.size());
  for (const auto& [id, job] : s.pending) {
    pending.push_back(job);
  }
  if (s.has_throttled_arrays) {
    ApplyArrayThrottles(s, pending, effects);
  }
  if (options.backfill.enabled && !backfill) {
    options.backfill.enabled = false;
    options.strict_order = true;
    // Like Slurm's main scheduler, only the top of the queue (default_queue_depth) is looked at
    // between backfill cycles: a queue of thousands costs O(n log depth) here, not a full sort
    // and a pass over all of it on every event.
    s.sort->SortTop(pending, kMainQueueDepth, now);
  } else if (!backfill || plan_here) {
    s.sort->Sort(pending, now);
  }  // else the planner sorts its copies (PlanBackfill), off this thread
  if (!s.preemptors.empty()) {
    // What their victims free is theirs: while jobs that preempted wait for their victims to be
    // gone (a bounded time: GraceTime, KillWait, a launch), the pass looks at them alone, so no
    // job of another partition takes a node a victim just left.
    std::erase_if(pending, [&](const core::Job* job) { return !s.preemptors.contains(job->id); });
  }
  if (backfill) {
    s.last_backfill = now;
    s.backfill_due = absl::InfiniteFuture();
  }
  if (backfill && !plan_here) {
    auto work = std::make_shared<BackfillWork>(MakeBackfillWork(s, pending, options, now));
    work->id = ++s.last_backfill_work;
    s.backfill_in_flight = work->id;
    s.backfill_sent = now;
    s.touched_while_planning.clear();
    effects.backfill_work = std::move(work);
    return;
  }
  const std::vector<plan::RunningJob> running =
      backfill ? RunningJobs(s, now) : std::vector<plan::RunningJob>();
  const plan::Plan plan = plan::RunPass(s.view, running, pending, now, *s.policy, options);
  ApplyPass(s, plan, pending, backfill, effects);
}

void BackfillPlanned(LifecycleState& s, BackfillWork& work, Effects& effects) {
  if (work.id != s.backfill_in_flight) {
    return;  // given up on (kBackfillWorkTimeout): a later pass has run since
  }
  s.backfill_in_flight = 0;
  effects.schedule = true;  // for what arrived while it was planned
  std::vector<const core::Job*> pending;
  const plan::Plan plan = CheckBackfillPlan(s, work, pending);
  ApplyPass(s, plan, pending, /*backfill=*/true, effects);
}

void ResendLaunch(const core::Job& job, int node_index, Effects& effects) {
  effects.Send(job.allocation.nodes[node_index].node,
               LaunchJob{std::make_shared<const core::Job>(job), node_index});
}

void Confirm(LifecycleState& s, core::Job& job, int node_index, Effects& effects) {
  LiveJob* live = s.Live(job.id);
  if (job.state != core::JobState::kConfiguring || live == nullptr) {
    return;
  }
  live->confirmed[node_index] = true;
  if (std::all_of(live->confirmed.begin(), live->confirmed.end(), [](bool b) { return b; })) {
    (void)core::TransitionTo(job, core::JobState::kRunning, s.Now());
    s.Touch(job.id, effects);
  }
}

void AbortLaunch(LifecycleState& s, core::Job& job, const std::string& why, Effects& effects,
                 int cleaned_node) {
  if (job.state != core::JobState::kConfiguring) {
    return;
  }
  const bool left = LeaveNodesHeld(
      s, job, absl::StrCat("launch aborted: ", why), why, core::JobState::kRequeued,
      [&] { return plan::AbortLaunch(s.view, job, core::JobReason::kResources, s.Now()); }, effects,
      cleaned_node);
  if (left) {
    effects.warnings.push_back(absl::StrCat("job ", job.id.value(), " back to PENDING: ", why));
  }
}

bool LeaveNodesHeld(LifecycleState& s, core::Job& job, const std::string& kill_reason,
                    const std::string& why, core::JobState attempt_end,
                    absl::FunctionRef<absl::Status()> release, Effects& effects, int cleaned_node) {
  s.SendKill(job, kill_reason, effects, cleaned_node);
  std::vector<CleanupHold> holds = HoldsFor(s, job);
  const core::Allocation held = job.allocation;  // `release` may clear it
  core::JobAttempt ended{.job = job.id,
                         .attempt = job.restart_count,
                         .state = attempt_end,
                         .state_message = why,
                         .eligible_time = job.eligible_time,
                         .start_time = job.start_time,
                         .end_time = s.Now(),
                         .exit_code = job.exit_code,
                         .exit_signal = job.exit_signal,
                         .allocation = held};
  // Capacity first: if that fails (a bug), the job keeps everything it holds.
  if (absl::Status st = release(); !st.ok()) {
    effects.warnings.push_back(std::string(st.message()));
    return false;
  }
  s.LeaveNodes(job.id, held, effects);
  if (job.restart_count > ended.attempt) {
    effects.attempts.push_back(std::move(ended));
  }
  TakeHolds(s, std::move(holds), effects);
  job.state_message = why;
  s.Touch(job.id, effects);
  effects.schedule = true;
  return true;
}

std::vector<CleanupHold> HoldsFor(const LifecycleState& s, const core::Job& job) {
  std::vector<CleanupHold> holds;
  const absl::Time deadline = s.Now() + s.config->kill_wait + kCleanupGrace;
  for (const core::NodeShare& share : job.allocation.nodes) {
    if (!s.view.node(share.node).up) {
      continue;  // a down node's processes count as gone
    }
    holds.push_back(CleanupHold{job.id, job.run_id, share, job.allocation.exclusive, deadline});
  }
  return holds;
}

void TakeHolds(LifecycleState& s, std::vector<CleanupHold> holds, Effects& effects) {
  for (CleanupHold& h : holds) {
    const placement::NodeUse use{h.share.node, h.share.gpus, h.share.cpus, h.share.mem_mib};
    if (absl::Status st = s.view.ApplyJob({&use, 1}, h.exclusive, /*start=*/true); !st.ok()) {
      effects.warnings.push_back(absl::StrCat("job ", h.job.value(), ": holding ",
                                              s.topology->node_name(h.share.node),
                                              " until it cleans up: ", st.message()));
      continue;
    }
    s.MarkGpus(h.share, /*used=*/true);
    ++s.capacity_version;
    s.holds.push_back(std::move(h));
  }
}

void ReleaseHolds(LifecycleState& s, core::JobId job, core::NodeId node, uint32_t run_id,
                  Effects& effects) {
  for (auto it = s.holds.begin(); it != s.holds.end();) {
    const bool match = it->share.node == node && (!job.valid() || it->job == job) &&
                       (run_id == 0 || it->run_id == run_id);
    if (!match) {
      ++it;
      continue;
    }
    const placement::NodeUse use{it->share.node, it->share.gpus, it->share.cpus, it->share.mem_mib};
    (void)s.view.ApplyJob({&use, 1}, it->exclusive, /*start=*/false);
    s.MarkGpus(it->share, /*used=*/false);
    ++s.capacity_version;
    effects.schedule = true;
    it = s.holds.erase(it);
  }
}

}  // namespace canopy::lifecycle
