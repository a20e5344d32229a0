// Dependencies and begin times (dependencies.h).
#include "scheduler/lifecycle/dependencies.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "scheduler/lifecycle/admission.h"

namespace canopy::lifecycle {
namespace {

using core::DependencyState;
using core::DependencyType;

DependeeCategory CategoryOf(const core::Job& job) {
  switch (job.state) {
    case core::JobState::kPending:
    case core::JobState::kRequeued:
      return DependeeCategory::kPending;
    case core::JobState::kCompleted:
      return DependeeCategory::kCompletedOk;
    default:
      return core::IsTerminal(job.state) ? DependeeCategory::kEndedNotOk
                                         : DependeeCategory::kStarted;
  }
}

// When the job left PENDING: its (last) start, or its end if it never started (cancelled).
absl::Time LeftPending(const core::Job& job) {
  return job.start_time != absl::InfinitePast() ? job.start_time : job.end_time;
}

// What an item sees of the job, or all the tasks of the array, it names.
struct Facts {
  bool exists = false;
  bool pending = false;   // (some task) still PENDING
  bool finished = false;  // (every task) ended
  bool ok = false;        // (every task) ended COMPLETED
  absl::Time left = absl::InfinitePast();
};

Facts OfJob(const core::Job* job) {
  Facts f;
  if (job == nullptr) {
    return f;
  }
  const DependeeCategory c = CategoryOf(*job);
  f.exists = true;
  f.pending = c == DependeeCategory::kPending;
  f.finished = c == DependeeCategory::kCompletedOk || c == DependeeCategory::kEndedNotOk;
  f.ok = c == DependeeCategory::kCompletedOk;
  f.left = LeftPending(*job);
  return f;
}

Facts OfArray(const ArrayProgress& a) {
  Facts f;
  f.exists = a.total() > 0;
  f.pending = a.pending > 0;
  f.finished = a.finished() == a.total();
  f.ok = a.ok == a.total();
  f.left = a.last_left_pending;
  return f;
}

// The task `task` of tracked array `array`; nullptr if there is none.
const core::Job* TaskOf(const LifecycleState& s, uint32_t array, uint32_t task) {
  auto a = s.deps.arrays.find(array);
  if (a == s.deps.arrays.end()) {
    return nullptr;
  }
  auto t = a->second.by_task.find(task);
  return t == a->second.by_task.end() ? nullptr : s.jobs.Find(t->second);
}

// The task of array `item.job_id` an aftercorr item of `job` compares with; nullptr when the
// job is no array task or the other array has no such task (then the whole array counts).
const core::Job* Corresponding(const LifecycleState& s, const core::Job& job,
                               const core::Dependency& item) {
  if (item.type != DependencyType::kAfterCorr || !item.whole_array || job.array_job_id == 0) {
    return nullptr;
  }
  return TaskOf(s, item.job_id, job.array_task_id);
}

Facts FactsOf(const LifecycleState& s, const core::Job& job, const core::Dependency& item) {
  if (item.array_task_id.has_value()) {
    return OfJob(TaskOf(s, item.job_id, *item.array_task_id));
  }
  if (const core::Job* task = Corresponding(s, job, item); task != nullptr) {
    return OfJob(task);
  }
  if (item.whole_array) {
    auto a = s.deps.arrays.find(item.job_id);
    return a == s.deps.arrays.end() ? Facts() : OfArray(a->second);
  }
  return OfJob(s.jobs.Find(core::JobId(item.job_id)));
}

// The index key an item of `job` is listed under.
uint64_t KeyOf(const LifecycleState& s, const core::Job& job, const core::Dependency& item) {
  if (item.array_task_id.has_value()) {
    return DependencyIndex::Key(item.job_id, *item.array_task_id + 1);
  }
  if (const core::Job* task = Corresponding(s, job, item); task != nullptr) {
    return DependencyIndex::Key(item.job_id, job.array_task_id + 1);
  }
  return DependencyIndex::Key(item.job_id, 0);
}

bool NamesArray(const core::Dependency& item) {
  return item.type != DependencyType::kSingleton &&
         (item.whole_array || item.array_task_id.has_value());
}

// Starts following the tasks of `array` (one pass over them, the first time).
void TrackArray(LifecycleState& s, uint32_t array) {
  auto [it, inserted] = s.deps.arrays.try_emplace(array);
  ArrayProgress& a = it->second;
  ++a.watchers;
  if (!inserted) {
    return;
  }
  for (auto j = s.jobs.jobs().find(core::JobId(array));
       j != s.jobs.jobs().end() && j->second->array_job_id == array; ++j) {
    const core::Job& task = *j->second;
    const DependeeCategory c = CategoryOf(task);
    a.by_task[task.array_task_id] = task.id;
    a.category[task.id] = c;
    a.pending += c == DependeeCategory::kPending ? 1 : 0;
    a.ok += c == DependeeCategory::kCompletedOk ? 1 : 0;
    a.not_ok += c == DependeeCategory::kEndedNotOk ? 1 : 0;
    if (c != DependeeCategory::kPending) {
      a.last_left_pending = std::max(a.last_left_pending, LeftPending(task));
    }
  }
}

void UntrackArray(LifecycleState& s, uint32_t array) {
  auto it = s.deps.arrays.find(array);
  if (it != s.deps.arrays.end() && --it->second.watchers <= 0) {
    s.deps.arrays.erase(it);
  }
}

// The jobs of `job`'s user and name that singleton items look at. The first time a name is
// asked for, its group is built from the pending and node-holding jobs (one pass over those);
// from then on Reindex keeps it (NoteJobState).
NameGroup& TrackName(LifecycleState& s, const core::Job& job) {
  auto& by_name = s.deps.names[job.user_id];
  if (auto it = by_name.find(job.spec->name); it != by_name.end()) {
    return it->second;
  }
  NameGroup& group = by_name[job.spec->name];
  auto add = [&](const core::Job& other) {
    if (other.user_id == job.user_id && other.spec->name == job.spec->name) {
      if (CategoryOf(other) == DependeeCategory::kPending) {
        group.pending.insert(other.id);
      } else if (other.state == core::JobState::kConfiguring ||
                 other.state == core::JobState::kRunning) {
        group.running.insert(other.id);
      }
    }
  };
  for (const auto* index : {&s.pending, &s.blocked}) {
    for (const auto& [id, other] : *index) {
      add(*other);
    }
  }
  for (const auto& [id, live] : s.live) {
    if (const core::Job* other = s.jobs.Find(id); other != nullptr) {
      add(*other);
    }
  }
  return group;
}

NameGroup* FindName(LifecycleState& s, const core::Job& job) {
  auto user = s.deps.names.find(job.user_id);
  if (user == s.deps.names.end()) {
    return nullptr;
  }
  auto it = user->second.find(job.spec->name);
  return it == user->second.end() ? nullptr : &it->second;
}

// Slurm's singleton rule: no other job of the user and name is running, and none is pending
// with a lower id.
bool SingletonFree(LifecycleState& s, const core::Job& job) {
  const NameGroup* group = FindName(s, job);
  if (group == nullptr) {
    return true;
  }
  return group->running.empty() && (group->pending.empty() || *group->pending.begin() >= job.id);
}

// Lists `job` under everything its dependency names.
void Watch(LifecycleState& s, const core::Job& job) {
  if (!s.deps.tracked.insert(job.id).second) {
    return;
  }
  for (const core::Dependency& item : job.spec->dependencies) {
    if (item.type == DependencyType::kSingleton) {
      TrackName(s, job).waiting.insert(job.id);
      continue;
    }
    if (NamesArray(item)) {
      TrackArray(s, item.job_id);
    }
    s.deps.dependents[KeyOf(s, job, item)].insert(job.id);
  }
}

void Unwatch(LifecycleState& s, const core::Job& job) {
  if (s.deps.tracked.erase(job.id) == 0) {
    return;
  }
  for (const core::Dependency& item : job.spec->dependencies) {
    if (item.type == DependencyType::kSingleton) {
      if (NameGroup* group = FindName(s, job); group != nullptr) {
        group->waiting.erase(job.id);
      }
      continue;
    }
    auto it = s.deps.dependents.find(KeyOf(s, job, item));  // before the array is untracked
    if (it != s.deps.dependents.end()) {
      it->second.erase(job.id);
      if (it->second.empty()) {
        s.deps.dependents.erase(it);
      }
    }
    if (NamesArray(item)) {
      UntrackArray(s, item.job_id);
    }
  }
  s.deps.wake.erase(job.id);
}

// What has become of one waiting item; `wake` gets the time an after+MINUTES item comes due.
DependencyState EvaluateItem(LifecycleState& s, const core::Job& job, const core::Dependency& item,
                             absl::Time now, absl::Time& wake) {
  if (item.type == DependencyType::kSingleton) {
    return SingletonFree(s, job) ? DependencyState::kSatisfied : DependencyState::kWaiting;
  }
  const Facts f = FactsOf(s, job, item);
  if (!f.exists) {
    return DependencyState::kSatisfied;  // the job is gone: Slurm lifts the dependency
  }
  switch (item.type) {
    case DependencyType::kAfter:
      if (f.pending) {
        return DependencyState::kWaiting;
      }
      if (item.delay > absl::ZeroDuration() && now < f.left + item.delay) {
        wake = std::min(wake, f.left + item.delay);
        return DependencyState::kWaiting;
      }
      return DependencyState::kSatisfied;
    case DependencyType::kAfterAny:
      return f.finished ? DependencyState::kSatisfied : DependencyState::kWaiting;
    case DependencyType::kAfterNotOk:
      if (!f.finished) {
        return DependencyState::kWaiting;
      }
      return f.ok ? DependencyState::kFailed : DependencyState::kSatisfied;
    case DependencyType::kAfterOk:
    case DependencyType::kAfterCorr:
    default:
      if (!f.finished) {
        return DependencyState::kWaiting;
      }
      return f.ok ? DependencyState::kSatisfied : DependencyState::kFailed;
  }
}

bool KillInvalid(const LifecycleState& s, const core::Job& job) {
  return job.spec->kill_on_invalid_dep.value_or(
      s.config->scheduling.scheduler.kill_invalid_depend());
}

// Re-evaluates the waiting items of tracked job `id`, and acts on the outcome.
void Evaluate(LifecycleState& s, core::JobId id, Effects& effects) {
  core::Job* job = s.jobs.Find(id);
  if (job == nullptr || !s.deps.tracked.contains(id)) {
    return;
  }
  if (job->state != core::JobState::kPending) {
    Unwatch(s, *job);
    return;
  }
  const absl::Time now = s.Now();
  absl::Time wake = absl::InfiniteFuture();
  bool changed = false;
  // The spec is shared with the job's published copies: it is copied (Mutable) only when an
  // item's state moves, and items are read by index because that copy replaces the vector.
  for (size_t i = 0; i < job->spec->dependencies.size(); ++i) {
    const core::Dependency& item = job->spec->dependencies[i];
    if (item.state != DependencyState::kWaiting) {
      continue;
    }
    const DependencyState state = EvaluateItem(s, *job, item, now, wake);
    if (state != item.state) {
      const DependencyType type = item.type;
      job->spec.Mutable().dependencies[i].state = state;
      changed = true;
      if (type == DependencyType::kSingleton) {
        if (NameGroup* group = FindName(s, *job); group != nullptr) {
          group->waiting.erase(id);
        }
      }
    }
  }
  const DependencyState outcome = DependencyOutcome(job->spec);
  if (outcome == DependencyState::kSatisfied) {
    // Slurm empties the list once it is satisfied: nothing is left to show as unfulfilled.
    const std::vector<core::Dependency>& items = job->spec->dependencies;
    if (std::any_of(items.begin(), items.end(), [](const core::Dependency& item) {
          return item.state != DependencyState::kSatisfied;
        })) {
      for (core::Dependency& item : job->spec.Mutable().dependencies) {
        item.state = DependencyState::kSatisfied;
      }
    }
  }
  if (outcome != DependencyState::kWaiting) {
    Unwatch(s, *job);
  } else if (wake != absl::InfiniteFuture()) {
    s.deps.wake[id] = wake;
  } else {
    s.deps.wake.erase(id);
  }
  s.Rearm(id);
  if (outcome == DependencyState::kFailed && KillInvalid(s, *job)) {
    std::vector<std::string> failed;
    for (const core::Dependency& item : job->spec->dependencies) {
      if (item.state == DependencyState::kFailed) {
        failed.push_back(DescribeDependency(item));
      }
    }
    (void)core::TransitionTo(*job, core::JobState::kCancelled, now);
    job->state_message =
        absl::StrCat("cancelled: its dependency can never be satisfied (",
                     absl::StrJoin(failed, ", "), " failed; --kill-on-invalid-dep)");
    effects.info.push_back(absl::StrCat("job ", id.value(), " ", job->state_message));
    s.Touch(id, effects);
    return;
  }
  if (changed) {
    s.Touch(id, effects);  // the items' states are stored
  }
  Regate(s, *job, effects);
}

bool IsGateReason(core::JobReason r) {
  using R = core::JobReason;
  return r == R::kDependency || r == R::kDependencyNeverSatisfied || r == R::kBeginTime ||
         r == R::kPartitionDown || r == R::kPartitionTimeLimit || r == R::kPartitionNodeLimit;
}

// The reason a pending job that is not held has to wait before the pass may look at it.
core::JobReason GateReason(const LifecycleState& s, const core::Job& job) {
  switch (DependencyOutcome(job.spec)) {
    case DependencyState::kFailed:
      return core::JobReason::kDependencyNeverSatisfied;
    case DependencyState::kWaiting:
      return core::JobReason::kDependency;
    case DependencyState::kSatisfied:
      break;
  }
  if (job.spec->begin_time > s.Now()) {
    return core::JobReason::kBeginTime;
  }
  core::JobSpec spec = job.spec;
  spec.partition = job.partition;  // where it was put at submission
  absl::StatusOr<ResolvedSpec> resolved = ResolveSpec(spec, *s.config, *s.topology);
  if (!resolved.ok()) {
    return core::JobReason::kNone;  // cannot happen for a queued job; the pass will say more
  }
  return PartitionLimitReason(*resolved->partition, resolved->resources.min_nodes, job.time_limit);
}

// Passes the change of `id` on to the jobs waiting on it.
void PassOn(LifecycleState& s, core::JobId id, Effects& effects) {
  const core::Job* job = s.jobs.Find(id);
  if (job == nullptr) {
    return;
  }
  if (job->state != core::JobState::kPending && s.deps.tracked.contains(id)) {
    Unwatch(s, *job);  // it waited, and left PENDING some other way (scancel)
  }
  std::vector<core::JobId> waiting;
  auto collect = [&](uint64_t key) {
    if (auto it = s.deps.dependents.find(key); it != s.deps.dependents.end()) {
      waiting.insert(waiting.end(), it->second.begin(), it->second.end());
    }
  };
  collect(DependencyIndex::Key(id.value(), 0));
  if (job->array_job_id != 0) {
    if (job->array_job_id != id.value()) {
      collect(DependencyIndex::Key(job->array_job_id, 0));
    }
    collect(DependencyIndex::Key(job->array_job_id, job->array_task_id + 1));
  }
  if (!s.deps.names.empty()) {
    // Only the lowest waiting singleton of the name can be released by a change.
    if (const NameGroup* group = FindName(s, *job); group != nullptr && !group->waiting.empty()) {
      waiting.push_back(*group->waiting.begin());
    }
  }
  std::sort(waiting.begin(), waiting.end());
  waiting.erase(std::unique(waiting.begin(), waiting.end()), waiting.end());
  for (core::JobId w : waiting) {
    Evaluate(s, w, effects);
  }
}

}  // namespace

absl::Status ReplaceDependencies(LifecycleState& s, core::Job& job, core::JobSpec spec,
                                 Effects& effects) {
  if (job.state != core::JobState::kPending) {
    return absl::FailedPreconditionError("Job is no longer pending execution");
  }
  for (const core::Dependency& item : spec.dependencies) {
    if (item.type != DependencyType::kSingleton &&
        (item.job_id == job.id.value() ||
         (job.array_job_id != 0 && item.job_id == job.array_job_id))) {
      return absl::InvalidArgumentError(absl::StrCat("dependency ", DescribeDependency(item),
                                                     ": a job cannot depend on itself",
                                                     "\nJob dependency problem"));
    }
  }
  if (absl::Status st = ResolveDependencies(s, spec); !st.ok()) {
    // Slurm's update answer is the last line without sbatch's "Batch job submission failed: ".
    std::string message(st.message());
    absl::StrReplaceAll({{"Batch job submission failed: ", ""}}, &message);
    return absl::InvalidArgumentError(message);
  }
  Unwatch(s, job);
  job.spec.Mutable().dependencies = std::move(spec.dependencies);
  job.spec.Mutable().dependency_any = spec.dependency_any;
  s.Touch(job.id, effects);
  StartWaiting(s, job.id, effects);
  Regate(s, job, effects);  // an emptied list no longer holds the job back
  return absl::OkStatus();
}

void RenameJob(LifecycleState& s, core::Job& job, std::string name, Effects& effects) {
  if (job.spec->name == name) {
    return;
  }
  const bool was_watched = s.deps.tracked.contains(job.id);
  if (was_watched) {
    Unwatch(s, job);  // its singleton item waits under the old name
  }
  std::optional<core::JobId> released;  // the old name's first waiter, which `job` may block
  if (NameGroup* old = FindName(s, job); old != nullptr) {
    old->pending.erase(job.id);
    old->running.erase(job.id);
    if (!old->waiting.empty()) {
      released = *old->waiting.begin();
    }
  }
  job.spec.Mutable().name = std::move(name);
  NoteJobState(s, job);  // joins the new name's group, if singletons look at it
  if (was_watched) {
    Watch(s, job);
    Evaluate(s, job.id, effects);
  }
  if (released.has_value()) {
    Evaluate(s, *released, effects);
  }
}

void StartWaiting(LifecycleState& s, core::JobId id, Effects& effects) {
  core::Job* job = s.jobs.Find(id);
  if (job == nullptr || job->state != core::JobState::kPending) {
    return;
  }
  if (DependencyOutcome(job->spec) == DependencyState::kWaiting) {
    Watch(s, *job);
    Evaluate(s, id, effects);
  } else if (!job->spec->dependencies.empty() || job->spec->begin_time != absl::InfinitePast()) {
    Regate(s, *job, effects);
  }
}

void DependeeChanged(LifecycleState& s, core::JobId id, Effects& effects) {
  s.deps.changed.push_back(id);
  if (s.deps.draining) {
    return;  // the loop below is already running further up the stack
  }
  s.deps.draining = true;
  while (!s.deps.changed.empty()) {
    const core::JobId next = s.deps.changed.front();
    s.deps.changed.pop_front();
    PassOn(s, next, effects);
  }
  s.deps.draining = false;
}

void NoteJobState(LifecycleState& s, const core::Job& job) {
  if (job.array_job_id != 0) {
    if (auto a = s.deps.arrays.find(job.array_job_id); a != s.deps.arrays.end()) {
      ArrayProgress& p = a->second;
      auto c = p.category.find(job.id);
      const DependeeCategory now = CategoryOf(job);
      if (c != p.category.end() && c->second != now) {
        auto count = [&](DependeeCategory cat, int32_t delta) {
          p.pending += cat == DependeeCategory::kPending ? delta : 0;
          p.ok += cat == DependeeCategory::kCompletedOk ? delta : 0;
          p.not_ok += cat == DependeeCategory::kEndedNotOk ? delta : 0;
        };
        count(c->second, -1);
        count(now, +1);
        c->second = now;
      }
      if (now != DependeeCategory::kPending) {
        p.last_left_pending = std::max(p.last_left_pending, LeftPending(job));
      }
    }
  }
  if (NameGroup* group = FindName(s, job); group != nullptr) {
    if (CategoryOf(job) == DependeeCategory::kPending) {
      group->pending.insert(job.id);
    } else {
      group->pending.erase(job.id);
    }
    if (job.state == core::JobState::kConfiguring || job.state == core::JobState::kRunning) {
      group->running.insert(job.id);
    } else {
      group->running.erase(job.id);
    }
  }
}

void WakePending(LifecycleState& s, core::Job& job, Effects& effects) {
  if (s.deps.tracked.contains(job.id)) {
    Evaluate(s, job.id, effects);
  } else {
    Regate(s, job, effects);
  }
}

void Regate(LifecycleState& s, core::Job& job, Effects& effects) {
  if (job.state != core::JobState::kPending || IsHold(job.reason)) {
    return;
  }
  const core::JobReason gate = GateReason(s, job);
  if (gate == job.reason || (gate == core::JobReason::kNone && !IsGateReason(job.reason))) {
    return;
  }
  job.reason = gate;
  if (gate == core::JobReason::kNone) {
    effects.schedule = true;
  }
  s.Touch(job.id, effects);
}

}  // namespace canopy::lifecycle
