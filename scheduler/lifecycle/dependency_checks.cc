// Dependencies at submission (dependencies.h): the checks of a submitted list and how an item
// is named in messages. The waiting and waking of jobs stays in dependencies.cc.
#include <string>

#include "absl/strings/str_cat.h"
#include "scheduler/lifecycle/dependencies.h"

namespace canopy::lifecycle {

using core::DependencyState;
using core::DependencyType;

std::string DescribeDependency(const core::Dependency& item) {
  if (item.type == DependencyType::kSingleton) {
    return "singleton";
  }
  std::string out = absl::StrCat(core::DependencyTypeName(item.type), ":", item.job_id);
  if (item.array_task_id.has_value()) {
    absl::StrAppend(&out, "_", *item.array_task_id);
  }
  if (item.delay > absl::ZeroDuration()) {
    absl::StrAppend(&out, "+", absl::ToInt64Minutes(item.delay));
  }
  return out;
}

bool IsHold(core::JobReason reason) {
  return reason == core::JobReason::kJobHeldUser || reason == core::JobReason::kJobHeldAdmin;
}

DependencyState DependencyOutcome(const core::JobSpec& spec) {
  bool waiting = false, failed = false, satisfied = false;
  for (const core::Dependency& item : spec.dependencies) {
    waiting = waiting || item.state == DependencyState::kWaiting;
    failed = failed || item.state == DependencyState::kFailed;
    satisfied = satisfied || item.state == DependencyState::kSatisfied;
  }
  if (spec.dependencies.empty()) {
    return DependencyState::kSatisfied;
  }
  if (spec.dependency_any) {
    return satisfied ? DependencyState::kSatisfied
           : waiting ? DependencyState::kWaiting
                     : DependencyState::kFailed;
  }
  return failed    ? DependencyState::kFailed
         : waiting ? DependencyState::kWaiting
                   : DependencyState::kSatisfied;
}

absl::Status ResolveDependencies(const LifecycleState& s, core::JobSpec& spec) {
  for (core::Dependency& item : spec.dependencies) {
    item.state = DependencyState::kWaiting;
    item.whole_array = false;
    auto problem = [&](absl::string_view why) {
      return absl::InvalidArgumentError(
          absl::StrCat("dependency ", DescribeDependency(item), ": ", why,
                       "\nBatch job submission failed: Job dependency problem"));
    };
    if (item.type == DependencyType::kSingleton) {
      item.job_id = 0;
      item.array_task_id.reset();
      item.delay = absl::ZeroDuration();
      continue;
    }
    if (item.delay < absl::ZeroDuration()) {
      return problem("the delay after the job starts must not be negative");
    }
    if (item.job_id == 0) {
      return problem("a job id is needed");
    }
    const core::Job* named = s.jobs.Find(core::JobId(item.job_id));
    if (named == nullptr) {
      return problem(absl::StrCat("job ", item.job_id, " does not exist"));
    }
    const bool is_array = named->array_job_id == item.job_id;
    if (item.array_task_id.has_value()) {
      if (!is_array) {
        return problem(absl::StrCat("job ", item.job_id, " is not an array"));
      }
      bool found = false;
      for (core::JobId task : s.Named(item.job_id)) {
        found = found || s.jobs.Find(task)->array_task_id == *item.array_task_id;
      }
      if (!found) {
        return problem(absl::StrCat("array ", item.job_id, " has no task ", *item.array_task_id));
      }
    } else {
      item.whole_array = is_array;
    }
  }
  return absl::OkStatus();
}

}  // namespace canopy::lifecycle
